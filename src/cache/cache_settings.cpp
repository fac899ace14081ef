#include "cache/cache_settings.hpp"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "cache/cache_errors.hpp"
#include "core/log.hpp"

namespace jitvec::cache {
namespace {

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::filesystem::path home_folder() {
  if (auto home = environment("HOME")) return *home;
  if (const passwd* user = getpwuid(getuid()); user != nullptr && user->pw_dir != nullptr) {
    return user->pw_dir;
  }
  return {};
}

std::filesystem::path default_cache_dir() {
  if (auto dir = environment("JITVEC_CACHE_DIR")) return *dir;
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and to be ignored.
  if (auto xdg = environment("XDG_CACHE_HOME"); xdg && std::filesystem::path(*xdg).is_absolute()) {
    return std::filesystem::path(*xdg) / "jitvec";
  }
  const auto home = home_folder();
  if (home.empty()) return {};
  return home / ".cache" / "jitvec";
}

std::vector<std::filesystem::path> split_search_path(std::string_view text) {
  std::vector<std::filesystem::path> dirs;
  while (!text.empty()) {
    const auto colon = text.find(':');
    const auto part = text.substr(0, colon);
    if (!part.empty()) dirs.emplace_back(part);
    if (colon == std::string_view::npos) break;
    text.remove_prefix(colon + 1);
  }
  return dirs;
}

std::string ascii_lower(std::string_view text) {
  std::string lower;
  for (char c : text)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower;
}

/// JITVEC_CACHE_DISABLE's value, or nullopt (after one warning) when it is no switch.
std::optional<bool> parse_flag(std::string_view text, std::string_view what) {
  const std::string lower = ascii_lower(text);
  if (lower == "1" || lower == "true" || lower == "yes" || lower == "on") return true;
  if (lower == "0" || lower == "false" || lower == "no" || lower == "off") return false;
  detail::warn_once(fmt::format("{}={}", what, text),
                    fmt::format("{}='{}' is not a switch (expected 1, true, yes, on, 0, false, no "
                                "or off); ignoring it: the kernel disk cache stays enabled",
                                what, text));
  return std::nullopt;
}

struct SizeUnit {
  std::string_view name;  // lower case
  std::uint64_t bytes;
};

constexpr std::uint64_t kKi = 1024;
constexpr std::uint64_t kKilo = 1000;
constexpr SizeUnit kSizeUnits[] = {
    {"", 1},
    {"b", 1},
    {"k", kKi},
    {"kib", kKi},
    {"kb", kKilo},
    {"m", kKi * kKi},
    {"mib", kKi * kKi},
    {"mb", kKilo * kKilo},
    {"g", kKi * kKi * kKi},
    {"gib", kKi * kKi * kKi},
    {"gb", kKilo * kKilo * kKilo},
    {"t", kKi * kKi * kKi * kKi},
    {"tib", kKi * kKi * kKi * kKi},
    {"tb", kKilo * kKilo * kKilo * kKilo},
};

}  // namespace

std::uint64_t parse_cache_size(std::string_view text, std::string_view what) {
  const auto bad = [&] {
    return CacheError(fmt::format(
        "{}='{}' is not a size: expected a whole number of bytes, optionally with a unit: "
        "K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024), KB, MB, GB, TB (powers of 1000)",
        what, text));
  };
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) throw bad();
  std::string_view unit = text.substr(digits);
  if (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  const std::string lower_unit = ascii_lower(unit);
  if (unit.size() != text.size() - digits && lower_unit.empty()) throw bad();  // "12 "
  const SizeUnit* found = nullptr;
  for (const SizeUnit& candidate : kSizeUnits) {
    if (candidate.name == lower_unit) found = &candidate;
  }
  if (found == nullptr) throw bad();
  std::uint64_t number = 0;
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  for (char c : text.substr(0, digits)) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (number > (kMax - digit) / 10) throw bad();
    number = number * 10 + digit;
  }
  if (number > kMax / found->bytes) throw bad();
  return number * found->bytes;
}

CacheSettings resolve_cache_settings(const CacheOverrides& overrides) {
  CacheSettings settings;
  settings.dir = overrides.dir ? *overrides.dir : default_cache_dir();
  if (overrides.read_only_dirs) {
    settings.read_only_dirs = *overrides.read_only_dirs;
  } else if (auto path = environment("JITVEC_CACHE_PATH")) {
    settings.read_only_dirs = split_search_path(*path);
  }
  if (overrides.disabled) {
    settings.disabled = *overrides.disabled;
  } else if (auto flag = environment("JITVEC_CACHE_DISABLE")) {
    settings.disabled = parse_flag(*flag, "JITVEC_CACHE_DISABLE").value_or(false);
  }
  if (overrides.max_size) {
    settings.max_size = *overrides.max_size;
  } else if (auto size = environment("JITVEC_CACHE_MAX_SIZE")) {
    try {
      settings.max_size = parse_cache_size(*size, "JITVEC_CACHE_MAX_SIZE");
    } catch (const CacheError& error) {
      detail::warn_once(fmt::format("JITVEC_CACHE_MAX_SIZE={}", *size),
                        fmt::format("{}; ignoring it: the kernel disk cache may hold {} bytes "
                                    "(1 GiB, the default)",
                                    error.what(), kDefaultMaxCacheSize));
    }
  }
  return settings;
}

}  // namespace jitvec::cache
