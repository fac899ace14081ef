// src/core/regular_file.hpp: reading a file whose path the user gave, without ever blocking.
//
// A path from the user (a definition file on the command line or given to
// Engine::load_definitions) may name a FIFO with no writer (open() would wait for one forever),
// a terminal or another device (reading may block, never end or have side effects), a socket
// or a directory. read_regular_file() reads only regular files: it looks at what the path names
// before opening it (so a device is never opened), opens it with O_NONBLOCK, and checks the
// opened file again (so a path swapped for a FIFO in between cannot block either). Anything
// else comes back as a problem that says what the path names, for the caller's message.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace jitvec::detail {

struct RegularFileRead {
  /// The file's first bytes: at most `limit` + 1 of them, so a caller can tell "over the limit".
  std::string contents;
  /// Empty when the file was read; else why not: "it is a FIFO (named pipe), not a regular
  /// file", "No such file or directory", ...
  std::string problem;
};

/// Reads at most `limit` + 1 bytes of the regular file at `path`. Never throws for what the
/// path names or for a read error: those are `problem`.
RegularFileRead read_regular_file(const std::filesystem::path& path, std::size_t limit);

}  // namespace jitvec::detail
