// src/engine/cuda_loop.hpp: one loop's module on one device, and its kernels, each loaded the
// first time a launch asks for it.
//
// A loop module holds every kernel of src/kernels/kernel_abi.hpp's table, and a copy of each
// pattern-specialized one per fixed scalar pattern; a program usually launches one or two. With
// CUDA's lazy loading (the driver's default since CUDA 12.2) cuModuleGetFunction is what uploads
// a kernel's code to the GPU, so CudaLoop resolves each kernel only when kernel() first asks for
// it: a process's first call loads the one kernel it runs. Resolution is thread-safe (two threads
// racing both store the same handle). Kernels that take large dynamic shared memory get their
// limit raised as they are resolved.
#pragma once

#include <cuda.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "cuda/module.hpp"
#include "kernels/choose_kernel.hpp"
#include "kernels/kernel_abi.hpp"

namespace jitvec::engine {

class CudaLoop {
 public:
  CudaLoop(cuda::Module module, const codegen::LoopSpec& spec);
  CudaLoop(const CudaLoop&) = delete;
  CudaLoop& operator=(const CudaLoop&) = delete;

  /// The kernel of `kind`: the copy compiled for the fixed pattern `scalar_mask` when there is
  /// one, else the run-time one. Throws CudaError when the module lacks it.
  CUfunction kernel(kernels::KernelKind kind, std::uint32_t scalar_mask) const;
  /// Blocks of jitvec_contig that fill the device once (its grid-stride loop does the rest).
  unsigned one_wave() const;

  /// What kernels::choose_kernel needs to know of this module.
  const kernels::LoopTraits traits;
  /// Where each argument goes in the argument image.
  const kernels::ArgLayout layout;
  /// Bytes per element as stored: the inputs', then the outputs' (kernels::CallOperands's
  /// order), so a launch does not look dtypes up.
  const std::array<std::uint8_t, launch::kMaxOperands + 1> element_bytes;

 private:
  struct Slot {
    std::string name;
    bool large_shared = false;
    mutable std::atomic<CUfunction> function{nullptr};
  };
  CUfunction resolve(const Slot& slot) const;
  const Slot& slot(kernels::KernelKind kind, std::uint32_t scalar_mask) const;

  cuda::Module module_;
  int max_shared_bytes_;
  std::vector<std::uint32_t> specialized_masks_;
  // The run-time kernels in kernel_abi's order, then, for each specialized mask, a copy of
  // every pattern-specialized kind in the same order.
  std::unique_ptr<Slot[]> slots_;
  int specialized_kinds_ = 0;
  mutable std::atomic<unsigned> one_wave_{0};
};

}  // namespace jitvec::engine
