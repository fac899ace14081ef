// src/cuda/context.hpp: which CUDA context jitvec's driver calls run in.
//
// jitvec runs everything in each device's PRIMARY context, the one the CUDA runtime (and so
// CuPy, PyTorch, cuBLAS...) uses too, so device pointers and streams pass freely between them
// in one process. A device's primary context is retained the first time it is needed and kept
// until the process exits; at that first retain the device's default memory pool is told to
// keep freed memory (release threshold UINT64_MAX) and is warmed up with one allocation, so
// stream-ordered allocations, the process's first included, are cheap.
//
// ContextGuard makes a device's primary context current for a scope, disturbing the thread's
// own choice as little as possible: nothing to do when it is already current (the common case:
// one cuCtxGetCurrent call), cuCtxSetCurrent when the thread has no context (it stays current
// afterwards, as the runtime would leave it), and push/pop around the scope when the thread
// has another context current.
#pragma once

#include <cuda.h>

namespace jitvec::cuda {

/// Device `device`'s primary context, retained at the first call. Throws CudaError without a
/// driver, TargetError for a device that does not exist.
CUcontext primary_context(int device);

class ContextGuard {
 public:
  /// Makes `device`'s primary context current on this thread until the guard is destroyed.
  explicit ContextGuard(int device);
  ~ContextGuard();
  ContextGuard(const ContextGuard&) = delete;
  ContextGuard& operator=(const ContextGuard&) = delete;

 private:
  bool pushed_ = false;  // whether the destructor pops the context the constructor pushed
};

}  // namespace jitvec::cuda
