#include "cache/cache_key.hpp"

#define XXH_INLINE_ALL
#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <iterator>

namespace jitvec::cache {
namespace {

constexpr std::string_view kKeyPreamble{"jitvec-cache-key\0", 17};
// Values longer than this (or with a line break) are described by position, not quoted.
constexpr std::size_t kQuotableValueLength = 64;

template <class Unsigned>
void update_little_endian(XXH3_state_t* state, Unsigned value) {
  std::array<unsigned char, sizeof(Unsigned)> bytes{};
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<unsigned char>(value >> (8 * i));
  }
  XXH3_128bits_update(state, bytes.data(), bytes.size());
}

void update_delimited(XXH3_state_t* state, std::string_view text) {
  update_little_endian<std::uint64_t>(state, text.size());
  XXH3_128bits_update(state, text.data(), text.size());
}

bool quotable(std::string_view value) {
  return value.size() <= kQuotableValueLength && value.find('\n') == std::string_view::npos;
}

std::string describe_value_difference(const std::string& tag, const std::string& a,
                                      const std::string& b) {
  if (quotable(a) && quotable(b)) return fmt::format("{} differs: {} vs {}", tag, a, b);
  const auto first = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return fmt::format("{} differs at byte {} (lengths {} vs {})", tag, first.first - a.begin(),
                     a.size(), b.size());
}

}  // namespace

void CacheKey::add(std::string_view tag, std::string_view value) {
  fields_.emplace_back(std::string(tag), std::string(value));
}

std::string CacheKey::hex() const {
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_128bits_reset(&state);
  XXH3_128bits_update(&state, kKeyPreamble.data(), kKeyPreamble.size());
  update_little_endian<std::uint32_t>(&state, kCacheFormatVersion);
  for (const auto& [tag, value] : fields_) {
    update_delimited(&state, tag);
    update_delimited(&state, value);
  }
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(&state));
  constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(2 * sizeof(canonical.digest), '0');
  for (std::size_t i = 0; i < sizeof(canonical.digest); ++i) {
    hex[2 * i] = kDigits[canonical.digest[i] >> 4];
    hex[2 * i + 1] = kDigits[canonical.digest[i] & 0xF];
  }
  return hex;
}

std::string describe_difference(const KeyFields& a, const KeyFields& b) {
  const std::size_t common = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (a[i].first != b[i].first) {
      return fmt::format("field {} differs: {} vs {}", i + 1, a[i].first, b[i].first);
    }
    if (a[i].second != b[i].second)
      return describe_value_difference(a[i].first, a[i].second, b[i].second);
  }
  if (a.size() > common) return fmt::format("{} is only in the first key", a[common].first);
  if (b.size() > common) return fmt::format("{} is only in the second key", b[common].first);
  return {};
}

}  // namespace jitvec::cache
