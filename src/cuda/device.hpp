// src/cuda/device.hpp: the GPUs this process can see, and what the launcher and the compiler
// need to know about each.
//
// device_count() is 0 on a machine without a driver (it never throws for that), so callers
// choose a default target with it. Everything else needs the driver and throws CudaError
// without one. Device properties are read once per process, for every device at the first
// call, and then cost nothing.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>

namespace jitvec::cuda {

struct DeviceInfo {
  int ordinal = 0;
  CUdevice handle = 0;             ///< cuDeviceGet(ordinal)
  std::string name;                ///< "NVIDIA H200"
  int cc_major = 0;                ///< compute capability, 9 for sm_90
  int cc_minor = 0;                ///< 0 for sm_90
  int sm_count = 0;                ///< streaming multiprocessors
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  std::size_t total_memory = 0;    ///< bytes of device memory
  int l2_bytes = 0;                ///< L2 cache size
  bool memory_pools_supported = false;  ///< whether cuMemAllocAsync works on it
  int driver_version = 0;          ///< cuDriverGetVersion, 13000 for CUDA 13.0
};

/// The number of CUDA devices; 0 when there is no usable driver.
int device_count();

/// Device `ordinal`'s properties. Throws CudaError without a driver, TargetError for an
/// ordinal outside [0, device_count()).
const DeviceInfo& device_info(int ordinal);

/// The device's real architecture as NVRTC names it: "sm_90" for compute capability 9.0.
std::string arch_name(int ordinal);

}  // namespace jitvec::cuda
