// src/engine/cuda_loop.hpp: one loop's module on one device, and its kernels, each loaded the
// first time a launch asks for it.
//
// A loop module holds up to eleven kernels (codegen/cuda_source.hpp); a program usually
// launches one or two of them. With CUDA's lazy loading (the driver's default since CUDA 12.2)
// cuModuleGetFunction is what uploads a kernel's code to the GPU, so CudaLoop resolves each
// kernel only when kernel() first asks for it: a process's first call loads the one kernel it
// runs. Resolution is thread-safe (two threads racing both store the same handle). The tiled
// kernels get their dynamic shared-memory limit raised as they are resolved.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen/cuda_source.hpp"
#include "codegen/loop_spec.hpp"
#include "cuda/module.hpp"

namespace jitvec::engine {

/// The kernels of a loop module, as codegen/cuda_source.hpp names them.
enum class KernelKind : int { contig_vec, contig, strided32, strided64, rows2d, rows2d_vec, tiled2d };

class CudaLoop {
 public:
  CudaLoop(cuda::Module module, const codegen::LoopSpec& spec);
  CudaLoop(const CudaLoop&) = delete;
  CudaLoop& operator=(const CudaLoop&) = delete;

  /// The kernel of `kind`. For contig_vec and tiled2d, the one compiled for the fixed pattern
  /// `scalar_mask` when there is one (codegen::specialized_scalar_masks()), else the run-time
  /// one. Throws CudaError when the module lacks it.
  CUfunction kernel(KernelKind kind, std::uint32_t scalar_mask) const;
  /// Whether the module has jitvec_tiled2d (every loop with inputs has).
  bool has_tiled() const noexcept { return has_tiled_; }
  /// Blocks of jitvec_contig that fill the device once (its grid-stride loop does the rest).
  unsigned contig_wave() const;

  const codegen::ContigVectorShape vector_shape;

 private:
  struct Slot {
    std::string name;
    bool tiled = false;
    mutable std::atomic<CUfunction> function{nullptr};
  };
  CUfunction resolve(const Slot& slot) const;

  cuda::Module module_;
  bool has_tiled_;
  int max_tiled_bytes_;
  std::vector<std::uint32_t> specialized_masks_;
  // Slots 0..6: the KernelKinds; then contig_vec and tiled2d of each specialized mask.
  std::unique_ptr<Slot[]> slots_;
  mutable std::atomic<unsigned> contig_wave_{0};
};

}  // namespace jitvec::engine
