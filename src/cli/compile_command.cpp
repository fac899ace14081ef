// src/cli/compile_command.cpp: `jitvec compile FILE...`, which builds every loop of the ufuncs
// in definition files into a kernel cache folder, on several threads, with or without a GPU.
//
// The work itself (which binaries, building one) is engine/precompile.hpp's; this file chooses
// the architectures, runs the jobs on worker threads, shows progress on a terminal and reports.
// The folder filled is --cache-dir, else the writable cache folder jitvec uses by default
// (JITVEC_CACHE_DIR, ...). Read-only cache folders (JITVEC_CACHE_PATH) are not searched and
// JITVEC_CACHE_DISABLE is ignored: afterwards the folder itself holds every loop.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cache/disk_cache.hpp"
#include "cli/command.hpp"
#include "cli/text_format.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/device.hpp"
#include "engine/engine_impl.hpp"
#include "engine/precompile.hpp"

namespace jitvec::cli {
namespace {

struct CompileArguments {
  std::vector<std::string> files;
  std::vector<std::string> archs;
  std::vector<std::string> targets;
  std::string cache_dir;
  unsigned threads = 0;
};

std::string known_archs_text() {
  std::vector<std::string> names;
  for (int arch : compile::supported_archs()) names.push_back(fmt::format("sm_{}", arch));
  return fmt::format("{}", fmt::join(names, ", "));
}

/// --arch as given, each checked against what this NVRTC can build.
std::vector<std::string> checked_archs(const std::vector<std::string>& archs) {
  const std::vector<int> supported = compile::supported_archs();
  for (const std::string& arch : archs) {
    int number = 0;
    try {
      number = compile::parse_arch(arch);
    } catch (const ArgumentError& e) {
      throw UsageError(fmt::format("--arch: {} (NVRTC knows: {})", e.what(), known_archs_text()));
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
  return fmt::format("{} {} {}", job.arch, job.ufunc, job.signature);
}

/// Runs every job on `threads` workers; on a terminal, prints a line per finished job.
std::vector<engine::PrecompileResult> run_jobs(Engine& engine,
                                               const std::vector<engine::PrecompileJob>& jobs,
                                               unsigned threads) {
  std::vector<engine::PrecompileResult> results(jobs.size());
  std::atomic<std::size_t> next{0};
  std::mutex progress_mutex;
  std::size_t finished = 0;
  const bool show_progress = ::isatty(STDERR_FILENO) != 0;
  const int width = static_cast<int>(std::to_string(jobs.size()).size());

  auto worker = [&] {
    for (std::size_t index = next++; index < jobs.size(); index = next++) {
      results[index] = engine::run_precompile_job(engine, jobs[index]);
      if (!show_progress) continue;
      const engine::PrecompileResult& result = results[index];
      const std::string outcome = !result.ok          ? "FAILED"
                                  : result.from_cache ? "cached"
                                                      : "compiled " + human_duration(result.seconds);
      std::lock_guard<std::mutex> lock(progress_mutex);
      ++finished;
      fmt::print(stderr, "[{:>{}}/{}] {}  {}\n", finished, width, jobs.size(),
                 describe_job(result.job), outcome);
    }
  };
  std::vector<std::thread> workers;
  const unsigned count = std::max(1u, std::min<unsigned>(threads, jobs.size()));
  for (unsigned i = 1; i < count; ++i) workers.emplace_back(worker);
  worker();
  for (std::thread& t : workers) t.join();
  return results;
}

int run_compile(const CompileArguments& args) {
  std::vector<Target> targets;
  for (const std::string& name : args.targets) targets.push_back(*parse_target(name));

  EngineOptions options;
  if (!args.cache_dir.empty()) options.cache.dir = args.cache_dir;
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
  for (const std::string& name : engine.ufunc_names()) {
    const std::vector<Target> binaries = engine::binary_targets(name, targets, defined);
    needs_archs |= std::find(binaries.begin(), binaries.end(), Target::cuda) != binaries.end();
  }
  std::vector<std::string> archs = checked_archs(args.archs);
  if (needs_archs && archs.empty()) archs = local_archs();

  const std::vector<engine::PrecompileJob> jobs =
      engine::plan_precompile(engine, targets, archs, defined);
  const unsigned threads =
      args.threads ? args.threads : std::max(1u, std::thread::hardware_concurrency());
  const auto started = std::chrono::steady_clock::now();
  const std::vector<engine::PrecompileResult> results = run_jobs(engine, jobs, threads);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::size_t compiled = 0, cached = 0, failed = 0;
  for (const engine::PrecompileResult& result : results) {
    if (!result.ok) {
      ++failed;
      fmt::print(stderr, "jitvec: error: {}: {}\n", describe_job(result.job), result.error);
    } else if (result.from_cache) {
      ++cached;
    } else {
      ++compiled;
    }
  }
  fmt::print("{} loop{} in {}: {} compiled, {} cached, {} failed ({})\n", jobs.size(),
             jobs.size() == 1 ? "" : "s", disk->settings().dir.string(), compiled, cached, failed, human_duration(seconds));
  if (!disk->writable()) {
    fmt::print(stderr,
               "jitvec: error: storing into the cache folder '{}' failed (see the warning above); "
               "some loops were not stored\n",
               disk->settings().dir.string());
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
  command
      ->add_option("--arch", args->archs,
                   "GPU architectures to build for, comma-separated or repeated (e.g. "
                   "sm_80,sm_90); default: those of this machine's GPUs")
      ->delimiter(',');
  command
      ->add_option("--target", args->targets,
                   "targets to build for: cuda, cpu, parallel (cpu and parallel share one host "
                   "binary), comma-separated or repeated; default: each ufunc's `targets` in its "
                   "file, else cuda")
      ->delimiter(',')
      ->check(CLI::IsMember({"cuda", "cpu", "parallel"}));
  command->add_option("--cache-dir", args->cache_dir,
                      "the cache folder to fill (default: JITVEC_CACHE_DIR, else "
                      "$XDG_CACHE_HOME/jitvec, else ~/.cache/jitvec)");
  command
      ->add_option("-j,--jobs", args->threads,
                   "compile on this many threads (default: one per core)")
      ->check(CLI::Range(1u, 4096u));
  command->callback([&chosen, args] { chosen = [args] { return run_compile(*args); }; });
}

}  // namespace jitvec::cli
