// src/cuda/module.hpp: a compiled loop loaded onto one device.
//
// Module::load() gives the driver the cubin NVRTC built for the device's exact architecture;
// when there is none, or the driver refuses it (a cubin for another GPU, a corrupt or too-new
// image), it falls back to the PTX, which the driver JIT-compiles for whatever GPU it has, and
// logs at debug level why. Only when both fail does it throw, with both reasons. A Module owns
// its CUmodule and unloads it (in its device's primary context) when destroyed; at process exit,
// when the driver may already be shut down, the unload is skipped quietly.
#pragma once

#include <cuda.h>

#include <string_view>

namespace jitvec::cuda {

class Module {
 public:
  /// Loads `cubin` (else `ptx`) into `device`'s primary context. Either may be empty, not both
  /// (ArgumentError). Throws CudaError when neither loads.
  static Module load(int device, std::string_view cubin, std::string_view ptx);

  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  /// The kernel `name` (its mangled or extern "C" name). Throws CudaError naming it when the
  /// module has no such kernel.
  CUfunction function(const char* name) const;

  int device() const noexcept { return device_; }
  /// Whether the driver JIT-compiled the PTX because the cubin was missing or refused.
  bool from_ptx() const noexcept { return from_ptx_; }

 private:
  Module(int device, CUmodule handle, bool from_ptx) noexcept
      : device_(device), handle_(handle), from_ptx_(from_ptx) {}
  void unload() noexcept;

  int device_ = -1;
  CUmodule handle_ = nullptr;
  bool from_ptx_ = false;
};

}  // namespace jitvec::cuda
