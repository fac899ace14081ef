#include "compile/nvrtc_compiler.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include <cctype>
#include <chrono>
#include <memory>

#include "core/log.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::compile {
namespace {

void check_nvrtc(nvrtcResult result, const char* call) {
  if (result != NVRTC_SUCCESS) {
    throw Error(fmt::format("{} failed: {}", call, nvrtcGetErrorString(result)));
  }
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* program) const {
    nvrtcDestroyProgram(program);
    delete program;
  }
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

std::vector<std::string> nvrtc_options(const std::string& arch) {
  parse_arch(arch);
  return {"--gpu-architecture=" + arch, "--std=c++17", "--minimal"};
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check_nvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return fmt::format("nvrtc {}.{}", major, minor);
}

std::vector<int> supported_archs() {
  int count = 0;
  check_nvrtc(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (count) check_nvrtc(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  return archs;
}

std::string arch_for_device(int cc_major, int cc_minor) {
  const int wanted = cc_major * 10 + cc_minor;
  int best = 0;
  for (int arch : supported_archs()) {
    if (arch <= wanted && arch > best) best = arch;
  }
  if (best == 0) {
    throw Error(fmt::format("{} cannot build code for compute capability {}.{}", nvrtc_version(),
                            cc_major, cc_minor));
  }
  if (best != wanted) {
    detail::warn_once("arch" + std::to_string(wanted),
                      fmt::format("{} does not know sm_{}; building sm_{} code, which the "
                                  "driver JIT-compiles from PTX",
                                  nvrtc_version(), wanted, best));
  }
  return "sm_" + std::to_string(best);
}

CudaBinary compile_cuda(const std::string& source, const std::string& ufunc_name,
                        const std::string& arch) {
  const std::vector<std::string> options = nvrtc_options(arch);
  const auto started = std::chrono::steady_clock::now();

  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram{});
  check_nvrtc(nvrtcCreateProgram(program.get(), source.c_str(),
                                 (ufunc_name + ".cu").c_str(), 0, nullptr, nullptr),
              "nvrtcCreateProgram");
  std::vector<const char*> option_pointers;
  for (const std::string& o : options) option_pointers.push_back(o.c_str());
  const nvrtcResult compiled = nvrtcCompileProgram(
      *program, static_cast<int>(option_pointers.size()), option_pointers.data());

  CudaBinary binary;
  std::size_t log_size = 0;
  check_nvrtc(nvrtcGetProgramLogSize(*program, &log_size), "nvrtcGetProgramLogSize");
  binary.log.resize(log_size);
  if (log_size) check_nvrtc(nvrtcGetProgramLog(*program, binary.log.data()), "nvrtcGetProgramLog");
  while (!binary.log.empty() && (binary.log.back() == '\0' || binary.log.back() == '\n')) {
    binary.log.pop_back();
  }
  if (compiled != NVRTC_SUCCESS) {
    throw CompileError(
        fmt::format("NVRTC failed to compile ufunc '{}' for {} ({}):\n{}\noptions: {}", ufunc_name,
                    arch, nvrtcGetErrorString(compiled), binary.log, fmt::join(options, " ")),
        ufunc_name, binary.log, options);
  }

  std::size_t cubin_size = 0;
  check_nvrtc(nvrtcGetCUBINSize(*program, &cubin_size), "nvrtcGetCUBINSize");
  binary.cubin.resize(cubin_size);
  check_nvrtc(nvrtcGetCUBIN(*program, binary.cubin.data()), "nvrtcGetCUBIN");
  std::size_t ptx_size = 0;
  check_nvrtc(nvrtcGetPTXSize(*program, &ptx_size), "nvrtcGetPTXSize");
  binary.ptx.resize(ptx_size);
  check_nvrtc(nvrtcGetPTX(*program, binary.ptx.data()), "nvrtcGetPTX");

  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  detail::log().debug("NVRTC compiled '{}' for {} in {:.1f} ms (cubin {} bytes, PTX {} bytes)",
                      ufunc_name, arch, ms, binary.cubin.size(), binary.ptx.size());
  return binary;
}

}  // namespace jitvec::compile
