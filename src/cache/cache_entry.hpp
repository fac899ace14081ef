// src/cache/cache_entry.hpp: the bytes of one disk-cache entry file, and reading them back.
//
// An entry holds the key fields it was stored under (so a lookup can tell a digest collision
// from a hit) and named payloads: the cubin, the PTX, the generated source, the compile log, a
// host shared object. The file describes itself; its grammar, every integer little-endian:
//
//     entry    := magic version size field_count field* payload_count payload* created checksum
//     magic    := "JVCACHE\n"                      8 bytes
//     version  := u32                              kCacheFormatVersion of the writer
//     size     := u64                              bytes in the whole entry, checksum included
//     field    := string(tag) string(value)        the key fields, in key order
//     payload  := string(kind) string(bytes)       kind: "cubin", "ptx", "source", "log", "so", ...
//     string   := u64(length) byte*
//     created  := i64                              seconds since the Unix epoch
//     checksum := 16 bytes                         XXH3-128 (canonical) of every byte before it
//     field_count, payload_count := u32
//
// parse() checks, in this order, that the magic, the version, the size and the checksum are
// right, and throws DamagedEntry (cache_errors.hpp) naming the first that is not.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cache/cache_errors.hpp"
#include "cache/cache_key.hpp"

namespace jitvec::cache {

/// The payload kinds jitvec writes.
namespace payload_kind {
inline constexpr std::string_view cubin = "cubin";
inline constexpr std::string_view ptx = "ptx";
inline constexpr std::string_view source = "source";
inline constexpr std::string_view log = "log";
inline constexpr std::string_view shared_object = "so";
}  // namespace payload_kind

struct Payload {
  std::string kind;
  std::string bytes;
};

struct CacheEntry {
  KeyFields key_fields;
  std::vector<Payload> payloads;
  /// When the entry was stored, in seconds since the Unix epoch.
  std::int64_t created = 0;

  /// The bytes of the first payload of `kind`, or nullptr if there is none.
  const std::string* payload(std::string_view kind) const;
  void add_payload(std::string_view kind, std::string bytes);
};

bool operator==(const Payload& a, const Payload& b);
bool operator==(const CacheEntry& a, const CacheEntry& b);
inline bool operator!=(const CacheEntry& a, const CacheEntry& b) { return !(a == b); }

/// Bytes of the header (magic, version, size): what read_entry_size() needs.
inline constexpr std::size_t kEntryHeaderSize = 8 + 4 + 8;

/// The whole entry's size as its header says, after checking the magic and the version, so
/// that a reader can compare it with the file's size before reading or allocating anything.
/// Throws DamagedEntry ("truncated", "bad magic", "wrong format version") like parse().
std::uint64_t read_entry_size(std::string_view header, std::string_view origin = "<memory>");

/// The entry's file bytes, as in the grammar above.
std::string serialize(const CacheEntry& entry);

/// Reads an entry back; throws DamagedEntry if `bytes` are not exactly one valid entry.
/// `origin` (a file path, say) is only used in the error message.
CacheEntry parse(std::string_view bytes, std::string_view origin = "<memory>");

}  // namespace jitvec::cache
