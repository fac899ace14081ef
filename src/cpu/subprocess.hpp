// src/cpu/subprocess.hpp: runs a program, without a shell, and collects what it prints.
//
// The host compiler is started with posix_spawn and an argument vector, never through a shell,
// so paths and flags with spaces or quotes need no quoting. The child's stdout and stderr go to
// one pipe (in the order it wrote them) and its stdin is /dev/null. The call blocks until the
// child exits.
#pragma once

#include <string>
#include <vector>

namespace jitvec::cpu {

struct ProcessResult {
  /// The exit status when the program exited normally, else -1.
  int exit_status = -1;
  /// The signal that ended the program, else 0.
  int signal = 0;
  /// Everything the program wrote to stdout and stderr.
  std::string output;

  bool succeeded() const { return exit_status == 0; }
};

/// Runs argv[0] (a path; PATH is not searched) with the arguments argv[1..] and the current
/// environment, and waits for it. Throws jitvec::TargetError when the program cannot be started
/// (no such file, not executable), naming it and the reason.
ProcessResult run_program(const std::vector<std::string>& argv);

/// The command line for messages: the arguments separated by spaces, each one that holds a
/// space, a quote or a shell character in single quotes.
std::string format_command(const std::vector<std::string>& argv);

}  // namespace jitvec::cpu
