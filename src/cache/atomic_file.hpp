// src/cache/atomic_file.hpp: replacing a file so that readers never see part of it.
//
// write_file_atomically() writes to a temporary file with a unique name in the target's
// folder, flushes it to the disk (fsync) and renames it over the target. A reader that opens
// the target, with no lock, sees the old file or the new one, whole. A temporary file that is
// not renamed (an error, an exception) is removed; one left by a killed process keeps the
// ".tmp." prefix so that cache maintenance can find and delete it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

namespace jitvec::cache {

/// What every temporary file name starts with: ".tmp.<pid>.<thread>.<random>".
inline constexpr std::string_view kTemporaryFilePrefix = ".tmp.";

/// Replaces `target` by a file holding `bytes`, created with permissions `mode` (less the
/// umask). Throws std::system_error naming the file if any step fails; `target` is then
/// unchanged.
void write_file_atomically(const std::filesystem::path& target, std::string_view bytes,
                           mode_t mode);

/// Whether `file_name` (no folder) is one of write_file_atomically's temporary files.
bool is_temporary_file_name(std::string_view file_name);

}  // namespace jitvec::cache
