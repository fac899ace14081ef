// src/cache/cache_settings.hpp: where the disk cache lives and how big it may grow.
//
// The cache layer has its own request type, CacheOverrides, which leaves any field unset (the
// engine converts the public jitvec::CacheOptions into it, so this layer uses nothing above
// it). resolve_cache_settings() fills each unset field from its environment variable, then
// from the default:
//
//     dir             JITVEC_CACHE_DIR, else $XDG_CACHE_HOME/jitvec, else $HOME/.cache/jitvec
//     read_only_dirs  JITVEC_CACHE_PATH, colon-separated; empty parts are skipped
//     disabled        JITVEC_CACHE_DISABLE: 1/true/yes/on or 0/false/no/off
//     max_size        JITVEC_CACHE_MAX_SIZE: a size as parse_cache_size() reads it; 1 GiB
//
// An empty environment variable counts as unset. A value that does not parse never fails the
// program: it is warned about once (naming the variable, the value and what applies instead)
// and the default applies.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace jitvec::cache {

inline constexpr std::uint64_t kDefaultMaxCacheSize = std::uint64_t{1} << 30;

/// What a caller asks for; each field left unset comes from the environment, then the default.
struct CacheOverrides {
  std::optional<std::filesystem::path> dir;
  std::optional<std::vector<std::filesystem::path>> read_only_dirs;
  std::optional<bool> disabled;
  std::optional<std::uint64_t> max_size;
};

struct CacheSettings {
  /// The writable cache folder. Empty when no home folder could be found: then nothing is
  /// stored on disk.
  std::filesystem::path dir;
  /// Folders searched after `dir` for entries, never written to.
  std::vector<std::filesystem::path> read_only_dirs;
  /// Keep compiled code in memory only: neither `dir` nor `read_only_dirs` is used.
  bool disabled = false;
  /// The most bytes of entries `dir` may hold; the least recently used entries are evicted
  /// beyond it. 0 keeps nothing.
  std::uint64_t max_size = kDefaultMaxCacheSize;
  /// Create `dir` if it is missing. Off for the commands that only look (`jitvec cache list`):
  /// then a missing `dir` is simply empty.
  bool create_dir = true;
};

CacheSettings resolve_cache_settings(const CacheOverrides& overrides = {});

/// Parses a size as JITVEC_CACHE_MAX_SIZE takes it: a whole number of bytes with an optional
/// unit, case-insensitive, optionally after a space:
///     B; K, KiB (1024); M, MiB (1024^2); G, GiB; T, TiB     -- binary, as jitvec always had;
///     KB (1000); MB (1000^2); GB; TB                        -- decimal, as SI and IEC say.
/// So "500MB" is 500,000,000 bytes and "500M" or "500MiB" is 524,288,000. Throws CacheError
/// naming `what` (the variable or option) for anything else, or a size beyond 2^64-1.
std::uint64_t parse_cache_size(std::string_view text, std::string_view what);

}  // namespace jitvec::cache
