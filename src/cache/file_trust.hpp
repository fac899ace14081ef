// src/cache/file_trust.hpp: whether a cache folder or entry file may be trusted.
//
// Cache entries hold code that jitvec will load and run, so an entry is used only if nobody
// but the current user (or root, who could change anything anyway) can have written it:
//
//   - a folder (the cache folder, a read-only folder, a fan-out subfolder) must be a folder
//     that group and others cannot write to, unless it is sticky like /tmp, where others
//     cannot replace or rename files they do not own;
//   - an entry file must be a regular file owned by the current user or root, and not
//     writable by group or others.
//
// The checks take stat results, so callers can check what they opened (fstat) rather than a
// path that may have changed since.
#pragma once

#include <sys/stat.h>

#include <optional>
#include <string>

namespace jitvec::cache {

/// Why entries in the folder described by `info` must not be used, or nullopt if they may.
std::optional<std::string> folder_distrust(const struct stat& info);

/// Why the entry file described by `info` must not be used, or nullopt if it may.
std::optional<std::string> entry_file_distrust(const struct stat& info);

}  // namespace jitvec::cache
