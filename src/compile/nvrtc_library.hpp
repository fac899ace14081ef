// src/compile/nvrtc_library.hpp: NVRTC, loaded at run time instead of linked.
//
// A program that uses only the cpu targets must run on machines without the CUDA toolkit, so
// jitvec never links libnvrtc: nvrtc() dlopen()s it at the first GPU compile (or the first
// question about NVRTC's version or architectures) and looks up the few entry points below.
// nvrtc.h is a build-time header only: its declarations give the entry points' types.
//
// Which library: $JITVEC_NVRTC when set and not empty (a path, or a name for dlopen's search),
// and nothing else; otherwise libnvrtc.so.<the CUDA major version jitvec was built with> from
// the library search path, then the same file in the build machine's toolkit, then plain
// libnvrtc.so. The outcome, loaded or not, is the process's for good (as for the driver):
// a failure is a CudaError (code -1, message starting "no NVRTC") that names every library
// tried, why each failed, and how to point jitvec at one. A loaded NVRTC is never unloaded:
// compiles that outlived their time limit may still be running in it.
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

namespace jitvec::compile {

// X(member, symbol): Nvrtc::member points at NVRTC's `symbol`, with the type nvrtc.h gives it.
#define JITVEC_NVRTC_FUNCTIONS(X)                      \
  X(getErrorString, nvrtcGetErrorString)               \
  X(version, nvrtcVersion)                             \
  X(getNumSupportedArchs, nvrtcGetNumSupportedArchs)   \
  X(getSupportedArchs, nvrtcGetSupportedArchs)         \
  X(createProgram, nvrtcCreateProgram)                 \
  X(destroyProgram, nvrtcDestroyProgram)               \
  X(compileProgram, nvrtcCompileProgram)               \
  X(getProgramLogSize, nvrtcGetProgramLogSize)         \
  X(getProgramLog, nvrtcGetProgramLog)                 \
  X(getCUBINSize, nvrtcGetCUBINSize)                   \
  X(getCUBIN, nvrtcGetCUBIN)                           \
  X(getPTXSize, nvrtcGetPTXSize)                       \
  X(getPTX, nvrtcGetPTX)

/// NVRTC's entry points (members named like the functions, without "nvrtc") and the library
/// they came from.
struct Nvrtc {
#define JITVEC_NVRTC_DECLARE_ENTRY_POINT(member, symbol) decltype(&::symbol) member = nullptr;
  JITVEC_NVRTC_FUNCTIONS(JITVEC_NVRTC_DECLARE_ENTRY_POINT)
#undef JITVEC_NVRTC_DECLARE_ENTRY_POINT
  std::string path;
};

/// The process's NVRTC, loaded at the first call. Throws CudaError (code -1, "no NVRTC: ...")
/// when none can be loaded; later calls throw the same error without trying again.
const Nvrtc& nvrtc();

/// Whether nvrtc() succeeds. Never throws.
bool nvrtc_available() noexcept;

/// Loads NVRTC (nvrtc()) and the builtins library it opens at its first compile, ahead of
/// that compile; a failure is kept for nvrtc() to report, never reported here. Never throws.
void preload_nvrtc() noexcept;

namespace detail {

/// The libraries nvrtc() tries, in order: [$JITVEC_NVRTC] when it is set and not empty, else
/// the defaults described at the top of this file.
std::vector<std::string> nvrtc_library_candidates();

/// One fresh attempt to load NVRTC from the first of `candidates` that loads (dlopen's search
/// rules), independent of the process's nvrtc(): returns the entry points or throws CudaError
/// as nvrtc() would. A library that loads but lacks an entry point is closed again.
Nvrtc load_nvrtc_from(const std::vector<std::string>& candidates);

}  // namespace detail
}  // namespace jitvec::compile
