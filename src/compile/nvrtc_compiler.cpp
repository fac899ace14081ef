#include "compile/nvrtc_compiler.hpp"

#include <cuda.h>  // CUDA_VERSION

#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "codegen/portable_source.hpp"
#include "compile/compile_time_limit.hpp"
#include "compile/nvrtc_library.hpp"
#include "core/log.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::compile {
namespace {

void check_nvrtc(const Nvrtc& nvrtc, nvrtcResult result, const char* call) {
  if (result != NVRTC_SUCCESS) {
    throw Error(fmt::format("{} failed: {}", call, nvrtc.getErrorString(result)));
  }
}

// Owns one nvrtcProgram; destroys it through the loaded library.
class Program {
 public:
  // The portable standard headers (codegen/portable_source.hpp) are handed over as texts,
  // which NVRTC reads only when the source includes one.
  Program(const Nvrtc& nvrtc, const std::string& source, const std::string& name) : nvrtc_(nvrtc) {
    std::vector<const char*> texts;
    std::vector<const char*> names;
    for (const codegen::PortableHeader& header : codegen::portable_headers()) {
      texts.push_back(header.nvrtc_text);
      names.push_back(header.name);
    }
    check_nvrtc(nvrtc_, nvrtc_.createProgram(&program_, source.c_str(), name.c_str(),
                                             static_cast<int>(texts.size()), texts.data(),
                                             names.data()),
                "nvrtcCreateProgram");
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program() { nvrtc_.destroyProgram(&program_); }
  nvrtcProgram get() const { return program_; }

 private:
  const Nvrtc& nvrtc_;
  nvrtcProgram program_ = nullptr;
};

// One NVRTC compile, start to finish, on the calling thread.
CudaBinary run_nvrtc(const Nvrtc& nvrtc, const std::string& source, const std::string& ufunc_name,
                     const std::string& arch, const std::vector<std::string>& options) {
  Program program(nvrtc, source, ufunc_name + ".cu");
  std::vector<const char*> option_pointers;
  for (const std::string& o : options) option_pointers.push_back(o.c_str());
  const nvrtcResult compiled = nvrtc.compileProgram(
      program.get(), static_cast<int>(option_pointers.size()), option_pointers.data());

  CudaBinary binary;
  std::size_t log_size = 0;
  check_nvrtc(nvrtc, nvrtc.getProgramLogSize(program.get(), &log_size), "nvrtcGetProgramLogSize");
  binary.log.resize(log_size);
  if (log_size) {
    check_nvrtc(nvrtc, nvrtc.getProgramLog(program.get(), binary.log.data()), "nvrtcGetProgramLog");
  }
  while (!binary.log.empty() && (binary.log.back() == '\0' || binary.log.back() == '\n')) {
    binary.log.pop_back();
  }
  if (compiled != NVRTC_SUCCESS) {
    throw CompileError(
        fmt::format("NVRTC failed to compile ufunc '{}' for {} ({}):\n{}\noptions: {}", ufunc_name,
                    arch, nvrtc.getErrorString(compiled), binary.log, fmt::join(options, " ")),
        ufunc_name, binary.log, options);
  }

  std::size_t cubin_size = 0;
  check_nvrtc(nvrtc, nvrtc.getCUBINSize(program.get(), &cubin_size), "nvrtcGetCUBINSize");
  binary.cubin.resize(cubin_size);
  check_nvrtc(nvrtc, nvrtc.getCUBIN(program.get(), binary.cubin.data()), "nvrtcGetCUBIN");
  std::size_t ptx_size = 0;
  check_nvrtc(nvrtc, nvrtc.getPTXSize(program.get(), &ptx_size), "nvrtcGetPTXSize");
  binary.ptx.resize(ptx_size);
  check_nvrtc(nvrtc, nvrtc.getPTX(program.get(), binary.ptx.data()), "nvrtcGetPTX");
  return binary;
}

// What a compile on a worker thread hands back; shared, so that a worker that outlives its
// caller's wait still has somewhere to put its result.
struct CompileJob {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::optional<CudaBinary> binary;
  std::exception_ptr error;
};

}  // namespace

int parse_arch(const std::string& arch) {
  const bool well_formed = arch.size() > 3 && arch.compare(0, 3, "sm_") == 0 &&
                           std::isdigit(static_cast<unsigned char>(arch[3]));
  std::size_t digits = 3;
  while (digits < arch.size() && std::isdigit(static_cast<unsigned char>(arch[digits]))) ++digits;
  // Architecture-specific suffixes ("sm_90a") are accepted as part of the name.
  if (!well_formed || (digits != arch.size() && arch.substr(digits) != "a" &&
                       arch.substr(digits) != "f")) {
    throw ArgumentError(fmt::format(
        "bad GPU architecture '{}': expected sm_<compute capability>, like sm_80 or sm_90", arch));
  }
  return std::stoi(arch.substr(3, digits - 3));
}

std::vector<std::string> nvrtc_options(const std::string& arch, bool contract) {
  parse_arch(arch);
  // -default-device: a function without __device__ is a device function, as on the host
  // (where __device__ means nothing), so both targets accept the same sources.
  return {"--gpu-architecture=" + arch, "--std=c++17", "--minimal", "-default-device",
          contract ? "-fmad=true" : "-fmad=false"};
}

std::string nvrtc_version() {
  const Nvrtc& nvrtc = compile::nvrtc();
  int major = 0, minor = 0;
  check_nvrtc(nvrtc, nvrtc.version(&major, &minor), "nvrtcVersion");
  return fmt::format("nvrtc {}.{}", major, minor);
}

std::vector<int> supported_archs() {
  const Nvrtc& nvrtc = compile::nvrtc();
  int count = 0;
  check_nvrtc(nvrtc, nvrtc.getNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (count) {
    check_nvrtc(nvrtc, nvrtc.getSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  }
  return archs;
}

std::string nvrtc_key_version() { return "nvrtc " + std::to_string(CUDA_VERSION / 1000); }

std::vector<int> archs_known_without_nvrtc() {
#if CUDA_VERSION >= 13000 && CUDA_VERSION < 14000
  return {75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};
#elif CUDA_VERSION >= 12000 && CUDA_VERSION < 13000
  return {50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90};
#else
  return {};
#endif
}

namespace {

bool known_to_every_nvrtc_of_this_major(int arch) {
  for (int known : archs_known_without_nvrtc()) {
    if (known == arch) return true;
  }
  return false;
}

}  // namespace

std::string arch_for_device(int cc_major, int cc_minor) {
  const int wanted = cc_major * 10 + cc_minor;
  if (known_to_every_nvrtc_of_this_major(wanted)) return "sm_" + std::to_string(wanted);
  int best = 0;
  for (int arch : supported_archs()) {
    if (arch <= wanted && arch > best) best = arch;
  }
  if (best == 0) {
    throw Error(fmt::format("{} cannot build code for compute capability {}.{}", nvrtc_version(),
                            cc_major, cc_minor));
  }
  if (best != wanted) {
    jitvec::detail::warn_once(
        "arch" + std::to_string(wanted),
        fmt::format("{} does not know sm_{}; building sm_{} code, which the driver JIT-compiles "
                    "from PTX",
                    nvrtc_version(), wanted, best));
  }
  return "sm_" + std::to_string(best);
}

CudaBinary compile_cuda(const std::string& source, const std::string& ufunc_name,
                        const std::string& arch, bool contract) {
  return compile_cuda(source, ufunc_name, arch, compile_time_limit(), contract);
}

CudaBinary compile_cuda(const std::string& source, const std::string& ufunc_name,
                        const std::string& arch,
                        std::optional<std::chrono::duration<double>> time_limit, bool contract) {
  const std::vector<std::string> options = nvrtc_options(arch, contract);
  const Nvrtc& nvrtc = compile::nvrtc();
  const auto started = std::chrono::steady_clock::now();

  CudaBinary binary;
  std::optional<std::thread> worker;
  auto job = std::make_shared<CompileJob>();
  if (time_limit) {
    try {
      worker.emplace([job, &nvrtc, source, ufunc_name, arch, options] {
        std::optional<CudaBinary> result;
        std::exception_ptr error;
        try {
          result = run_nvrtc(nvrtc, source, ufunc_name, arch, options);
        } catch (...) {
          error = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(job->mutex);
        job->binary = std::move(result);
        job->error = error;
        job->done = true;
        job->finished.notify_all();
      });
    } catch (const std::system_error& error) {  // no thread to be had: compile here, unbounded
      jitvec::detail::log().debug(
          "no worker thread for NVRTC ({}); compiling without a time limit", error.what());
    }
  }
  if (!worker) {
    binary = run_nvrtc(nvrtc, source, ufunc_name, arch, options);
  } else {
    std::unique_lock<std::mutex> lock(job->mutex);
    if (!job->finished.wait_for(lock, *time_limit, [&] { return job->done; })) {
      // NVRTC cannot be cancelled: the worker finishes in the background and its result is
      // dropped with the job.
      lock.unlock();
      worker->detach();
      throw CompileError(
          fmt::format("NVRTC did not finish compiling ufunc '{}' for {} within the time limit of "
                      "{:g} s (JITVEC_COMPILE_TIMEOUT; 0 means no limit); the compile was "
                      "abandoned and goes on in the background until NVRTC returns\noptions: {}",
                      ufunc_name, arch, time_limit->count(), fmt::join(options, " ")),
          ufunc_name, "", options);
    }
    lock.unlock();
    worker->join();
    if (job->error) std::rethrow_exception(job->error);
    binary = std::move(*job->binary);
  }

  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  jitvec::detail::log().debug(
      "NVRTC compiled '{}' for {} in {:.1f} ms (cubin {} bytes, PTX {} bytes)", ufunc_name, arch,
      ms, binary.cubin.size(), binary.ptx.size());
  return binary;
}

}  // namespace jitvec::compile
