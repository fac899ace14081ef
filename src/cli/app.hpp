// src/cli/app.hpp: the `jitvec` command line: its subcommands assembled into one program.
//
// run_cli() parses the arguments with CLI11, runs the chosen subcommand (compile, cache ...,
// info) and turns what went wrong into the process's exit status:
//     0  success;
//     1  the work failed (a loop did not compile, a damaged cache entry, a failing machine);
//     2  a usage error (bad arguments, an unknown target or architecture, a missing or
//        malformed definition file).
// Every error is printed to stderr as "jitvec: error: <complete diagnostic>". It is a library
// function (in jitvec_cli) so that tests link the same code the executable runs.
#pragma once

namespace jitvec::cli {

/// Runs the `jitvec` command with main()'s arguments; returns the exit status.
int run_cli(int argc, char** argv);

}  // namespace jitvec::cli
