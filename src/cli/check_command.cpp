// src/cli/check_command.cpp: `jitvec check FILE...`, which measures the accuracy of every float
// loop of the ufuncs in definition files against the same source in a wider type
// (Ufunc::accuracy, jitvec/accuracy.hpp) and prints the reports (accuracy_format.hpp), or
// writes them as JSON, and with --svg a plot of each (error_plot_svg.hpp).
//
// --range NAME=LO:HI replaces the declared range of input NAME in every checked ufunc that has
// an input of that name (one that none has is a usage error). A ufunc that cannot be measured
// (its source is not generic over its float type) is reported on stderr and the command goes on
// with the others, then exits with status 1. Fused ufuncs have no source of their own and are
// left out unless named with --ufunc.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/accuracy_format.hpp"
#include "cli/command.hpp"
#include "cli/error_plot_svg.hpp"
#include "engine/engine_impl.hpp"
#include "jitvec/accuracy.hpp"

namespace jitvec::cli {
namespace {

struct CheckArguments {
  std::vector<std::string> files;
  std::vector<std::string> ufuncs;
  std::string target = "cpu";
  bool json = false;
  std::string svg_dir;
  std::size_t points = AccuracyOptions{}.points;
  std::vector<std::string> ranges;
};

double parse_bound(const std::string& text, const std::string& option) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE) {
    throw UsageError(fmt::format("--range {}: '{}' is not a number", option, text));
  }
  return value;
}

/// "x=-10:10" -> {x, -10, 10}.
InputRange parse_range(const std::string& text) {
  const std::size_t equals = text.find('=');
  const std::size_t colon = text.find(':', equals == std::string::npos ? 0 : equals);
  if (equals == std::string::npos || equals == 0 || colon == std::string::npos) {
    throw UsageError(fmt::format("--range '{}': write NAME=LOW:HIGH, as --range x=-10:10", text));
  }
  return InputRange{text.substr(0, equals), parse_bound(text.substr(equals + 1, colon - equals - 1), text),
                    parse_bound(text.substr(colon + 1), text)};
}

/// The ufuncs to check, in file order: those named, else every one the files define but fusions.
std::vector<Ufunc> chosen_ufuncs(Engine& engine, const std::vector<Ufunc>& defined,
                                 const std::vector<std::string>& names) {
  std::vector<Ufunc> chosen;
  if (names.empty()) {
    for (const Ufunc& u : defined) {
      if (!engine.impl().find_ufunc(u.name())->fusion) chosen.push_back(u);
    }
    return chosen;
  }
  for (const std::string& name : names) {
    try {
      chosen.push_back(engine.ufunc(name));
    } catch (const DefinitionError& e) {
      throw UsageError(fmt::format("--ufunc: {}", e.what()));
    }
  }
  return chosen;
}

/// The ranges of `given` that name inputs of `ufunc`.
std::vector<InputRange> ranges_for(const Ufunc& ufunc, const std::vector<InputRange>& given) {
  const std::vector<std::string> names = ufunc.input_names();
  std::vector<InputRange> ranges;
  for (const InputRange& range : given) {
    if (std::find(names.begin(), names.end(), range.input) != names.end()) ranges.push_back(range);
  }
  return ranges;
}

int run_check(const CheckArguments& args) {
  std::vector<InputRange> given;
  for (const std::string& text : args.ranges) given.push_back(parse_range(text));
  Engine engine;
  std::vector<Ufunc> defined;
  try {
    for (const std::string& file : args.files) {
      for (Ufunc& u : engine.load_definitions(file)) defined.push_back(std::move(u));
    }
  } catch (const DefinitionError& e) {
    throw UsageError(e.what());
  }
  const std::vector<Ufunc> ufuncs = chosen_ufuncs(engine, defined, args.ufuncs);
  for (const InputRange& range : given) {
    bool used = false;
    for (const Ufunc& u : ufuncs) used |= !ranges_for(u, {range}).empty();
    if (!used) throw UsageError(fmt::format("--range {}: no checked ufunc has an input named '{}'", range.input, range.input));
  }
  if (!args.svg_dir.empty()) std::filesystem::create_directories(args.svg_dir);

  std::vector<CheckedUfunc> checked;
  bool failed = false;
  for (const Ufunc& u : ufuncs) {
    AccuracyOptions options;
    options.target = *parse_target(args.target);
    options.points = args.points;
    options.ranges = ranges_for(u, given);
    CheckedUfunc one{u.name(), {}, {}};
    try {
      one.reports = u.accuracy(options);
    } catch (const TargetError&) {
      throw;  // the same for every ufunc
    } catch (const Error& e) {
      one.error = e.what();
      failed = true;
      fmt::print(stderr, "jitvec: error: {}\n", e.what());
    }
    for (const AccuracyReport& report : one.reports) {
      std::string text = report_text(report);
      if (!args.svg_dir.empty() && report.unavailable.empty()) {
        const std::filesystem::path file = std::filesystem::path(args.svg_dir) / error_plot_file_name(report);
        write_text_file(file, error_plot_svg(report));
        text += fmt::format("  plot: {}\n", file.string());
      }
      if (!args.json) fmt::print("{}", text);
    }
    checked.push_back(std::move(one));
  }
  if (args.json) std::cout << reports_json(checked);
  return failed ? kExitFailure : kExitSuccess;
}

}  // namespace

void add_check_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<CheckArguments>();
  CLI::App* command = app.add_subcommand(
      "check",
      "Measures the accuracy of each float loop of the ufuncs in definition files against the same "
      "source in a wider type on the cpu target (float16 against float32, float32 against float64): "
      "the largest error in ulps and relative terms, where it is, and NaN/inf the wider type does "
      "not give.");
  command->add_option("files", args->files, "TOML definition files")->required();
  command->add_option("--ufunc", args->ufuncs, "check only this ufunc (repeatable)");
  command->add_option("--target", args->target, "where the measured loops run: cpu (default), parallel, cuda")
      ->check(CLI::IsMember({"cuda", "cpu", "parallel"}));
  command->add_flag("--json", args->json, "write the reports as JSON to stdout");
  command->add_option("--svg", args->svg_dir, "write a plot of each loop's error over its inputs' ranges into this folder");
  command->add_option("--points", args->points, "points swept over the inputs' ranges (default 65536)")
      ->check(CLI::Range(std::size_t{16}, std::size_t{1} << 26));
  command->add_option("--range", args->ranges,
                      "the range of an input, by its name in the source: NAME=LOW:HIGH (repeatable), "
                      "replacing the definition file's [ufuncs.NAME.ranges]");
  command->callback([&chosen, args] { chosen = [args] { return run_check(*args); }; });
}

}  // namespace jitvec::cli
