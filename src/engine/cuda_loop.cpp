#include "engine/cuda_loop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "core/log.hpp"
#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "cuda/launch.hpp"
#include "jitvec/errors.hpp"
#include "kernels/kernel_kinds.hpp"
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

}  // namespace

CudaLoop::CudaLoop(const codegen::LoopSpec& spec, int device, ModuleBuilder build, bool stand_ins)
    : traits(kernels::LoopTraits::of(spec)),
      layout(kernels::arg_layout(spec)),
      element_bytes(element_bytes_of(spec)),
      build_(std::move(build)),
      device_(device),
      stand_ins_(stand_ins),
      // Tiles past 48 KiB of dynamic shared memory must be allowed explicitly.
      max_shared_bytes_(std::min<int>(kernels::kMaxTiledInputs, static_cast<int>(spec.inputs.size())) *
                        kernels::kTiledSlotBytes),
      specialized_masks_(kernels::specialized_scalar_masks(spec)) {
  const std::vector<kernels::KernelVariant> variants = kernels::module_variants(spec);
  slots_.reset(new Slot[variants.size()]);
  for (auto& row : slot_of_) row.fill(-1);
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const kernels::KernelVariant& v = variants[i];
    slots_[i].name = kernels::kernel_name(v);
    slots_[i].large_shared = kernels::kind_row(v.kind).large_shared;
    std::array<int, 3>& of_kind = slot_of_[static_cast<int>(v.kind)];
    if (!v.fixed_scalars) {
      for (int& s : of_kind) s = static_cast<int>(i);  // copies, if any, replace it below
      continue;
    }
    for (std::size_t m = 0; m < specialized_masks_.size(); ++m) {
      if (specialized_masks_[m] == *v.fixed_scalars) of_kind[1 + m] = static_cast<int>(i);
    }
  }
}

const CudaLoop::Slot& CudaLoop::slot(KernelKind kind, std::uint32_t scalar_mask) const noexcept {
  const std::array<int, 3>& of_kind = slot_of_[static_cast<int>(kind)];
  int position = 0;
  for (std::size_t m = 0; m < specialized_masks_.size(); ++m) {
    if (specialized_masks_[m] == scalar_mask) position = 1 + static_cast<int>(m);
  }
  // A kind the loop cannot have (tiled without inputs) is never chosen: choose_kernel reads
  // LoopTraits::has_tiled. Slot 0 keeps the function pointer well defined regardless.
  return slots_[std::max(0, of_kind[position])];
}

CUfunction CudaLoop::resolve(const Slot& slot, const cuda::Module& module) const {
  const CUfunction function = module.function(slot.name.c_str());
  if (slot.large_shared) {
    const std::string call = "cuFuncSetAttribute(" + slot.name + ")";
    cuda::check(cuda::driver().funcSetAttribute(
                    function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, max_shared_bytes_),
                call.c_str());
  }
  return function;
}

const cuda::Module& CudaLoop::keep(cuda::Module module) const {
  std::lock_guard<std::mutex> lock(modules_mutex_);
  modules_.push_back(std::make_unique<cuda::Module>(std::move(module)));
  return *modules_.back();
}

CudaLoop::~CudaLoop() {
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(modules_mutex_);
    workers.swap(workers_);
  }
  for (std::thread& worker : workers) worker.join();
}

CUfunction CudaLoop::load_without_compiling(const Slot& s) const {
  if (const cuda::Module* whole = whole_.load(std::memory_order_acquire)) {
    try {
      return resolve(s, *whole);
    } catch (const CudaError&) {  // a whole module without this kernel is not trusted for it
    }
  }
  if (std::optional<cuda::Module> cached = build_(kernels::KernelSelection{s.name}, false)) {
    return resolve(s, keep(std::move(*cached)));
  }
  return nullptr;
}

CUfunction CudaLoop::build_now(const Slot& s) const {
  CUfunction function = load_without_compiling(s);
  if (!function) function = resolve(s, keep(std::move(*build_(kernels::KernelSelection{s.name}, true))));
  s.function.store(function, std::memory_order_release);
  return function;
}

CUfunction CudaLoop::kernel(KernelKind kind, std::uint32_t scalar_mask) const {
  const Slot& s = slot(kind, scalar_mask);
  if (CUfunction known = s.function.load(std::memory_order_acquire)) return known;
  std::unique_lock<std::mutex> building(s.build);
  s.built.wait(building, [&] { return !s.compiling; });  // a worker's build, if any, first
  if (CUfunction known = s.function.load(std::memory_order_acquire)) return known;
  return build_now(s);
}

CudaLoop::CallKernel CudaLoop::kernel_for_call(KernelKind kind, std::uint32_t scalar_mask) const {
  const Slot& s = slot(kind, scalar_mask);
  if (CUfunction known = s.function.load(std::memory_order_acquire)) return {known, false};
  const KernelKind stand_in_kind =
      kernels::kind_row(kind).flat ? KernelKind::contig : KernelKind::strided64;
  const std::optional<std::chrono::milliseconds> wait = stand_in_wait();
  if (!stand_ins_ || !wait || kind == stand_in_kind) return {kernel(kind, scalar_mask), false};
  {
    std::unique_lock<std::mutex> building(s.build);
    if (CUfunction known = s.function.load(std::memory_order_acquire)) return {known, false};
    if (!s.compiling) {
      if (CUfunction cached = load_without_compiling(s)) {
        s.function.store(cached, std::memory_order_release);
        return {cached, false};
      }
      // Compile on a worker; its failure leaves the slot unbuilt (the next call builds it
      // itself and so reports the error).
      s.compiling = true;
      std::lock_guard<std::mutex> lock(modules_mutex_);
      workers_.emplace_back([this, &s] {
        std::optional<cuda::Module> module;
        try {
          module = build_(kernels::KernelSelection{s.name}, true);
        } catch (const std::exception& e) {
          detail::log().debug("compiling {} on a worker failed ({}); the next call builds it", s.name,
                              e.what());
        }
        std::lock_guard<std::mutex> done(s.build);
        if (module) {
          try {
            s.function.store(resolve(s, keep(std::move(*module))), std::memory_order_release);
          } catch (const std::exception& e) {
            detail::log().debug("loading {} on a worker failed ({})", s.name, e.what());
          }
        }
        s.compiling = false;
        s.built.notify_all();
      });
    }
    s.built.wait_for(building, *wait, [&] { return !s.compiling; });
    if (CUfunction known = s.function.load(std::memory_order_acquire)) return {known, false};
    if (!s.compiling) return {build_now(s), false};  // the worker failed: report why, here
  }
  detail::log().debug("running {} while {} compiles", kernels::kind_name(stand_in_kind), s.name);
  return {kernel(stand_in_kind, scalar_mask), true};
}

void CudaLoop::build_every_kernel() const {
  if (whole_.load(std::memory_order_acquire)) return;
  adopt_whole_module(std::move(*build_(kernels::KernelSelection{}, true)));
}

void CudaLoop::adopt_whole_module(cuda::Module module) const {
  const cuda::Module& kept = keep(std::move(module));
  const cuda::Module* expected = nullptr;
  whole_.compare_exchange_strong(expected, &kept, std::memory_order_acq_rel);
}

unsigned CudaLoop::one_wave(CUfunction contig) const {
  if (unsigned known = one_wave_.load(std::memory_order_relaxed)) return known;
  const int per_sm = cuda::max_active_blocks_per_sm(contig, kernels::kCudaBlock);
  const auto wave = static_cast<unsigned>(cuda::device_info(device_).sm_count * std::max(1, per_sm));
  one_wave_.store(wave, std::memory_order_relaxed);
  return wave;
}

std::size_t CudaLoop::loaded_modules() const {
  std::lock_guard<std::mutex> lock(modules_mutex_);
  return modules_.size();
}

std::optional<std::chrono::milliseconds> stand_in_wait() {
  static const std::optional<std::chrono::milliseconds> wait = []() -> std::optional<std::chrono::milliseconds> {
    constexpr std::chrono::milliseconds kDefault{100};
    const char* text = std::getenv("JITVEC_STAND_IN_MS");
    if (!text || !*text) return kDefault;
    const std::string value = text;
    if (value == "off" || value == "never") return std::nullopt;
    char* end = nullptr;
    const long ms = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || ms < 0) {
      detail::warn_once("JITVEC_STAND_IN_MS",
                        fmt::format("JITVEC_STAND_IN_MS='{}' is neither a number of milliseconds nor "
                                    "'off'; using {} ms",
                                    value, kDefault.count()));
      return kDefault;
    }
    return std::chrono::milliseconds(ms);
  }();
  return wait;
}

}  // namespace jitvec::engine
