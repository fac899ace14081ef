// tests/tools/run_program_and_hang.cpp: a process that runs a long shell command through
// jitvec::cpu::run_program and waits for it, for the test that kills this process and checks
// that the command (and what it started) dies with it.
//
//     run_program_and_hang PIDFILE
//
// The shell writes its own pid and the pid of a background `sleep 60` it starts into PIDFILE
// (whole: written under another name, then renamed), then waits for the sleep.
#include <cstdio>
#include <string>

#include "cpu/subprocess.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: run_program_and_hang PIDFILE\n");
    return 2;
  }
  const std::string file = argv[1];
  const std::string script = "echo $$ > '" + file + ".part'; sleep 60 & echo $! >> '" + file +
                             ".part'; mv '" + file + ".part' '" + file + "'; wait";
  const auto result = jitvec::cpu::run_program({"/bin/sh", "-c", script});
  std::printf("the command ended with status %d\n", result.exit_status);
  return 0;
}
