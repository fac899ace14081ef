// src/cli/command.hpp: what the `jitvec` subcommands share: how each one is registered with the
// CLI11 application, how it hands back the work to run, and how it reports a usage error.
//
// Each add_*_command() adds its subcommand (options, help text) to `app` and, when the
// subcommand is chosen on the command line, sets `chosen` to the function that does its work
// and returns the exit status (see app.hpp). Nothing runs while arguments are parsed.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "jitvec/errors.hpp"

namespace jitvec::cli {

enum ExitStatus : int {
  kExitSuccess = 0,
  kExitFailure = 1,
  kExitUsage = 2,
};

/// A mistake in how the command was called (the arguments, a definition file that cannot be
/// read): exit status 2.
class UsageError : public jitvec::Error {
 public:
  using jitvec::Error::Error;
};

/// A chosen subcommand's work; returns the exit status.
using CommandAction = std::function<int()>;

/// `jitvec compile FILE...` (compile_command.cpp).
void add_compile_command(CLI::App& app, CommandAction& chosen);
/// `jitvec cache list|show|stats|verify|prune|clear` (cache_command.cpp).
void add_cache_command(CLI::App& app, CommandAction& chosen);
/// `jitvec check FILE...` (check_command.cpp).
void add_check_command(CLI::App& app, CommandAction& chosen);
/// `jitvec info` (info_command.cpp).
void add_info_command(CLI::App& app, CommandAction& chosen);

}  // namespace jitvec::cli
