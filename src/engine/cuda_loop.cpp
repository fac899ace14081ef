#include "engine/cuda_loop.hpp"

#include <algorithm>

#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "cuda/launch.hpp"

namespace jitvec::engine {
namespace {

constexpr int kKinds = 7;
constexpr const char* kKindNames[kKinds] = {"jitvec_contig_vec", "jitvec_contig",
                                            "jitvec_strided32",  "jitvec_strided64",
                                            "jitvec_rows2d",     "jitvec_rows2d_vec",
                                            "jitvec_tiled2d"};

}  // namespace

CudaLoop::CudaLoop(cuda::Module module, const codegen::LoopSpec& spec)
    : vector_shape(codegen::contig_vector_shape(spec)),
      module_(std::move(module)),
      has_tiled_(codegen::has_tiled_kernel(spec)),
      // Tiles past 48 KiB of dynamic shared memory must be allowed explicitly.
      max_tiled_bytes_(std::min<int>(codegen::kMaxTiledInputs, static_cast<int>(spec.inputs.size())) *
                       codegen::kTiledSlotBytes),
      specialized_masks_(codegen::specialized_scalar_masks(spec)),
      slots_(new Slot[kKinds + 2 * specialized_masks_.size()]) {
  for (int k = 0; k < kKinds; ++k) slots_[k].name = kKindNames[k];
  slots_[static_cast<int>(KernelKind::tiled2d)].tiled = true;
  for (std::size_t i = 0; i < specialized_masks_.size(); ++i) {
    Slot& contig = slots_[kKinds + 2 * i];
    Slot& tiled = slots_[kKinds + 2 * i + 1];
    contig.name = codegen::contig_vec_kernel_name(specialized_masks_[i]);
    tiled.name = codegen::tiled_kernel_name(specialized_masks_[i]);
    tiled.tiled = true;
  }
}

CUfunction CudaLoop::resolve(const Slot& slot) const {
  if (CUfunction known = slot.function.load(std::memory_order_acquire)) return known;
  const CUfunction function = module_.function(slot.name.c_str());
  if (slot.tiled) {
    const std::string call = "cuFuncSetAttribute(" + slot.name + ")";
    cuda::check(cuda::driver().funcSetAttribute(
                    function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, max_tiled_bytes_),
                call.c_str());
  }
  slot.function.store(function, std::memory_order_release);
  return function;
}

CUfunction CudaLoop::kernel(KernelKind kind, std::uint32_t scalar_mask) const {
  if (kind == KernelKind::contig_vec || kind == KernelKind::tiled2d) {
    for (std::size_t i = 0; i < specialized_masks_.size(); ++i) {
      if (specialized_masks_[i] == scalar_mask) {
        return resolve(slots_[kKinds + 2 * i + (kind == KernelKind::tiled2d ? 1 : 0)]);
      }
    }
  }
  return resolve(slots_[static_cast<int>(kind)]);
}

unsigned CudaLoop::contig_wave() const {
  if (unsigned known = contig_wave_.load(std::memory_order_relaxed)) return known;
  const int per_sm = cuda::max_active_blocks_per_sm(kernel(KernelKind::contig, 0), codegen::kCudaBlock);
  const auto wave = static_cast<unsigned>(cuda::device_info(module_.device()).sm_count *
                                          std::max(1, per_sm));
  contig_wave_.store(wave, std::memory_order_relaxed);
  return wave;
}

}  // namespace jitvec::engine
