// tests/unit/test_cache_entry.cpp: entry files round-trip, follow the documented layout, and
// every kind of damage (truncation, any flipped bit, bad magic, another version, a forged
// body) is detected and named.
#include <cstring>
#include <string>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cache/cache_entry.hpp"
#include "catch.hpp"

namespace {

using jitvec::cache::CacheEntry;
using jitvec::cache::DamagedEntry;
using jitvec::cache::parse;
using jitvec::cache::serialize;

constexpr std::size_t kChecksumSize = 16;
constexpr std::size_t kVersionOffset = 8;
constexpr std::size_t kSizeOffset = 12;
constexpr std::size_t kBodyOffset = 20;

CacheEntry sample_entry() {
  CacheEntry entry;
  entry.key_fields = {
      {"target", "cuda"}, {"arch", "sm_90"}, {"ufunc", "gaussian_pdf"}, {"empty", ""}};
  std::string binary;
  for (int byte = 0; byte < 256; ++byte) binary.push_back(static_cast<char>(byte));
  entry.add_payload("cubin", binary);
  entry.add_payload("ptx", ".version 8.0\n.target sm_90\n");
  entry.add_payload("log", "");
  entry.created = 1733000000;
  return entry;
}

std::string reason_of(std::string_view bytes) {
  try {
    parse(bytes, "test bytes");
  } catch (const DamagedEntry& error) {
    return error.reason();
  }
  return "(parsed)";
}

bool starts_with(const std::string& text, std::string_view prefix) {
  return text.rfind(prefix, 0) == 0;
}

void put_u32(std::string& bytes, std::size_t offset, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[offset + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

/// Replaces the trailing checksum by the right one for the bytes before it, as a writer would.
void reseal(std::string& bytes) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(bytes.data(), bytes.size() - kChecksumSize));
  bytes.replace(bytes.size() - kChecksumSize, kChecksumSize,
                reinterpret_cast<const char*>(canonical.digest), kChecksumSize);
}

}  // namespace

TEST_CASE("an entry survives serialize and parse unchanged", "[cache]") {
  const CacheEntry entry = sample_entry();
  const CacheEntry back = parse(serialize(entry));
  CHECK(back == entry);
  REQUIRE(back.payload("cubin") != nullptr);
  CHECK(back.payload("cubin")->size() == 256);
  CHECK(*back.payload("ptx") == ".version 8.0\n.target sm_90\n");
  CHECK(back.payload("log")->empty());
  CHECK(back.payload("so") == nullptr);

  const CacheEntry empty;
  CHECK(parse(serialize(empty)) == empty);
}

TEST_CASE("an entry's bytes follow the documented layout", "[cache]") {
  const std::string bytes = serialize(sample_entry());
  CHECK(bytes.substr(0, 8) == std::string("JVCACHE\n"));
  std::uint32_t version = 0;
  std::memcpy(&version, bytes.data() + kVersionOffset,
              sizeof(version));  // the test host is little-endian
  CHECK(version == jitvec::cache::kCacheFormatVersion);
  std::uint64_t size = 0;
  std::memcpy(&size, bytes.data() + kSizeOffset, sizeof(size));
  CHECK(size == bytes.size());
  std::uint32_t field_count = 0;
  std::memcpy(&field_count, bytes.data() + kBodyOffset, sizeof(field_count));
  CHECK(field_count == 4);
  std::string resealed = bytes;
  reseal(resealed);
  CHECK(resealed == bytes);
}

TEST_CASE("a truncated entry is reported as truncated, at every length", "[cache]") {
  const std::string bytes = serialize(sample_entry());
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    INFO("length " << length << " of " << bytes.size());
    CHECK(starts_with(reason_of(std::string_view(bytes).substr(0, length)), "truncated"));
  }
  CHECK(starts_with(reason_of(bytes + "x"), "trailing bytes"));
}

TEST_CASE("any flipped bit is detected", "[cache]") {
  const std::string bytes = serialize(sample_entry());
  for (std::size_t offset = 0; offset < bytes.size(); ++offset) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = bytes;
      damaged[offset] = static_cast<char>(damaged[offset] ^ (1 << bit));
      const std::string reason = reason_of(damaged);
      INFO("byte " << offset << " bit " << bit << ": " << reason);
      if (offset < kVersionOffset) {
        CHECK(reason == "bad magic");
      } else if (offset < kSizeOffset) {
        CHECK(starts_with(reason, "wrong format version"));
      } else if (offset < kBodyOffset) {
        CHECK((starts_with(reason, "truncated") || starts_with(reason, "trailing bytes")));
      } else {
        CHECK(reason == "checksum mismatch");
      }
    }
  }
}

TEST_CASE("an entry of another format version is refused even with a valid checksum", "[cache]") {
  std::string bytes = serialize(sample_entry());
  put_u32(bytes, kVersionOffset, jitvec::cache::kCacheFormatVersion + 1);
  reseal(bytes);
  CHECK(starts_with(reason_of(bytes), "wrong format version " +
                                          std::to_string(jitvec::cache::kCacheFormatVersion + 1)));
}

TEST_CASE("a forged body with a valid checksum is reported as malformed", "[cache]") {
  std::string bytes = serialize(sample_entry());
  put_u32(bytes, kBodyOffset, 1000000);  // far more fields than the bytes could hold
  reseal(bytes);
  CHECK(starts_with(reason_of(bytes), "malformed"));

  bytes = serialize(sample_entry());
  put_u32(bytes, kBodyOffset, 3);  // one field fewer: the rest no longer lines up
  reseal(bytes);
  CHECK(starts_with(reason_of(bytes), "malformed"));
}

TEST_CASE("DamagedEntry's message names where the bytes came from", "[cache]") {
  try {
    parse("not an entry at all", "/cache/ab/cd.jvk");
    FAIL("parse accepted garbage");
  } catch (const DamagedEntry& error) {
    CHECK(std::string(error.what()) == "damaged cache entry /cache/ab/cd.jvk: bad magic");
    CHECK(error.reason() == "bad magic");
  }
}
