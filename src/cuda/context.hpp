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
//
// Each thread remembers which context it last saw current (set by a guard's own query, set or
// pop). A guard made with Trust::thread_cache believes that memory and asks the driver nothing
// when it names the wanted context: a cached call's one driver call is then its launch. Another
// library may have changed the thread's context since (cudaSetDevice, cuCtxSetCurrent), so
// such a guard serves only a kernel launch, which fails harmlessly in the wrong context
// (CUDA_ERROR_INVALID_HANDLE or CUDA_ERROR_INVALID_CONTEXT): cuda::launch then calls verify()
// and launches again. Allocations, copies and frees never trust the memory.
#pragma once

#include <cuda.h>

namespace jitvec::cuda {

/// Device `device`'s primary context, retained at the first call. Throws CudaError without a
/// driver, TargetError for a device that does not exist.
CUcontext primary_context(int device);

class ContextGuard {
 public:
  enum class Trust {
    driver,        // ask the driver (cuCtxGetCurrent) which context is current
    thread_cache,  // believe the thread's memory when it names this device's context
  };
  /// Makes `device`'s primary context current on this thread until the guard is destroyed.
  explicit ContextGuard(int device, Trust trust = Trust::driver);
  ~ContextGuard();
  ContextGuard(const ContextGuard&) = delete;
  ContextGuard& operator=(const ContextGuard&) = delete;

  /// Whether the guard believed the thread's memory without asking the driver.
  bool trusted_cache() const noexcept { return trusted_; }
  /// Asks the driver and makes the context current as a Trust::driver guard would (after a
  /// launch refused for its context, when trusted_cache()); the guard then trusts nothing.
  void verify();

 private:
  void make_current();

  CUcontext ours_ = nullptr;
  CUcontext previous_ = nullptr;  // what a pushed guard's pop makes current again
  bool pushed_ = false;           // whether the destructor pops the context it pushed
  bool trusted_ = false;
};

/// Runs `before` once in the process, on the thread that first retains a primary context, just
/// before it does, and `after` once that retain has ended (made the context or failed): the
/// engine starts loading NVRTC on another thread in `before`, so that its tens of milliseconds
/// overlap the context's creation (a hundred or more), and waits for it in `after`, so that no
/// library is still being loaded when the process exits (a dlopen whose initializers run while
/// exit handlers do can crash). Set before any context.
void set_first_context_hook(void (*before)(), void (*after)()) noexcept;

/// Forgets what this thread remembers of its current context (the next Trust::thread_cache
/// guard asks the driver). For code that changes the thread's context without a ContextGuard.
void forget_current_context() noexcept;

}  // namespace jitvec::cuda
