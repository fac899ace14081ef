// src/cpu/subprocess.hpp: runs a program, without a shell, and collects what it prints.
//
// The host compiler is started with an argument vector, never through a shell, so paths and
// flags with spaces or quotes need no quoting. The child's stdout and stderr go to one pipe (in
// the order it wrote them) and its stdin is /dev/null. The call blocks until the child exits.
//
// No process outlives its caller. The program runs under a small watchdog: a fork of this
// process that runs no library code, leads a process group of its own, and gets a
// parent-death signal (PR_SET_PDEATHSIG) on which it kills its whole group, so the program
// and everything it started (cc1plus, as, ld ...) end when the process that ran them is killed.
// With a time limit, the whole group is killed when it runs out, and the result says so.
// (The parent-death signal follows the thread that started the child; run_program() waits on
// that thread, so it is alive for as long as the child is.)
#pragma once

#include <chrono>
#include <optional>
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
  /// The time limit ran out and the program (its process group) was killed.
  bool timed_out = false;

  bool succeeded() const { return exit_status == 0 && !timed_out; }
};

/// Runs argv[0] (a path; PATH is not searched) with the arguments argv[1..] and the current
/// environment, changed by `environment` ("NAME=value" each: the variable NAME of the current
/// environment, if any, is replaced by that value), and waits for it, at most `time_limit`
/// (none: no limit). Throws jitvec::TargetError when the program cannot be started (no such
/// file, not executable), naming it and the reason.
ProcessResult run_program(const std::vector<std::string>& argv,
                          std::optional<std::chrono::duration<double>> time_limit = std::nullopt,
                          const std::vector<std::string>& environment = {});

/// The command line for messages: the arguments separated by spaces, each one that holds a
/// space, a quote or a shell character in single quotes.
std::string format_command(const std::vector<std::string>& argv);

}  // namespace jitvec::cpu
