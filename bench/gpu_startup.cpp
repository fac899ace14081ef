#include "gpu_startup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <cstdlib>
#include <jitvec/jitvec.hpp>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "checks.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cpu/subprocess.hpp"
#include "cuda/context.hpp"
#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "cuda/module.hpp"
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
  for (const char* key : {"context_ms", "first_result_ms", "compiles", "verified"}) {
    if (!figures.count(key)) {
      throw std::runtime_error(fmt::format("the start-up child's line lacks {}: {}", key,
                                           run.output.substr(marker, line_end - marker)));
    }
  }
  return figures;
}

// One child, with NVRTC's own cache of compiled programs (the driver's compute cache, which
// NVRTC 12.9+ reads) turned off, so a cold run compiles for real.
Figures run_child(const std::filesystem::path& samples, const std::string& case_name,
                  const std::filesystem::path& cache_dir) {
  const char* before = std::getenv("CUDA_CACHE_DISABLE");
  const std::string saved = before ? before : "";
  ::setenv("CUDA_CACHE_DISABLE", "1", 1);
  jitvec::cpu::ProcessResult run = jitvec::cpu::run_program(
      {std::filesystem::read_symlink("/proc/self/exe").string(), "--samples", samples.string(),
       kStartupCaseFlag, case_name, kStartupChildFlag, cache_dir.string()});
  if (before) {
    ::setenv("CUDA_CACHE_DISABLE", saved.c_str(), 1);
  } else {
    ::unsetenv("CUDA_CACHE_DISABLE");
  }
  return parse_child_output(run);
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
Record summarize(const std::string& record_name, const std::string& case_name, bool cold,
                 const std::vector<Figures>& runs) {
  const bool floor = case_name == kFloorCase;
  Record record{record_name, floor ? "ceiling" : "jitvec", kElements,
                case_name == "zero_suppress" ? "int16" : "float32"};
  std::map<std::string, std::vector<double>> columns;
  bool all_verified = true;
  for (const Figures& run : runs) {
    for (const auto& [key, value] : run) columns[key].push_back(value);
    all_verified = all_verified && run.at("verified") == 1.0;
  }
  record.time_ms = median(columns["first_result_ms"]);
  record.verified = all_verified;
  for (const auto& [key, values] : columns) {
    if (key != "verified") record.extra.emplace_back(key, median(values));
  }
  record.extra.emplace_back("runs", static_cast<double>(runs.size()));
  if (floor) {
    record.method = fmt::format(
        "the floor of any NVRTC-based first call: fresh process (re-exec), NVRTC's own cache off "
        "(CUDA_CACHE_DISABLE=1), NVRTC loaded before the clock (as jitvec's preload does during the "
        "context); time from after the context to the first result on the host: {} + "
        "cuModuleLoadData + upload of 2 x 1024 floats + one cuLaunchKernel + copy back (inputs made "
        "before the clock, checked after it); median of {} runs",
        cold ? "nvrtcCompileProgram of a one-line add kernel with jitvec's NVRTC options (no prelude)"
             : "reading that kernel's cubin from a file",
        runs.size());
    return record;
  }
  record.method = fmt::format(
      "fresh process (re-exec) with NVRTC's own cache off (CUDA_CACHE_DISABLE=1), {}; time from "
      "after the context (and the first device allocation) to the first result on the host: "
      "Engine + definitions + upload of 1024 elements + the first call as the {} sample makes "
      "it (compiling or loading its kernel) + copy back (the inputs made before the clock, the "
      "result checked against float64 after it); median of {} runs",
      cold ? "an empty jitvec cache" : "the jitvec cache a cold run filled", case_name, runs.size());
  return record;
}

}  // namespace

namespace {

constexpr const char* kAddSource =
    "__device__ float startup_add(float a, float b) { return a + b; }";

// The floor case's kernel: the add case's work with nothing of jitvec's around it.
constexpr const char* kFloorSource =
    "extern \"C\" __global__ void startup_floor_add(const float* a, const float* b, float* c, long long n) {\n"
    "  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

// Every case's inputs, made before the clock starts: generating them is the benchmark's work,
// not the library's (and neither is checking the result, done after the clock stops).
struct CaseInputs {
  std::vector<float> x = uniform_floats(kElements, -3.0, 3.0, 11);
  std::vector<float> y = uniform_floats(kElements, 0.5, 4.0, 12);
  std::vector<float> t = uniform_floats(kElements, -3.0, 3.0, 13);
  std::vector<std::int16_t> v;
  CaseInputs() : v(static_cast<std::size_t>(kElements)) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int16_t>(x[i] * 1000.0f);
  }
};

// What the timed part of a child leaves: the result on the host (int16 results exactly as
// floats) and the time of each phase, in ms.
struct FirstResult {
  std::vector<float> values;
  Figures phases;
};

// Times the phases of a first result one after another: each lap() ends one.
class PhaseClock {
 public:
  explicit PhaseClock(Figures& phases) : phases_(phases), last_(Clock::now()) {}
  void lap(const char* name) {
    const Clock::time_point now = Clock::now();
    phases_[name] = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
  }

 private:
  Figures& phases_;
  Clock::time_point last_;
};

// The floor case: NVRTC (cold) or a cubin file (warm), the driver, one launch; no Engine.
// Sets the figures it measured (compile_ms, compiles and the phases).
FirstResult floor_call(const std::filesystem::path& cache_dir, const CaseInputs& in, double& compile_ms,
                       int& compiles) {
  namespace cuda = jitvec::cuda;
  FirstResult result;
  PhaseClock clock(result.phases);
  const std::filesystem::path cubin_file = cache_dir / "startup_floor_add.cubin";
  std::string cubin, ptx;
  if (std::filesystem::exists(cubin_file)) {
    std::ifstream in_file(cubin_file, std::ios::binary);
    cubin.assign(std::istreambuf_iterator<char>(in_file), std::istreambuf_iterator<char>());
  } else {
    const Clock::time_point t0 = Clock::now();
    const cuda::DeviceInfo& info = cuda::device_info(0);
    jitvec::compile::CudaBinary binary = jitvec::compile::compile_cuda(
        kFloorSource, "startup_floor_add", jitvec::compile::arch_for_device(info.cc_major, info.cc_minor));
    compile_ms = ms_since(t0);
    compiles = 1;
    cubin = std::move(binary.cubin);
    ptx = std::move(binary.ptx);
    std::ofstream(cubin_file, std::ios::binary).write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
  }
  const cuda::Module module = cuda::Module::load(0, cubin, ptx);
  const CUfunction kernel = module.function("startup_floor_add");
  clock.lap("kernel_ms");
  const jitvec::Array xd = jitvec::to_device(in.x), yd = jitvec::to_device(in.y);
  const jitvec::Array out = jitvec::Array::empty(jitvec::DType::float32, {kElements}, jitvec::Memory::device, 0);
  clock.lap("upload_ms");
  const void* a = xd.data();
  const void* b = yd.data();
  void* c = out.data();
  long long n = kElements;
  void* parameters[] = {&a, &b, &c, &n};
  cuda::check(cuda::driver().launchKernel(kernel, (kElements + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr,
                                          parameters, nullptr),
              "cuLaunchKernel");
  cuda::check(cuda::driver().ctxSynchronize(), "cuCtxSynchronize");
  clock.lap("call_ms");
  result.values = out.to_vector<float>();
  clock.lap("download_ms");
  return result;
}

bool floor_passed(const CaseInputs& in, const std::vector<float>& got) {
  return check_output(got, [&](std::int64_t i) {
           const auto k = static_cast<std::size_t>(i);
           return static_cast<double>(in.x[k]) + static_cast<double>(in.y[k]);
         }, kAddFloat32).passed();
}

// The first call of case `name`, made the way its sample makes it (device arrays in, the result
// copied back). Phases: definitions_ms (the definition file read, or the ufunc defined),
// upload_ms, call_ms (the call: its kernel compiled or loaded, launched), download_ms (the copy
// back, which waits for the kernel).
FirstResult first_call(const std::string& name, jitvec::Engine& engine, const std::filesystem::path& samples,
                       const CaseInputs& in) {
  FirstResult result;
  PhaseClock clock(result.phases);
  if (name == "gaussian_pdf") {
    engine.load_definitions(samples / "gaussian_pdf.toml");
    const jitvec::Ufunc f = engine.ufunc("gaussian_pdf");
    clock.lap("definitions_ms");
    const jitvec::Array xd = jitvec::to_device(in.x);
    clock.lap("upload_ms");
    const jitvec::Array out = f(xd, 0.0f, 1.0f);
    clock.lap("call_ms");
    result.values = out.to_vector<float>();
  } else if (name == "polar_distance") {
    engine.load_definitions(samples / "polar_distance.toml");
    const jitvec::Ufunc f = engine.ufunc("polar_distance");
    clock.lap("definitions_ms");
    const jitvec::Array r1 = jitvec::to_device(in.y), t1 = jitvec::to_device(in.x), r2 = jitvec::to_device(in.y),
                        t2 = jitvec::to_device(in.t);
    clock.lap("upload_ms");
    const jitvec::Array out = f(r1, t1, r2, t2);
    clock.lap("call_ms");
    result.values = out.to_vector<float>();
  } else if (name == "zero_suppress") {
    engine.load_definitions(samples / "zero_suppress.toml");
    const jitvec::Ufunc f = engine.ufunc("zero_suppress");
    clock.lap("definitions_ms");
    const jitvec::Array vd = jitvec::to_device(in.v);
    clock.lap("upload_ms");
    const jitvec::Array out = f(vd, std::int16_t{1500});
    clock.lap("call_ms");
    const std::vector<std::int16_t> got = out.to_vector<std::int16_t>();
    result.values.assign(got.begin(), got.end());
  } else if (name == "add") {
    const jitvec::Ufunc add = engine.vectorize("startup_add", {"float32(float32, float32)"}, kAddSource);
    clock.lap("definitions_ms");
    const jitvec::Array xd = jitvec::to_device(in.x), yd = jitvec::to_device(in.y);
    clock.lap("upload_ms");
    const jitvec::Array out = add(xd, yd);
    clock.lap("call_ms");
    result.values = out.to_vector<float>();
  } else {
    throw std::runtime_error("no start-up case named '" + name + "'");
  }
  clock.lap("download_ms");
  return result;
}

// Whether case `name`'s result is right, against float64.
bool first_call_passed(const std::string& name, const CaseInputs& in, const std::vector<float>& got) {
  if (name == "gaussian_pdf") {
    return check_output(got, [&](std::int64_t i) { return gaussian_pdf_reference(in.x[static_cast<std::size_t>(i)], 0, 1); },
                        kGaussianFloat32).passed();
  }
  if (name == "polar_distance") {
    return check_output(got, [&](std::int64_t i) {
             const auto k = static_cast<std::size_t>(i);
             return polar_distance_reference(in.y[k], in.x[k], in.y[k], in.t[k]);
           }, kPolarFloat32).passed();
  }
  if (name == "zero_suppress") {
    return check_output(got, [&](std::int64_t i) { return zero_suppress_reference(in.v[static_cast<std::size_t>(i)], 1500); },
                        kExact).passed();
  }
  return floor_passed(in, got);  // add: the floor's sum
}

std::string phase_figures(const Figures& phases) {
  std::string text;
  for (const auto& [key, value] : phases) text += fmt::format(" {}={}", key, value);
  return text;
}

}  // namespace

int run_startup_child(const std::filesystem::path& cache_dir, const std::string& case_name,
                      const std::filesystem::path& samples, Clock::time_point main_start) {
  jitvec::cuda::ContextGuard context(0);
  // The process's first device allocation (the pool's first mapping), before the clock starts:
  // it is the driver's, paid by every CUDA program.
  { const jitvec::Array first = jitvec::Array::empty(jitvec::DType::float32, {kElements},
                                                     jitvec::Memory::device, 0); }
  const CaseInputs inputs;
  if (case_name == kFloorCase) {
    (void)jitvec::compile::nvrtc_version();  // NVRTC loaded before the clock, as jitvec's preload is
    const double context_ms = ms_since(main_start);
    const Clock::time_point started = Clock::now();
    double compile_ms = 0;
    int compiles = 0;
    const FirstResult result = floor_call(cache_dir, inputs, compile_ms, compiles);
    const double first_result_ms = ms_since(started);
    const bool passed = floor_passed(inputs, result.values);
    fmt::print("{} context_ms={} first_result_ms={} compile_ms={} compiles={}{} verified={}\n", kResultMarker,
               context_ms, first_result_ms, compile_ms, compiles, phase_figures(result.phases), passed ? 1 : 0);
    return passed ? 0 : 1;
  }
  const double context_ms = ms_since(main_start);

  const Clock::time_point started = Clock::now();
  jitvec::EngineOptions options;
  options.cache.dir = cache_dir;
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  options.cache.disabled = false;
  jitvec::Engine engine(options);
  const double engine_ms = ms_since(started);
  const FirstResult result = first_call(case_name, engine, samples, inputs);
  const double first_result_ms = ms_since(started);
  const bool passed = first_call_passed(case_name, inputs, result.values);
  const jitvec::EngineStats stats = engine.stats();
  // What the cache folder holds after the call (after the clock stopped): in a warm run, every
  // entry the cold run stored (a cold run may still be storing: its workers end at exit).
  std::uintmax_t cache_bytes = 0, largest_entry = 0;
  std::error_code ignored;
  for (const auto& item : std::filesystem::recursive_directory_iterator(cache_dir, ignored)) {
    if (!item.is_regular_file(ignored)) continue;
    const std::uintmax_t size = item.file_size(ignored);
    cache_bytes += size;
    largest_entry = std::max(largest_entry, size);
  }
  fmt::print("{} context_ms={} first_result_ms={} compile_ms={} disk_read_ms={} module_load_ms={} "
             "compiles={} disk_hits={} cache_bytes={} cache_largest_entry={} engine_ms={}{} verified={}\n",
             kResultMarker, context_ms, first_result_ms, stats.compile_seconds * 1e3,
             stats.disk_read_seconds * 1e3, stats.load_seconds * 1e3, stats.compiles,
             stats.disk_hits, cache_bytes, largest_entry, engine_ms, phase_figures(result.phases),
             passed ? 1 : 0);
  return passed ? 0 : 1;
}

std::vector<Record> measure_startup(const std::filesystem::path& samples, int cold_runs,
                                    int warm_runs) {
  std::vector<Record> records;
  std::vector<double> context;
  for (const char* case_name : kStartupCases) {
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
        cold.push_back(run_child(samples, case_name, folders.back()));
      }
      for (int run = 0; run < warm_runs; ++run) warm.push_back(run_child(samples, case_name, folders.front()));
    } catch (...) {
      remove_folders();
      throw;
    }
    remove_folders();
    for (const auto* runs : {&cold, &warm}) {
      for (const Figures& run : *runs) context.push_back(run.at("context_ms"));
    }
    Record cold_record = summarize(fmt::format("startup_cold_{}", case_name), case_name, true, cold);
    Record warm_record = summarize(fmt::format("startup_warm_{}", case_name), case_name, false, warm);
    for (const Figures& run : warm) {
      if (run.at("compiles") != 0.0) {
        warm_record.error = "a warm-cache run compiled instead of loading the disk cache";
      }
    }
    for (const Figures& run : cold) {  // its kernel, and maybe a stand-in still compiling beside it
      if (run.at("compiles") < 1.0) cold_record.error = "a cold run compiled nothing";
    }
    records.push_back(std::move(cold_record));
    records.push_back(std::move(warm_record));
  }
  Record driver{"startup_context", "cuda-driver", 0, "-"};
  driver.time_ms = median(context);
  driver.has_output = false;
  driver.method = fmt::format(
      "dlopen(libcuda) + cuInit + primary context (jitvec's, which warms up the memory pool) + "
      "the first device allocation, from main() in a fresh process, median of {} runs",
      context.size());
  records.insert(records.begin(), std::move(driver));
  return records;
}

}  // namespace bench
