#include "cli/app.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

#include "cli/command.hpp"
#include "jitvec/version.hpp"

namespace jitvec::cli {
namespace {

void print_error(const char* what) { fmt::print(stderr, "jitvec: error: {}\n", what); }

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app("jitvec: precompiles vectorized functions into jitvec's kernel cache, measures "
               "their accuracy, and inspects that cache and this machine.",
               "jitvec");
  // Set before the subcommands are added: they copy it.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return fmt::format("jitvec: error: {}\nRun with --help for more information.\n", e.what());
  });
  app.set_version_flag("--version", std::string("jitvec ") + kVersion);
  app.require_subcommand(1);

  CommandAction chosen;
  add_compile_command(app, chosen);
  add_cache_command(app, chosen);
  add_check_command(app, chosen);
  add_info_command(app, chosen);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end here too, with status 0.
    return app.exit(e) == 0 ? kExitSuccess : kExitUsage;
  }
  try {
    return chosen();
  } catch (const UsageError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitFailure;
  }
}

}  // namespace jitvec::cli
