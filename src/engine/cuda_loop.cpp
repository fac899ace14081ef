#include "engine/cuda_loop.hpp"

#include <algorithm>

#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "cuda/launch.hpp"
#include "kernels/tiled.hpp"

namespace jitvec::engine {

using kernels::KernelKind;

namespace {

std::array<std::uint8_t, launch::kMaxOperands + 1> element_bytes_of(const codegen::LoopSpec& spec) {
  std::array<std::uint8_t, launch::kMaxOperands + 1> bytes{};
  std::size_t next = 0;
  for (DType t : spec.inputs) bytes[next++] = static_cast<std::uint8_t>(dtype_size(t));
  for (DType t : spec.outputs) bytes[next++] = static_cast<std::uint8_t>(dtype_size(t));
  return bytes;
}

int count_specialized_kinds() {
  int count = 0;
  for (const auto& k : kernels::kKernels) count += k.pattern_specialized ? 1 : 0;
  return count;
}

}  // namespace

CudaLoop::CudaLoop(cuda::Module module, const codegen::LoopSpec& spec)
    : traits(kernels::LoopTraits::of(spec)),
      layout(kernels::arg_layout(spec)),
      element_bytes(element_bytes_of(spec)),
      module_(std::move(module)),
      // Tiles past 48 KiB of dynamic shared memory must be allowed explicitly.
      max_shared_bytes_(std::min<int>(kernels::kMaxTiledInputs, static_cast<int>(spec.inputs.size())) *
                        kernels::kTiledSlotBytes),
      specialized_masks_(kernels::specialized_scalar_masks(spec)),
      specialized_kinds_(count_specialized_kinds()) {
  slots_.reset(new Slot[kernels::kKernelKinds + specialized_masks_.size() * specialized_kinds_]);
  int next = 0;
  for (const auto& k : kernels::kKernels) {
    slots_[next].name = kernels::kernel_name(k.kind);
    slots_[next++].large_shared = k.large_shared;
  }
  for (std::uint32_t mask : specialized_masks_) {
    for (const auto& k : kernels::kKernels) {
      if (!k.pattern_specialized) continue;
      // A pattern without its own copy of this kind resolves to the run-time kernel.
      slots_[next].name = kernels::has_pattern_copy(k.kind, mask) ? kernels::kernel_name(k.kind, mask)
                                                                  : kernels::kernel_name(k.kind);
      slots_[next++].large_shared = k.large_shared;
    }
  }
}

namespace {

// Each kind's position among the pattern-specialized kinds (-1 for the others), once.
constexpr std::array<int, kernels::kKernelKinds> specialized_positions() {
  std::array<int, kernels::kKernelKinds> positions{};
  int next = 0;
  for (int k = 0; k < kernels::kKernelKinds; ++k) {
    positions[k] = kernels::kKernels[k].pattern_specialized ? next++ : -1;
  }
  return positions;
}
constexpr std::array<int, kernels::kKernelKinds> kSpecializedPosition = specialized_positions();

}  // namespace

const CudaLoop::Slot& CudaLoop::slot(KernelKind kind, std::uint32_t scalar_mask) const {
  const int position = kSpecializedPosition[static_cast<int>(kind)];
  if (position >= 0) {
    for (std::size_t i = 0; i < specialized_masks_.size(); ++i) {
      if (specialized_masks_[i] == scalar_mask) {
        return slots_[kernels::kKernelKinds + static_cast<int>(i) * specialized_kinds_ + position];
      }
    }
  }
  return slots_[static_cast<int>(kind)];
}

CUfunction CudaLoop::resolve(const Slot& slot) const {
  if (CUfunction known = slot.function.load(std::memory_order_acquire)) return known;
  const CUfunction function = module_.function(slot.name.c_str());
  if (slot.large_shared) {
    const std::string call = "cuFuncSetAttribute(" + slot.name + ")";
    cuda::check(cuda::driver().funcSetAttribute(
                    function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, max_shared_bytes_),
                call.c_str());
  }
  slot.function.store(function, std::memory_order_release);
  return function;
}

CUfunction CudaLoop::kernel(KernelKind kind, std::uint32_t scalar_mask) const {
  return resolve(slot(kind, scalar_mask));
}

unsigned CudaLoop::one_wave() const {
  if (unsigned known = one_wave_.load(std::memory_order_relaxed)) return known;
  const int per_sm =
      cuda::max_active_blocks_per_sm(kernel(KernelKind::contig, 0), kernels::kCudaBlock);
  const auto wave = static_cast<unsigned>(cuda::device_info(module_.device()).sm_count *
                                          std::max(1, per_sm));
  one_wave_.store(wave, std::memory_order_relaxed);
  return wave;
}

}  // namespace jitvec::engine
