// src/cache/cache_settings.hpp: where the disk cache lives and how big it may grow.
//
// The public jitvec::CacheOptions leaves any field unset; resolve_cache_settings() fills each
// unset one from its environment variable, then from the default:
//
//     dir             JITVEC_CACHE_DIR, else $XDG_CACHE_HOME/jitvec, else $HOME/.cache/jitvec
//     read_only_dirs  JITVEC_CACHE_PATH, colon-separated; empty parts are skipped
//     disabled        JITVEC_CACHE_DISABLE: 1/true/yes/on or 0/false/no/off
//     max_size        JITVEC_CACHE_MAX_SIZE: bytes, or a number with a K, M or G suffix
//                     (powers of 1024); default 1 GiB
//
// An empty environment variable counts as unset. A value that does not parse throws
// CacheError naming the variable and the value.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "jitvec/engine.hpp"

namespace jitvec::cache {

inline constexpr std::uint64_t kDefaultMaxCacheSize = std::uint64_t{1} << 30;

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
};

CacheSettings resolve_cache_settings(const jitvec::CacheOptions& options);

/// Parses a size as JITVEC_CACHE_MAX_SIZE takes it: "1048576", "512K", "64M", "2G" (the
/// suffix in either case). Throws CacheError naming `what` (the variable or option).
std::uint64_t parse_cache_size(std::string_view text, std::string_view what);

}  // namespace jitvec::cache
