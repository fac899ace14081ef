// src/cli/info_command.cpp: `jitvec info`, which says what jitvec finds on this machine: its
// version, NVRTC and the architectures it builds, the host compiler, the CUDA driver and GPUs,
// and the kernel cache folders in effect. Whatever is missing is reported with the reason
// (the library's own error text), never as a failure of the command. --json writes the same
// facts for scripts, through toml++'s JSON formatter.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cache/cache_settings.hpp"
#include "cli/command.hpp"
#include "cli/text_format.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cpu/host_compiler.hpp"
#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "jitvec/version.hpp"

namespace jitvec::cli {
namespace {

struct InfoArguments {
  bool json = false;
};

struct GpuFacts {
  int ordinal = 0;
  std::string name;
  std::string arch;
  int sm_count = 0;
  std::uint64_t memory = 0;
};

/// Everything `jitvec info` reports; a section that could not be read keeps the reason.
struct MachineFacts {
  std::string nvrtc_version;
  std::vector<std::string> nvrtc_archs;

  std::optional<cpu::HostCompiler> host_compiler;
  std::string host_compiler_problem;

  bool driver_loaded = false;
  std::string driver_version;  // "13.0"
  std::string driver_problem;
  std::vector<GpuFacts> gpus;

  std::optional<cache::CacheSettings> cache;
  std::string cache_problem;
};

MachineFacts gather_facts() {
  MachineFacts facts;
  try {  // no NVRTC is a fact to report (CPU-only machines, precompiled caches), not a failure
    facts.nvrtc_version = compile::nvrtc_version();
    for (int arch : compile::supported_archs()) facts.nvrtc_archs.push_back(fmt::format("sm_{}", arch));
  } catch (const Error& e) {
    facts.nvrtc_version = fmt::format("none ({})", e.what());
  }

  try {
    facts.host_compiler = cpu::host_compiler();
  } catch (const Error& e) {
    facts.host_compiler_problem = e.what();
  }

  try {
    const cuda::Driver& driver = cuda::driver();
    facts.driver_loaded = true;
    facts.driver_version = fmt::format("{}.{}", driver.version / 1000, driver.version % 1000 / 10);
    for (int ordinal = 0; ordinal < cuda::device_count(); ++ordinal) {
      const cuda::DeviceInfo& info = cuda::device_info(ordinal);
      facts.gpus.push_back(GpuFacts{ordinal, info.name, cuda::arch_name(ordinal), info.sm_count,
                                    static_cast<std::uint64_t>(info.total_memory)});
    }
  } catch (const Error& e) {
    facts.driver_problem = e.what();
  }

  try {
    facts.cache = cache::resolve_cache_settings();
  } catch (const Error& e) {
    facts.cache_problem = e.what();
  }
  return facts;
}

std::int64_t json_int(std::uint64_t value) { return static_cast<std::int64_t>(value); }

toml::array json_strings(const std::vector<std::string>& values) {
  toml::array array;
  for (const std::string& value : values) array.push_back(value);
  return array;
}

void print_json(const MachineFacts& facts) {
  toml::table host{{"available", facts.host_compiler.has_value()}};
  if (facts.host_compiler) {
    host.insert("identity", facts.host_compiler->identity);
    host.insert("path", facts.host_compiler->path);
  } else {
    host.insert("problem", facts.host_compiler_problem);
  }

  toml::array gpus;
  for (const GpuFacts& gpu : facts.gpus) {
    gpus.push_back(toml::table{{"ordinal", gpu.ordinal},
                               {"name", gpu.name},
                               {"arch", gpu.arch},
                               {"sm_count", gpu.sm_count},
                               {"memory", json_int(gpu.memory)}});
  }
  toml::table cuda_table{{"driver_available", facts.driver_loaded}, {"gpus", std::move(gpus)}};
  if (facts.driver_loaded) {
    cuda_table.insert("driver_version", facts.driver_version);
  } else {
    cuda_table.insert("problem", facts.driver_problem);
  }

  toml::table cache_table;
  if (facts.cache) {
    std::vector<std::string> read_only;
    for (const auto& dir : facts.cache->read_only_dirs) read_only.push_back(dir.string());
    cache_table.insert("dir", facts.cache->dir.string());
    cache_table.insert("read_only_dirs", json_strings(read_only));
    cache_table.insert("disabled", facts.cache->disabled);
    cache_table.insert("max_size", json_int(facts.cache->max_size));
  } else {
    cache_table.insert("problem", facts.cache_problem);
  }

  const toml::table document{
      {"version", std::string(kVersion)},
      {"nvrtc", toml::table{{"version", facts.nvrtc_version},
                            {"archs", json_strings(facts.nvrtc_archs)}}},
      {"host_compiler", std::move(host)},
      {"cuda", std::move(cuda_table)},
      {"cache", std::move(cache_table)},
  };
  std::cout << toml::json_formatter(document) << "\n";
}

void print_text(const MachineFacts& facts) {
  fmt::print("jitvec {}\n", kVersion);
  fmt::print("NVRTC:          {} (builds {})\n", facts.nvrtc_version,
             fmt::join(facts.nvrtc_archs, ", "));
  if (facts.host_compiler) {
    fmt::print("host compiler:  {}\n", facts.host_compiler->identity);
  } else {
    fmt::print("host compiler:  none: {}\n", facts.host_compiler_problem);
  }
  if (facts.driver_loaded) {
    fmt::print("CUDA driver:    {}\n", facts.driver_version);
    if (facts.gpus.empty()) fmt::print("GPUs:           none\n");
    for (const GpuFacts& gpu : facts.gpus) {
      fmt::print("GPU {}:          {}, {}, {} SMs, {}\n", gpu.ordinal, gpu.name, gpu.arch,
                 gpu.sm_count, human_size(gpu.memory));
    }
  } else {
    fmt::print("CUDA driver:    none: {}\n", facts.driver_problem);
  }
  if (facts.cache) {
    fmt::print("cache folder:   {}{}\n",
               facts.cache->dir.empty() ? "none (no home folder)" : facts.cache->dir.string(),
               facts.cache->disabled ? " (disabled by JITVEC_CACHE_DISABLE)" : "");
    for (const auto& dir : facts.cache->read_only_dirs) {
      fmt::print("read-only:      {}\n", dir.string());
    }
    fmt::print("cache max size: {}\n", human_size(facts.cache->max_size));
  } else {
    fmt::print("cache:          unusable: {}\n", facts.cache_problem);
  }
}

int run_info(const InfoArguments& args) {
  const MachineFacts facts = gather_facts();
  if (args.json) {
    print_json(facts);
  } else {
    print_text(facts);
  }
  return kExitSuccess;
}

}  // namespace

void add_info_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<InfoArguments>();
  CLI::App* command = app.add_subcommand(
      "info",
      "Shows jitvec's version, NVRTC and the architectures it builds, the host compiler, the "
      "CUDA driver and GPUs, and the kernel cache folders in effect.");
  command->add_flag("--json", args->json, "write JSON");
  command->callback([&chosen, args] { chosen = [args] { return run_info(*args); }; });
}

}  // namespace jitvec::cli
