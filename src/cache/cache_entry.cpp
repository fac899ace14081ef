#include "cache/cache_entry.hpp"

#define XXH_INLINE_ALL
#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>

namespace jitvec::cache {
namespace {

constexpr std::string_view kMagic{"JVCACHE\n", 8};
constexpr std::size_t kChecksumSize = sizeof(XXH128_canonical_t);
constexpr std::size_t kHeaderSize = kMagic.size() + sizeof(std::uint32_t) + sizeof(std::uint64_t);
static_assert(kHeaderSize == kEntryHeaderSize);
// The smallest length-prefixed string, and so the least room a field or payload can take.
constexpr std::size_t kMinStringSize = sizeof(std::uint64_t);

template <class Integer>
void append_little_endian(std::string& out, Integer value) {
  const auto bits = static_cast<std::make_unsigned_t<Integer>>(value);
  for (std::size_t i = 0; i < sizeof(Integer); ++i) {
    out.push_back(static_cast<char>(static_cast<unsigned char>(bits >> (8 * i))));
  }
}

void append_string(std::string& out, std::string_view text) {
  append_little_endian<std::uint64_t>(out, text.size());
  out.append(text);
}

template <class Integer>
Integer decode_little_endian(std::string_view bytes) {
  std::make_unsigned_t<Integer> bits = 0;
  for (std::size_t i = 0; i < sizeof(Integer); ++i) {
    bits |= static_cast<std::make_unsigned_t<Integer>>(static_cast<unsigned char>(bytes[i]))
            << (8 * i);
  }
  return static_cast<Integer>(bits);
}

XXH128_canonical_t checksum_of(std::string_view bytes) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(bytes.data(), bytes.size()));
  return canonical;
}

/// Reads the body (between the header and the checksum), which the checksum has vouched for;
/// a failure here means the writer was wrong, or the file was forged with a valid checksum.
class BodyReader {
 public:
  BodyReader(std::string_view body, std::string_view origin) : rest_(body), origin_(origin) {}

  template <class Integer>
  Integer integer(const char* what) {
    need(sizeof(Integer), what);
    const auto value = decode_little_endian<Integer>(rest_);
    rest_.remove_prefix(sizeof(Integer));
    return value;
  }

  std::string string(const char* what) {
    const auto length = integer<std::uint64_t>(what);
    need(length, what);
    std::string text(rest_.substr(0, length));
    rest_.remove_prefix(length);
    return text;
  }

  /// A count of items that each take at least `min_item_size` bytes, checked against the bytes
  /// left so that a bad count cannot make the reader reserve absurd amounts of memory.
  std::uint32_t count(const char* what, std::size_t min_item_size) {
    const auto n = integer<std::uint32_t>(what);
    if (n > rest_.size() / min_item_size) {
      throw DamagedEntry(
          fmt::format("malformed: {} {} does not fit in {} bytes", what, n, rest_.size()), origin_);
    }
    return n;
  }

  void expect_end() const {
    if (!rest_.empty()) {
      throw DamagedEntry(
          fmt::format("malformed: {} unread bytes after the created time", rest_.size()), origin_);
    }
  }

 private:
  void need(std::uint64_t size, const char* what) const {
    if (size > rest_.size()) {
      throw DamagedEntry(
          fmt::format("malformed: {} needs {} bytes, {} are left", what, size, rest_.size()),
          origin_);
    }
  }

  std::string_view rest_;
  std::string_view origin_;
};

}  // namespace

const std::string* CacheEntry::payload(std::string_view kind) const {
  const auto found = std::find_if(payloads.begin(), payloads.end(),
                                  [&](const Payload& p) { return p.kind == kind; });
  return found == payloads.end() ? nullptr : &found->bytes;
}

void CacheEntry::add_payload(std::string_view kind, std::string bytes) {
  payloads.push_back(Payload{std::string(kind), std::move(bytes)});
}

bool operator==(const Payload& a, const Payload& b) {
  return a.kind == b.kind && a.bytes == b.bytes;
}

bool operator==(const CacheEntry& a, const CacheEntry& b) {
  return a.key_fields == b.key_fields && a.payloads == b.payloads && a.created == b.created;
}

std::string serialize(const CacheEntry& entry) {
  std::string out;
  out.append(kMagic);
  append_little_endian<std::uint32_t>(out, kCacheFormatVersion);
  const std::size_t size_offset = out.size();
  append_little_endian<std::uint64_t>(out, 0);  // the size, filled in below
  append_little_endian<std::uint32_t>(out, static_cast<std::uint32_t>(entry.key_fields.size()));
  for (const auto& [tag, value] : entry.key_fields) {
    append_string(out, tag);
    append_string(out, value);
  }
  append_little_endian<std::uint32_t>(out, static_cast<std::uint32_t>(entry.payloads.size()));
  for (const auto& payload : entry.payloads) {
    append_string(out, payload.kind);
    append_string(out, payload.bytes);
  }
  append_little_endian<std::int64_t>(out, entry.created);

  std::string size;
  append_little_endian<std::uint64_t>(size, out.size() + kChecksumSize);
  out.replace(size_offset, size.size(), size);
  const auto checksum = checksum_of(out);
  out.append(reinterpret_cast<const char*>(checksum.digest), kChecksumSize);
  return out;
}

std::uint64_t read_entry_size(std::string_view bytes, std::string_view origin) {
  if (bytes.size() < kMagic.size()) {
    throw DamagedEntry(fmt::format("truncated ({} bytes, shorter than the magic)", bytes.size()),
                       origin);
  }
  if (bytes.substr(0, kMagic.size()) != kMagic) throw DamagedEntry("bad magic", origin);
  if (bytes.size() < kHeaderSize) {
    throw DamagedEntry(
        fmt::format("truncated ({} bytes, shorter than an empty entry)", bytes.size()), origin);
  }
  const auto version = decode_little_endian<std::uint32_t>(bytes.substr(kMagic.size()));
  if (version != kCacheFormatVersion) {
    throw DamagedEntry(fmt::format("wrong format version {} (this jitvec reads version {})",
                                   version, kCacheFormatVersion),
                       origin);
  }
  return decode_little_endian<std::uint64_t>(bytes.substr(kMagic.size() + sizeof(std::uint32_t)));
}

CacheEntry parse(std::string_view bytes, std::string_view origin) {
  const std::uint64_t size = read_entry_size(bytes, origin);
  if (bytes.size() < kHeaderSize + kChecksumSize) {
    throw DamagedEntry(
        fmt::format("truncated ({} bytes, shorter than an empty entry)", bytes.size()), origin);
  }
  if (size > bytes.size()) {
    throw DamagedEntry(fmt::format("truncated ({} of {} bytes)", bytes.size(), size), origin);
  }
  if (size < bytes.size()) {
    throw DamagedEntry(
        fmt::format("trailing bytes ({} bytes where the entry says {})", bytes.size(), size),
        origin);
  }
  const std::string_view checked = bytes.substr(0, bytes.size() - kChecksumSize);
  const auto expected = checksum_of(checked);
  if (std::memcmp(expected.digest, bytes.data() + checked.size(), kChecksumSize) != 0) {
    throw DamagedEntry("checksum mismatch", origin);
  }

  BodyReader reader(checked.substr(kHeaderSize), origin);
  CacheEntry entry;
  const auto field_count = reader.count("field count", 2 * kMinStringSize);
  entry.key_fields.reserve(field_count);
  for (std::uint32_t i = 0; i < field_count; ++i) {
    std::string tag = reader.string("field tag");
    entry.key_fields.emplace_back(std::move(tag), reader.string("field value"));
  }
  const auto payload_count = reader.count("payload count", 2 * kMinStringSize);
  entry.payloads.reserve(payload_count);
  for (std::uint32_t i = 0; i < payload_count; ++i) {
    std::string kind = reader.string("payload kind");
    entry.payloads.push_back(Payload{std::move(kind), reader.string("payload bytes")});
  }
  entry.created = reader.integer<std::int64_t>("created time");
  reader.expect_end();
  return entry;
}

}  // namespace jitvec::cache
