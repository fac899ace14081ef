// src/cli/compile_command.cpp: `jitvec compile FILE...`, which builds every loop of the ufuncs
// in definition files into a kernel cache folder, on several threads, with or without a GPU.
//
// The work itself (which binaries, building one) is engine/precompile.hpp's; this file chooses
// the architectures, runs the jobs on worker threads (one per core unless -j says otherwise),
// prints a line per loop to stderr as it finishes (wherever stderr goes; -q silences them) and a
// summary with totals (or, with --json, the whole outcome as JSON on stdout).
// The folder filled is --cache-dir, else the writable cache folder jitvec uses by default
// (JITVEC_CACHE_DIR, ...). Read-only cache folders (JITVEC_CACHE_PATH) are not searched and
// JITVEC_CACHE_DISABLE is ignored: afterwards the folder itself holds every loop.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cache/disk_cache.hpp"
#include "cli/command.hpp"
#include "cli/compile_order.hpp"
#include "cli/text_format.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/device.hpp"
#include "definitions/definition_file.hpp"
#include "engine/engine_impl.hpp"
#include "engine/precompile.hpp"

namespace jitvec::cli {
namespace {

struct CompileArguments {
  std::vector<std::string> files;
  std::vector<std::string> archs;
  bool archs_given = false;
  std::vector<std::string> targets;
  std::string cache_dir;
  bool cache_dir_given = false;
  unsigned threads = 0;
  bool json = false;
  bool quiet = false;
};

std::string known_archs_text() {
  std::vector<std::string> names;
  for (int arch : compile::supported_archs()) names.push_back(fmt::format("sm_{}", arch));
  return fmt::format("{}", fmt::join(names, ", "));
}

/// --arch as given, each checked against what this NVRTC can build.
std::vector<std::string> checked_archs(const std::vector<std::string>& arch_lists, bool given) {
  std::vector<std::string> archs;
  for (const std::string& list : arch_lists) {
    for (std::size_t start = 0;;) {
      const std::size_t comma = list.find(',', start);
      archs.push_back(list.substr(start, comma == std::string::npos ? comma : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (given && archs.empty()) {
    throw UsageError(fmt::format("--arch names no architecture: name one or more, like "
                                 "--arch sm_80,sm_90 (NVRTC knows: {})",
                                 known_archs_text()));
  }
  const std::vector<int> supported = compile::supported_archs();
  for (const std::string& arch : archs) {
    if (arch.empty()) {
      throw UsageError(fmt::format("--arch: an empty architecture name; name one or more, like "
                                   "--arch sm_80,sm_90 (NVRTC knows: {})",
                                   known_archs_text()));
    }
    int number = 0;
    try {
      number = compile::parse_arch(arch);
    } catch (const ArgumentError& e) {
      throw UsageError(fmt::format("--arch: {} (NVRTC knows: {})", e.what(), known_archs_text()));
    } catch (const std::exception&) {  // digits beyond an int
      number = -1;
    }
    if (std::find(supported.begin(), supported.end(), number) == supported.end()) {
      throw UsageError(fmt::format("--arch: {} cannot build code for '{}' (it knows: {})",
                                   compile::nvrtc_version(), arch, known_archs_text()));
    }
  }
  return archs;
}

/// The architectures the runtime would build for this machine's GPUs, each once.
std::vector<std::string> local_archs() {
  const int count = cuda::device_count();
  if (count == 0) {
    throw UsageError(fmt::format(
        "no GPU here to take the architecture from: name one with --arch sm_90 (NVRTC knows: {})",
        known_archs_text()));
  }
  std::vector<std::string> archs;
  for (int device = 0; device < count; ++device) {
    const cuda::DeviceInfo& info = cuda::device_info(device);
    const std::string arch = compile::arch_for_device(info.cc_major, info.cc_minor);
    if (std::find(archs.begin(), archs.end(), arch) == archs.end()) archs.push_back(arch);
  }
  return archs;
}

std::string describe_job(const engine::PrecompileJob& job) {
  if (!job.method.empty()) return fmt::format("{} {} ({}) {}", job.ufunc, job.signature, job.method, job.arch);
  return fmt::format("{} {} {}", job.ufunc, job.signature, job.arch);
}

std::string outcome_word(const engine::PrecompileResult& result) {
  return !result.ok ? "failed" : result.from_cache ? "cached" : "compiled";
}

/// Runs every job on `threads` workers, starting them in start_order() (longest first, so that
/// no long compile is left alone at the end); unless `quiet`, prints a line per finished job to
/// stderr, wherever it goes (a terminal, a pipe, a log), as ninja and cargo do. The results are
/// in the order of `jobs`.
std::vector<engine::PrecompileResult> run_jobs(Engine& engine,
                                               const std::vector<engine::PrecompileJob>& jobs,
                                               unsigned threads, bool quiet) {
  std::vector<engine::PrecompileResult> results(jobs.size());
  const std::vector<std::size_t> order = start_order(engine, jobs);
  std::atomic<std::size_t> next{0};
  std::mutex progress_mutex;
  std::size_t finished = 0;
  const int width = static_cast<int>(std::to_string(jobs.size()).size());

  auto worker = [&] {
    for (std::size_t position = next++; position < jobs.size(); position = next++) {
      const std::size_t index = order[position];
      results[index] = engine::run_precompile_job(engine, jobs[index]);
      if (quiet) continue;
      const engine::PrecompileResult& result = results[index];
      std::lock_guard<std::mutex> lock(progress_mutex);
      ++finished;
      fmt::print(stderr, "[{:>{}}/{}] {}  {} {}\n", finished, width, jobs.size(),
                 describe_job(result.job), outcome_word(result), human_duration(result.seconds));
      std::fflush(stderr);
    }
  };
  std::vector<std::thread> workers;
  const unsigned count = std::max(1u, std::min<unsigned>(threads, jobs.size()));
  for (unsigned i = 1; i < count; ++i) workers.emplace_back(worker);
  worker();
  for (std::thread& t : workers) t.join();
  return results;
}

void print_json(const std::vector<engine::PrecompileResult>& results, const std::string& cache_dir,
                unsigned threads, double seconds) {
  toml::array loops;
  std::int64_t counts[3] = {0, 0, 0};  // compiled, cached, failed
  double compile_seconds = 0;
  for (const engine::PrecompileResult& result : results) {
    const std::string outcome = outcome_word(result);
    counts[outcome == "compiled" ? 0 : outcome == "cached" ? 1 : 2]++;
    if (outcome == "compiled") compile_seconds += result.seconds;
    loops.push_back(toml::table{{"ufunc", result.job.ufunc},
                                {"signature", result.job.signature},
                                {"method", result.job.method.empty() ? "map" : result.job.method},
                                {"target", result.job.target == Target::cuda ? "cuda" : "host"},
                                {"arch", result.job.arch},
                                {"outcome", outcome},
                                {"seconds", result.seconds},
                                {"key", result.key_hex},
                                {"error", result.error}});
  }
  const toml::table document{{"cache_dir", cache_dir},
                             {"loops", std::move(loops)},
                             {"compiled", counts[0]},
                             {"cached", counts[1]},
                             {"failed", counts[2]},
                             {"threads", static_cast<std::int64_t>(threads)},
                             {"seconds", seconds},
                             {"compile_seconds", compile_seconds}};
  std::cout << toml::json_formatter(document) << "\n";
}

int run_compile(const CompileArguments& args) {
  std::vector<Target> targets;
  for (const std::string& name : args.targets) targets.push_back(*parse_target(name));

  if (args.cache_dir_given && args.cache_dir.empty()) {
    throw UsageError("--cache-dir: the folder name is empty");
  }
  // Every argument is checked before anything is created on disk: the architectures, and
  // that each definition file can be read and parsed (the engine loads them again below).
  std::vector<std::string> archs = checked_archs(args.archs, args.archs_given);
  for (const std::string& file : args.files) {
    try {
      definitions::parse_definition_file(file);
    } catch (const DefinitionError& e) {
      throw UsageError(e.what());
    }
  }
  EngineOptions options;
  if (args.cache_dir_given) options.cache.dir = args.cache_dir;
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  options.cache.disabled = false;
  Engine engine(options);
  cache::DiskCache* disk = engine.impl().disk();
  if (!disk->writable()) {
    throw Error(fmt::format("cannot store compiled loops in the cache folder '{}' (see the "
                            "warning above); nothing was compiled",
                            disk->settings().dir.string()));
  }

  engine::DefinedTargets defined;
  try {
    defined = engine::load_definition_files(
        engine, std::vector<std::filesystem::path>(args.files.begin(), args.files.end()));
  } catch (const DefinitionError& e) {
    throw UsageError(e.what());
  }

  bool needs_archs = false;
  std::vector<std::string> names = engine.ufunc_names();
  for (const std::string& name : engine.gufunc_names()) names.push_back(name);  // gufuncs too
  for (const std::string& name : names) {
    const std::vector<Target> binaries = engine::binary_targets(name, targets, defined);
    needs_archs |= std::find(binaries.begin(), binaries.end(), Target::cuda) != binaries.end();
  }
  if (needs_archs && archs.empty()) archs = local_archs();

  const std::vector<engine::PrecompileJob> jobs =
      engine::plan_precompile(engine, targets, archs, defined);
  const unsigned threads =
      args.threads ? args.threads : std::max(1u, std::thread::hardware_concurrency());
  const auto started = std::chrono::steady_clock::now();
  const std::vector<engine::PrecompileResult> results = run_jobs(engine, jobs, threads, args.quiet);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::size_t compiled = 0, cached = 0, failed = 0;
  double compile_seconds = 0;
  for (const engine::PrecompileResult& result : results) {
    if (!result.ok) {
      ++failed;
      fmt::print(stderr, "jitvec: error: {}: {}\n", describe_job(result.job), result.error);
    } else if (result.from_cache) {
      ++cached;
    } else {
      ++compiled;
      compile_seconds += result.seconds;
    }
  }
  const std::string dir = disk->settings().dir.string();
  if (args.json) {
    print_json(results, dir, threads, seconds);
  } else if (!args.quiet) {
    fmt::print("{} loop{} in {}: {} compiled, {} cached, {} failed ({} on {} thread{}; {} of "
               "compiling)\n",
               jobs.size(), jobs.size() == 1 ? "" : "s", dir, compiled, cached, failed,
               human_duration(seconds), threads, threads == 1 ? "" : "s",
               human_duration(compile_seconds));
  }
  if (!disk->writable() || disk->stats().store_failures > 0) {
    fmt::print(stderr,
               "jitvec: error: storing into the cache folder '{}' failed (see the warnings "
               "above); {} not stored\n",
               disk->settings().dir.string(),
               disk->writable() ? fmt::format("{} loop{} {}", disk->stats().store_failures,
                                              disk->stats().store_failures == 1 ? "" : "s",
                                              disk->stats().store_failures == 1 ? "was" : "were")
                                : std::string("some loops were"));
    return kExitFailure;
  }
  return failed ? kExitFailure : kExitSuccess;
}

}  // namespace

void add_compile_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<CompileArguments>();
  CLI::App* command = app.add_subcommand(
      "compile",
      "Compiles every loop of the ufuncs in definition files (each signature, for each GPU "
      "architecture and target) into the kernel cache, so that programs start without "
      "compiling. Needs no GPU.");
  command->add_option("files", args->files, "TOML definition files")->required();
  // One value per --arch, split here: CLI11's own splitting drops empty parts, so that
  // `--arch ,,` would take the next argument as an architecture.
  CLI::Option* arch = command
                          ->add_option("--arch", args->archs,
                                       "GPU architectures to build for, comma-separated or "
                                       "repeated (e.g. sm_80,sm_90); default: those of this "
                                       "machine's GPUs")
                          ->allow_extra_args(false)
                          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command
      ->add_option("--target", args->targets,
                   "targets to build for: cuda, cpu, parallel (cpu and parallel share one host "
                   "binary), comma-separated or repeated; default: each ufunc's `targets` in its "
                   "file, else cuda")
      ->delimiter(',')
      ->check(CLI::IsMember({"cuda", "cpu", "parallel"}));
  CLI::Option* cache_dir =
      command->add_option("--cache-dir", args->cache_dir,
                          "the cache folder to fill (default: JITVEC_CACHE_DIR, else "
                          "$XDG_CACHE_HOME/jitvec, else ~/.cache/jitvec)");
  command
      ->add_option("-j,--jobs", args->threads,
                   "compile on this many threads (default: one per core)")
      ->check(CLI::Range(1u, 4096u));
  command->add_flag("--json", args->json,
                    "write what was built as JSON to stdout (per loop: ufunc, signature, target, "
                    "arch, outcome, seconds, key, error; then the totals)");
  command->add_flag("-q,--quiet", args->quiet,
                    "print no progress lines and no summary, only errors");
  command->callback([&chosen, args, arch, cache_dir] {
    args->archs_given = arch->count() > 0;
    args->cache_dir_given = cache_dir->count() > 0;
    chosen = [args] { return run_compile(*args); };
  });
}

}  // namespace jitvec::cli
