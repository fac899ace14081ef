// src/compile/nvrtc_compiler.hpp: CUDA C++ source -> cubin (+ PTX) through NVRTC.
//
// compile_cuda() runs NVRTC once on a generated source for one GPU architecture and returns
// the cubin for that exact architecture (`nvrtcGetCUBIN`) and the PTX for the matching virtual
// architecture (the portable fallback, JIT-compiled by the driver for newer GPUs). A rejected
// source throws CompileError carrying NVRTC's log, the options and the ufunc's name; nothing
// half-built escapes. NVRTC needs no GPU, so this runs in CI and in `jitvec compile` anywhere.
// NVRTC itself is loaded at the first use (nvrtc_library.hpp); where there is none, every
// function here that needs it throws CudaError "no NVRTC: ...". A compile is bounded by
// JITVEC_COMPILE_TIMEOUT (compile_time_limit.hpp): it runs on a worker thread, and when the
// limit passes the caller gets a CompileError while the worker, which NVRTC gives no way to
// stop, finishes in the background and its result is thrown away.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace jitvec::compile {

struct CudaBinary {
  std::string cubin;
  std::string ptx;
  std::string log;  // warnings, if any
};

/// "sm_90" -> 90; throws ArgumentError for anything that is not sm_<digits>.
int parse_arch(const std::string& arch);

/// The options compile_cuda() passes for `arch` (part of the cache key). `-fmad=false` unless
/// `contract`: a * b + c stays two IEEE roundings, as on the host (-ffp-contract=off) and in
/// NumPy, so every target gives the same bits; `contract` (a ufunc's fastmath) lets NVRTC fuse
/// it into an FMA.
std::vector<std::string> nvrtc_options(const std::string& arch, bool contract = false);

/// "nvrtc 13.0" (loads NVRTC).
std::string nvrtc_version();

/// What the cache key says of the compiler, without loading NVRTC: "nvrtc 13", the major version
/// of the toolkit jitvec was built with (whose libnvrtc.so.<major> it loads). Cubins from any
/// NVRTC of one major version are interchangeable, so a warm start (every loop in the disk
/// cache) needs no NVRTC at all: a CPU-only deployment with a precompiled cache runs GPU loops.
std::string nvrtc_key_version();

/// The real architectures this NVRTC can build cubins for (75, 80, ..., 120).
std::vector<int> supported_archs();

/// The architecture to build for a device of compute capability major.minor: its own when NVRTC
/// supports it, else the newest supported one below it (the driver then JIT-compiles the PTX).
/// Architectures every NVRTC of the build's major version supports are answered without
/// loading NVRTC; others ask it.
std::string arch_for_device(int cc_major, int cc_minor);
/// Those architectures: every NVRTC of the build's CUDA major version supports them.
std::vector<int> archs_known_without_nvrtc();

/// Compiles under the limit from JITVEC_COMPILE_TIMEOUT, with nvrtc_options(arch, contract).
CudaBinary compile_cuda(const std::string& source, const std::string& ufunc_name,
                        const std::string& arch, bool contract = false);

/// Compiles under `time_limit` (nullopt: no limit, on the calling thread).
CudaBinary compile_cuda(const std::string& source, const std::string& ufunc_name,
                        const std::string& arch,
                        std::optional<std::chrono::duration<double>> time_limit, bool contract = false);

}  // namespace jitvec::compile
