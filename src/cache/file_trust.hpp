// src/cache/file_trust.hpp: whether a cache folder or entry file may be trusted.
//
// Cache entries hold code that jitvec will load and run, so an entry is used only if nobody
// but the current user (or root, who could change anything anyway) can have written it or
// swapped it for another. The rule, as OpenSSH's StrictModes and git's safe.directory apply it:
//
//   - a folder (the cache folder, a read-only folder, a fan-out subfolder) must be a folder
//     owned by the current user or root, that group and others cannot write to unless it is
//     sticky like /tmp (where others cannot rename or delete what they do not own);
//   - every folder above a cache folder, up to /, must pass the same test: whoever can write
//     to a parent can rename the cache folder away and put their own in its place. A symbolic
//     link on the way must be owned by the current user or root, and the folders it leads to
//     are checked in turn;
//   - an entry file must be a regular file owned by the current user or root, and not
//     writable by group or others.
//
// For root, "the current user or root" is root alone: root refuses another user's folder.
// The checks of one folder or file take stat results, so callers can check what they opened
// (fstat) rather than a path that may have changed since.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>

namespace jitvec::cache {

/// Why entries in the folder described by `info` must not be used, or nullopt if they may.
std::optional<std::string> folder_distrust(const struct stat& info);

/// Why the existing folder `folder` must not be used: folder_distrust() of it, else of the
/// first of its parents (up to /, symbolic links resolved) that fails; nullopt if all pass.
/// The reason names the folder at fault when it is a parent.
std::optional<std::string> folder_chain_distrust(const std::filesystem::path& folder);

/// Why the entry file described by `info` must not be used, or nullopt if it may.
std::optional<std::string> entry_file_distrust(const struct stat& info);

}  // namespace jitvec::cache
