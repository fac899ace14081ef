// tests/fuzz/fuzz_cache_entry.cpp: libFuzzer target for the disk cache's entry reader
// (cache::parse, the bytes of one entry file; grammar in src/cache/cache_entry.hpp).
//
// The first input byte picks how the rest is used:
//   even: as the file bytes, unchanged (exercises the magic, version, size and checksum checks);
//   odd:  as the body of an entry (what follows magic, version and size) that the harness frames
//         with the right magic, version, size and trailing XXH3-128 checksum, so that mutations
//         reach the body reader, which must trust nothing that a checksum vouches for (a file
//         forged with a valid checksum).
// Every input either parses, and then serializes back to exactly the same bytes, or is refused
// with jitvec::Error (DamagedEntry). Anything else is a finding.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "cache/cache_entry.hpp"
#include "cache/cache_key.hpp"
#include "jitvec/errors.hpp"

namespace {

constexpr std::string_view kMagic{"JVCACHE\n", 8};
constexpr std::size_t kHeaderSize = kMagic.size() + 4 + 8;  // magic, version, size
constexpr std::size_t kChecksumSize = sizeof(XXH128_canonical_t);

void put_u64(std::string& bytes, std::size_t at, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<char>(value >> (8 * i));
}

// The body (everything after magic, version and size) framed as a well-formed file.
std::string frame(std::string_view body) {
  std::string bytes(kMagic);
  for (int i = 0; i < 4; ++i) {
    bytes.push_back(static_cast<char>(jitvec::cache::kCacheFormatVersion >> (8 * i)));
  }
  bytes.append(8, '\0');
  bytes.append(body);
  put_u64(bytes, kMagic.size() + 4, bytes.size() + kChecksumSize);
  XXH128_canonical_t sum;
  XXH128_canonicalFromHash(&sum, XXH3_128bits(bytes.data(), bytes.size()));
  bytes.append(reinterpret_cast<const char*>(sum.digest), kChecksumSize);
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string bytes = (data[0] & 1) ? frame(rest) : std::string(rest);
  jitvec::cache::CacheEntry entry;
  try {
    entry = jitvec::cache::parse(bytes, "fuzz");
  } catch (const jitvec::Error&) {
    return 0;
  }
  if (bytes.size() < kHeaderSize + kChecksumSize) {
    std::fprintf(stderr, "parsed an entry of %zu bytes, shorter than any valid one\n", bytes.size());
    std::abort();
  }
  if (jitvec::cache::serialize(entry) != bytes) {
    std::fprintf(stderr, "a parsed entry of %zu bytes serializes to other bytes\n", bytes.size());
    std::abort();
  }
  return 0;
}
