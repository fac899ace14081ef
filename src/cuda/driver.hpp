// src/cuda/driver.hpp: the CUDA Driver API, loaded at run time instead of linked.
//
// jitvec must start, and run its CPU targets, on machines without an NVIDIA driver, so it never
// links libcuda. driver() dlopen()s libcuda.so.1 (or the file named by JITVEC_CUDA_DRIVER, read
// at the first call) once per process, finds cuGetProcAddress_v2 and asks it for every entry
// point below, then calls cuInit. Each entry point is requested at the CUDA version of the
// cudaTypedefs.h prototype its member is declared with (the version cuda.h's own name for it
// maps to: cuMemAlloc -> cuMemAlloc_v2 -> PFN_cuMemAlloc_v3020), so the pointer's type always
// matches the function the driver hands back, whatever the driver's version. (Asking at
// CUDA_VERSION would not: at 13000 "cuCtxSynchronize" is the variant that takes a CUcontext,
// and a 12.x driver refuses every request above its own version.)
//
// Use cuda.h's types everywhere, but call the driver only through driver().<member>, and check
// each CUresult with check(result, "cuName"), which throws CudaError naming the call and the
// driver's name and text for the error. A loaded driver is never unloaded: modules and
// allocations released during static destruction still need it.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>
#include <string_view>

namespace jitvec::cuda {

// X(member, symbol, version): Driver::member has type PFN_<symbol>_v<version> and holds the
// driver's <symbol> at that version. The error-text entry points come first so that a
// failure further down can be described by name.
#define JITVEC_CUDA_DRIVER_FUNCTIONS(X)                                                 \
  X(getErrorName, cuGetErrorName, 6000)                                                 \
  X(getErrorString, cuGetErrorString, 6000)                                             \
  X(driverGetVersion, cuDriverGetVersion, 2020)                                         \
  X(init, cuInit, 2000)                                                                 \
  X(deviceGetCount, cuDeviceGetCount, 2000)                                             \
  X(deviceGet, cuDeviceGet, 2000)                                                       \
  X(deviceGetName, cuDeviceGetName, 2000)                                               \
  X(deviceGetAttribute, cuDeviceGetAttribute, 2000)                                     \
  X(deviceTotalMem, cuDeviceTotalMem, 3020)                                             \
  X(devicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, 7000)                             \
  X(devicePrimaryCtxRelease, cuDevicePrimaryCtxRelease, 11000)                          \
  X(ctxGetCurrent, cuCtxGetCurrent, 4000)                                               \
  X(ctxSetCurrent, cuCtxSetCurrent, 4000)                                               \
  X(ctxPushCurrent, cuCtxPushCurrent, 4000)                                             \
  X(ctxPopCurrent, cuCtxPopCurrent, 4000)                                               \
  X(ctxSynchronize, cuCtxSynchronize, 2000)                                             \
  X(moduleLoadData, cuModuleLoadData, 2000)                                             \
  X(moduleUnload, cuModuleUnload, 2000)                                                 \
  X(moduleGetFunction, cuModuleGetFunction, 2000)                                       \
  X(funcGetAttribute, cuFuncGetAttribute, 2020)                                         \
  X(funcSetAttribute, cuFuncSetAttribute, 9000)                                         \
  X(launchKernel, cuLaunchKernel, 4000)                                                 \
  X(occupancyMaxActiveBlocksPerMultiprocessor, cuOccupancyMaxActiveBlocksPerMultiprocessor, \
    6050)                                                                               \
  X(memAlloc, cuMemAlloc, 3020)                                                         \
  X(memFree, cuMemFree, 3020)                                                           \
  X(memAllocAsync, cuMemAllocAsync, 11020)                                              \
  X(memFreeAsync, cuMemFreeAsync, 11020)                                                \
  X(deviceGetDefaultMemPool, cuDeviceGetDefaultMemPool, 11020)                          \
  X(memPoolSetAttribute, cuMemPoolSetAttribute, 11020)                                  \
  X(memcpyHtoDAsync, cuMemcpyHtoDAsync, 3020)                                           \
  X(memcpyDtoHAsync, cuMemcpyDtoHAsync, 3020)                                           \
  X(memcpyDtoDAsync, cuMemcpyDtoDAsync, 3020)                                           \
  X(memcpyDtoD, cuMemcpyDtoD, 3020)                                                     \
  X(memsetD8Async, cuMemsetD8Async, 3020)                                               \
  X(memHostAlloc, cuMemHostAlloc, 2020)                                                 \
  X(memFreeHost, cuMemFreeHost, 2000)                                                   \
  X(memHostRegister, cuMemHostRegister, 6050)                                           \
  X(memHostUnregister, cuMemHostUnregister, 4000)                                       \
  X(pointerGetAttribute, cuPointerGetAttribute, 4000)                                   \
  X(streamCreate, cuStreamCreate, 2000)                                                 \
  X(streamDestroy, cuStreamDestroy, 4000)                                               \
  X(streamSynchronize, cuStreamSynchronize, 2000)                                       \
  X(streamWaitEvent, cuStreamWaitEvent, 3020)                                           \
  X(eventCreate, cuEventCreate, 2000)                                                   \
  X(eventDestroy, cuEventDestroy, 4000)                                                 \
  X(eventRecord, cuEventRecord, 2000)                                                   \
  X(eventSynchronize, cuEventSynchronize, 2000)                                         \
  X(eventElapsedTime, cuEventElapsedTime, 12080)                                        \
  X(streamBeginCapture, cuStreamBeginCapture, 10010)                                    \
  X(streamEndCapture, cuStreamEndCapture, 10000)                                        \
  X(streamIsCapturing, cuStreamIsCapturing, 10000)                                      \
  X(graphGetNodes, cuGraphGetNodes, 10000)                                              \
  X(graphInstantiateWithFlags, cuGraphInstantiateWithFlags, 11040)                      \
  X(graphUpload, cuGraphUpload, 11010)                                                  \
  X(graphLaunch, cuGraphLaunch, 10000)                                                  \
  X(graphExecDestroy, cuGraphExecDestroy, 10000)                                        \
  X(graphDestroy, cuGraphDestroy, 10000)

/// The driver's entry points (members named like the functions, without "cu"), and the CUDA
/// version the driver supports.
struct Driver {
#define JITVEC_CUDA_DECLARE_ENTRY_POINT(member, symbol, version) \
  PFN_##symbol##_v##version member = nullptr;
  JITVEC_CUDA_DRIVER_FUNCTIONS(JITVEC_CUDA_DECLARE_ENTRY_POINT)
#undef JITVEC_CUDA_DECLARE_ENTRY_POINT

  /// cuDriverGetVersion: 1000 * major + 10 * minor (13000 for CUDA 13.0).
  int version = 0;
};

/// The process's driver, loaded and initialised at the first call. Throws CudaError when there
/// is none: code -1 and a message starting "no CUDA driver" when the library cannot be loaded
/// (or is not a driver); the CUresult when cuInit or an entry-point lookup fails. The failure
/// is remembered: later calls throw the same error without trying again.
const Driver& driver();

/// Whether driver() succeeds. Never throws.
bool driver_available() noexcept;

/// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", from the driver's own names; "CUresult 2"
/// when no driver is loaded.
std::string error_text(CUresult result);

/// Throws CudaError "<what> failed: <error_text(result)>" with `result` as its code.
[[noreturn]] void throw_error(CUresult result, std::string_view what);

/// Throws CudaError naming `call` unless `result` is CUDA_SUCCESS. Costs one comparison on
/// success.
inline void check(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS) throw_error(result, call);
}

namespace detail {

/// The library driver() loads: $JITVEC_CUDA_DRIVER if set and not empty, else "libcuda.so.1".
std::string driver_library_path();

/// One fresh attempt to load and initialise the driver from `path` (dlopen's search rules),
/// independent of the process's driver(): returns the entry points or throws CudaError as
/// driver() would. A driver that loads stays loaded; a library that fails is closed again.
Driver load_driver_from(const std::string& path);

}  // namespace detail
}  // namespace jitvec::cuda
