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

bool parse_flag(std::string_view text, std::string_view what) {
  std::string lower;
  for (char c : text)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "1" || lower == "true" || lower == "yes" || lower == "on") return true;
  if (lower == "0" || lower == "false" || lower == "no" || lower == "off") return false;
  throw CacheError(fmt::format(
      "{}='{}' is not a switch: expected 1, true, yes, on, 0, false, no or off", what, text));
}

}  // namespace

std::uint64_t parse_cache_size(std::string_view text, std::string_view what) {
  const auto bad = [&] {
    return CacheError(fmt::format(
        "{}='{}' is not a size: expected a number of bytes, optionally with a K, M or G suffix",
        what, text));
  };
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) throw bad();
  unsigned shift = 0;
  if (digits + 1 == text.size()) {
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      default:
        throw bad();
    }
  } else if (digits != text.size()) {
    throw bad();
  }
  std::uint64_t number = 0;
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  for (char c : text.substr(0, digits)) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (number > (kMax - digit) / 10) throw bad();
    number = number * 10 + digit;
  }
  if (number > (kMax >> shift)) throw bad();
  return number << shift;
}

CacheSettings resolve_cache_settings(const jitvec::CacheOptions& options) {
  CacheSettings settings;
  settings.dir = options.dir ? *options.dir : default_cache_dir();
  if (options.read_only_dirs) {
    settings.read_only_dirs = *options.read_only_dirs;
  } else if (auto path = environment("JITVEC_CACHE_PATH")) {
    settings.read_only_dirs = split_search_path(*path);
  }
  if (options.disabled) {
    settings.disabled = *options.disabled;
  } else if (auto flag = environment("JITVEC_CACHE_DISABLE")) {
    settings.disabled = parse_flag(*flag, "JITVEC_CACHE_DISABLE");
  }
  if (options.max_size) {
    settings.max_size = *options.max_size;
  } else if (auto size = environment("JITVEC_CACHE_MAX_SIZE")) {
    settings.max_size = parse_cache_size(*size, "JITVEC_CACHE_MAX_SIZE");
  }
  return settings;
}

}  // namespace jitvec::cache
