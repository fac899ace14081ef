#include "gpu_startup.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <jitvec/jitvec.hpp>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "checks.hpp"
#include "cpu/subprocess.hpp"
#include "cuda/context.hpp"
#include "random_inputs.hpp"

namespace bench {
namespace {

constexpr const char* kResultMarker = "jitvec-startup-result";
constexpr std::int64_t kElements = 1024;

using Figures = std::map<std::string, double>;

// The figures of the child's result line: "jitvec-startup-result key=value key=value ...".
Figures parse_child_output(const jitvec::cpu::ProcessResult& run) {
  const auto marker = run.output.find(kResultMarker);
  if (!run.succeeded() || marker == std::string::npos) {
    throw std::runtime_error(
        fmt::format("the start-up child failed (exit status {}, signal {}); it printed:\n{}",
                    run.exit_status, run.signal, run.output));
  }
  const auto line_end = run.output.find('\n', marker);
  std::istringstream line(run.output.substr(marker, line_end - marker));
  Figures figures;
  std::string token;
  line >> token;  // the marker
  while (line >> token) {
    const auto equals = token.find('=');
    if (equals == std::string::npos) continue;
    figures[token.substr(0, equals)] = std::stod(token.substr(equals + 1));
  }
  for (const char* key :
       {"context_ms", "definitions_ms", "alloc_ms", "upload_ms", "load_ms", "call_ms", "verified"}) {
    if (!figures.count(key)) {
      throw std::runtime_error(fmt::format("the start-up child's line lacks {}: {}", key,
                                           run.output.substr(marker, line_end - marker)));
    }
  }
  return figures;
}

Figures run_child(const std::filesystem::path& samples, const std::filesystem::path& cache_dir) {
  return parse_child_output(jitvec::cpu::run_program(
      {std::filesystem::read_symlink("/proc/self/exe").string(), "--samples", samples.string(),
       kStartupChildFlag, cache_dir.string()}));
}

std::filesystem::path make_temporary_folder() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "jitvec-bench-cache-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a temporary cache folder from " + pattern);
  }
  return pattern;
}

// The median of each figure over the runs, as one record.
Record summarize(const std::string& case_name, const std::vector<Figures>& runs) {
  Record record{case_name, "jitvec", kElements, "float32"};
  std::map<std::string, std::vector<double>> columns;
  bool all_verified = true;
  for (const Figures& run : runs) {
    for (const auto& [key, value] : run) columns[key].push_back(value);
    columns["first_result_ms"].push_back(run.at("definitions_ms") + run.at("alloc_ms") +
                                         run.at("upload_ms") + run.at("load_ms") +
                                         run.at("call_ms"));
    all_verified = all_verified && run.at("verified") == 1.0;
  }
  record.time_ms = median(columns["first_result_ms"]);
  record.verified = all_verified;
  for (const auto& [key, values] : columns) {
    if (key != "verified") record.extra.emplace_back(key, median(values));
  }
  record.extra.emplace_back("runs", static_cast<double>(runs.size()));
  record.method = fmt::format(
      "fresh process (re-exec), time from after the context to the first result on the host "
      "(Engine + definitions + first device allocation + upload of 1024 floats + loading the "
      "loop + first call + copy back), median of {} runs",
      runs.size());
  return record;
}

}  // namespace

int run_startup_child(const std::filesystem::path& cache_dir,
                      const std::filesystem::path& definitions, Clock::time_point main_start) {
  jitvec::cuda::ContextGuard context(0);
  const double context_ms = ms_since(main_start);

  Clock::time_point phase = Clock::now();
  jitvec::EngineOptions options;
  options.cache.dir = cache_dir;
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  options.cache.disabled = false;
  jitvec::Engine engine(options);
  engine.load_definitions(definitions);
  const jitvec::Ufunc gaussian_pdf = engine.ufunc("gaussian_pdf");
  const double definitions_ms = ms_since(phase);

  const std::vector<float> x = uniform_floats(kElements, -3.0, 3.0, 11);
  // The process's first device allocation, timed apart from the copy (it was the pool's first
  // mapping of memory, 8-10 ms, before the context warmed the pool up).
  phase = Clock::now();
  { const jitvec::Array first = jitvec::Array::empty(jitvec::DType::float32, {kElements},
                                                     jitvec::Memory::device, 0); }
  const double alloc_ms = ms_since(phase);

  phase = Clock::now();
  const jitvec::Array x_device = jitvec::to_device(x);
  const double upload_ms = ms_since(phase);

  // The loop: disk cache read (or NVRTC) and module load, timed apart from the call, which then
  // loads the kernel it launches, runs it and copies the result back.
  phase = Clock::now();
  gaussian_pdf.precompile(0, jitvec::Target::cuda);
  const double load_ms = ms_since(phase);

  phase = Clock::now();
  const std::vector<float> y = gaussian_pdf(x_device, 0.0f, 1.0f).to_vector<float>();
  const double call_ms = ms_since(phase);

  const Check check = check_output(
      y,
      [&](std::int64_t i) { return gaussian_pdf_reference(x[static_cast<std::size_t>(i)], 0, 1); },
      kGaussianFloat32);
  const jitvec::EngineStats stats = engine.stats();
  fmt::print(
      "{} context_ms={} definitions_ms={} alloc_ms={} upload_ms={} load_ms={} call_ms={} "
      "disk_read_ms={} module_load_ms={} compiles={} disk_hits={} verified={}\n",
      kResultMarker, context_ms, definitions_ms, alloc_ms, upload_ms, load_ms, call_ms,
      stats.disk_read_seconds * 1e3, stats.load_seconds * 1e3, stats.compiles,
      stats.disk_hits, check.passed() ? 1 : 0);
  if (!check.passed()) fmt::print("{}\n", check.describe());
  return check.passed() ? 0 : 1;
}

std::vector<Record> measure_startup(const std::filesystem::path& samples, int cold_runs,
                                    int warm_runs) {
  std::vector<Figures> cold, warm;
  std::vector<std::filesystem::path> folders;
  auto remove_folders = [&] {
    for (const auto& folder : folders) {
      std::error_code ignored;
      std::filesystem::remove_all(folder, ignored);
    }
  };
  try {
    for (int run = 0; run < cold_runs; ++run) {
      folders.push_back(make_temporary_folder());
      cold.push_back(run_child(samples, folders.back()));
    }
    for (int run = 0; run < warm_runs; ++run) {
      warm.push_back(run_child(samples, folders.front()));
    }
  } catch (...) {
    remove_folders();
    throw;
  }
  remove_folders();

  std::vector<double> context;
  for (const auto* runs : {&cold, &warm}) {
    for (const Figures& run : *runs) context.push_back(run.at("context_ms"));
  }
  Record driver{"startup_context", "cuda-driver", 0, "-"};
  driver.time_ms = median(context);
  driver.has_output = false;
  driver.method = fmt::format(
      "dlopen(libcuda) + cuInit + primary context (jitvec's, which warms up the memory pool), "
      "from main() in a fresh process, median of {} runs",
      context.size());
  Record cold_record = summarize("startup_cold", cold);
  Record warm_record = summarize("startup_warm", warm);
  for (const Figures& run : warm) {
    if (run.at("compiles") != 0.0) {
      warm_record.error = "a warm-cache run compiled instead of loading the disk cache";
    }
  }
  return {driver, cold_record, warm_record};
}

}  // namespace bench
