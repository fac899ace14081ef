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
      specialized_masks_(kernels::specialized_scalar_masks(spec)),
      spec_(spec) {
  std::vector<kernels::KernelVariant> variants = kernels::module_variants(spec);
  const std::size_t module_kernels = variants.size();
  for (const kernels::KernelVariant& v : kernels::stand_in_variants(spec)) variants.push_back(v);
  slot_count_ = variants.size();
  slots_.reset(new Slot[variants.size()]);
  for (auto& row : slot_of_) row.fill(-1);
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const kernels::KernelVariant& v = variants[i];
    slots_[i].name = kernels::kernel_name(v);
    slots_[i].large_shared = kernels::kind_row(v.kind).large_shared;
    if (i >= module_kernels) continue;  // a stand-in only: found by name
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

const CudaLoop::Slot& CudaLoop::named_slot(const std::string& name) const {
  for (std::size_t i = 0; i < slot_count_; ++i) {
    if (slots_[i].name == name) return slots_[i];
  }
  throw Error(fmt::format("jitvec: this loop has no kernel '{}'", name));
}

CUfunction CudaLoop::build_slot(const Slot& s, bool compile) const {
  CUfunction function = nullptr;
  try {
    if (const cuda::Module* whole = whole_.load(std::memory_order_acquire)) {
      try {
        function = resolve(s, *whole);
      } catch (const CudaError&) {  // a whole module without this kernel is not trusted for it
      }
    }
    if (!function) {
      if (std::optional<cuda::Module> module = build_(kernels::KernelSelection{s.name}, compile)) {
        function = resolve(s, keep(std::move(*module)));
      }
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(build_mutex_);
    s.building = false;
    built_.notify_all();
    throw;
  }
  std::lock_guard<std::mutex> lock(build_mutex_);
  if (function) s.function.store(function, std::memory_order_release);
  s.building = false;
  built_.notify_all();
  return function;
}

void CudaLoop::start_worker(const Slot& s) const {
  s.building = true;
  std::lock_guard<std::mutex> lock(modules_mutex_);
  workers_.emplace_back([this, &s] {
    try {
      build_slot(s, true);
    } catch (const std::exception& e) {  // the slot stays unbuilt: the next call builds it and reports why
      detail::log().debug("building {} on a worker failed ({}); a later call builds it", s.name, e.what());
    }
  });
}

CUfunction CudaLoop::kernel(KernelKind kind, std::uint32_t scalar_mask) const {
  const Slot& s = slot(kind, scalar_mask);
  for (;;) {
    if (CUfunction known = s.function.load(std::memory_order_acquire)) return known;
    {
      std::unique_lock<std::mutex> lock(build_mutex_);
      built_.wait(lock, [&] { return !s.building; });  // another thread's or a worker's build first
      if (CUfunction known = s.function.load(std::memory_order_acquire)) return known;
      s.building = true;
    }
    if (CUfunction built = build_slot(s, true)) return built;
  }
}

CudaLoop::CallKernel CudaLoop::kernel_for_call(KernelKind kind, std::uint32_t scalar_mask,
                                               bool may_stand_in) const {
  const Slot& s = slot(kind, scalar_mask);
  if (CUfunction known = s.function.load(std::memory_order_acquire)) return {known, false};
  const kernels::KernelVariant stand_in_variant = kernels::stand_in_for(spec_, kind, scalar_mask);
  const std::optional<std::chrono::milliseconds> wait = stand_in_wait();
  if (!stand_ins_ || !may_stand_in || !wait || stand_in_variant.kind == kind) {
    return {kernel(kind, scalar_mask), false};
  }
  const Slot& stand_in = named_slot(kernels::kernel_name(stand_in_variant));

  // The kind's own kernel from the whole module or the disk cache, when either has it (unless
  // it is being built already: then to the race below).
  bool look_up = false;
  {
    std::lock_guard<std::mutex> lock(build_mutex_);
    if (CUfunction known = s.function.load(std::memory_order_acquire)) return {known, false};
    if (!s.building) s.building = look_up = true;
  }
  if (look_up) {
    if (CUfunction cached = build_slot(s, false)) return {cached, false};
  }

  // Not there: compile it on a worker, and after `wait` its stand-in on another; run the first
  // of them that is loaded.
  std::unique_lock<std::mutex> lock(build_mutex_);
  if (!s.building && !s.function.load(std::memory_order_acquire)) start_worker(s);
  const auto loaded = [&] {
    return s.function.load(std::memory_order_acquire) || stand_in.function.load(std::memory_order_acquire);
  };
  built_.wait_for(lock, *wait, [&] { return loaded() || !s.building; });
  if (!loaded() && s.building) {
    if (!stand_in.building) start_worker(stand_in);
    built_.wait(lock, [&] { return loaded() || (!s.building && !stand_in.building); });
  }
  if (CUfunction own = s.function.load(std::memory_order_acquire)) return {own, false};
  if (CUfunction substitute = stand_in.function.load(std::memory_order_acquire)) {
    detail::log().debug("running {} while {} compiles", stand_in.name, s.name);
    return {substitute, true};
  }
  lock.unlock();
  return {kernel(kind, scalar_mask), false};  // both builds failed: build here, to report why
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
    constexpr std::chrono::milliseconds kDefault{0};
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
