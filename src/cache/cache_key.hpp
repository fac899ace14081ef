// src/cache/cache_key.hpp: the identity of a compiled loop in the disk cache.
//
// A CacheKey is an ordered list of (tag, value) fields (target, arch, compiler, options, the
// generated source, ...) and the XXH3-128 digest of them. The key does not know which fields
// exist: it hashes whatever is added, in order. The digest is taken over this byte string:
//
//     digest_input := "jitvec-cache-key" NUL u32(kCacheFormatVersion) field*
//     field        := u64(len(tag)) tag u64(len(value)) value
//
// with every integer little-endian, so that ("ab","c") and ("a","bc") differ and a key is the
// same on every host. Bumping kCacheFormatVersion changes every key and so invalidates every
// entry written before. The entry file stores the fields too (see cache_entry.hpp), and a
// lookup compares them, so a digest collision reads as a miss, never as the wrong code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jitvec::cache {

/// The version of the key encoding and of the entry file format. Bump it whenever either
/// changes, or whenever compiled code stored by an older jitvec must no longer be used.
inline constexpr std::uint32_t kCacheFormatVersion = 1;

/// A key's fields in the order they were added: (tag, value).
using KeyFields = std::vector<std::pair<std::string, std::string>>;

/// Builds a key field by field:
///
///     CacheKey key;
///     key.add("target", "cuda");
///     key.add("arch", "sm_90");
///     key.add("source", kernel_source);
///     std::string name = key.hex();   // 32 lowercase hex digits
class CacheKey {
 public:
  /// Appends a field. Tags may repeat; order matters.
  void add(std::string_view tag, std::string_view value);

  /// The XXH3-128 digest of the format version and the fields, as 32 lowercase hex digits.
  std::string hex() const;

  const KeyFields& fields() const { return fields_; }

 private:
  KeyFields fields_;
};

/// Names the first difference between two keys' fields, for debug logs, e.g.
/// "arch differs: sm_80 vs sm_90", or "source differs at byte 812 (lengths 2301 vs 2307)"
/// for long values. Empty when the fields are equal.
std::string describe_difference(const KeyFields& a, const KeyFields& b);

}  // namespace jitvec::cache
