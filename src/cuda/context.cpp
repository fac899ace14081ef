#include "cuda/context.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "core/log.hpp"
#include "cuda/device.hpp"
#include "cuda/driver.hpp"

namespace jitvec::cuda {
namespace {

struct PrimaryContext {
  std::once_flag retained;
  std::atomic<CUcontext> context{nullptr};  // set once, after the retain; read without the flag
};

// One slot per device, made when the device count is first known. Never destroyed: an
// Engine made before this (a static one) unloads its modules in its destructor, after this
// function's statics would be gone.
PrimaryContext& primary_context_slot(int device) {
  static PrimaryContext* const slots = new PrimaryContext[device_count()];
  return slots[device];
}

// Lets the device's default pool keep what is freed into it instead of handing it back to the
// OS at each synchronisation, so a steady stream of same-sized temporaries costs no cuMemAlloc.
void keep_freed_pool_memory(const Driver& d, const DeviceInfo& device) {
  if (!device.memory_pools_supported) {
    jitvec::detail::log().debug("CUDA device {} ({}) has no stream-ordered memory pools",
                                device.ordinal, device.name);
    return;
  }
  CUmemoryPool pool = nullptr;
  check(d.deviceGetDefaultMemPool(&pool, device.handle), "cuDeviceGetDefaultMemPool");
  cuuint64_t threshold = UINT64_MAX;
  check(d.memPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold),
        "cuMemPoolSetAttribute(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)");
}

// Makes the default pool map its first memory now, while the context is being made, instead
// of in the process's first allocation: on the H200 that first cuMemAllocAsync took 8-10 ms,
// most of the time from a warm disk cache to the first result (bench/NOTES.md, "Start-up").
// Freed straight back; the pool keeps it (keep_freed_pool_memory). Failures only log: the
// first real allocation will report them.
void warm_up_pool(const Driver& d, const DeviceInfo& device, CUcontext context) {
  if (!device.memory_pools_supported) return;
  if (d.ctxPushCurrent(context) != CUDA_SUCCESS) return;
  CUdeviceptr block = 0;
  constexpr std::size_t kWarmUpBytes = std::size_t{2} << 20;
  const CUresult allocated = d.memAllocAsync(&block, kWarmUpBytes, nullptr);
  if (allocated == CUDA_SUCCESS) {
    d.memFreeAsync(block, nullptr);
    d.streamSynchronize(nullptr);
  } else {
    jitvec::detail::log().debug("warming up the memory pool of CUDA device {}: {}",
                                device.ordinal, error_text(allocated));
  }
  CUcontext popped = nullptr;
  d.ctxPopCurrent(&popped);
}

// The contexts known so far, by device, for a look-up without a guard variable or the device
// count (constant-initialized; devices past these take the slot's path every time).
constexpr int kKnownDevices = 64;
std::atomic<CUcontext> known_contexts[kKnownDevices] = {};

// The context this thread last saw current (null: unknown). One thread_local read per guard;
// worth it against a driver call.
thread_local CUcontext seen_current = nullptr;

}  // namespace

namespace {
std::atomic<void (*)()> first_context_before{nullptr};
std::atomic<void (*)()> first_context_after{nullptr};
std::once_flag first_context_once;

// Calls the after-hook when the first retain ends, however it ends.
struct FirstContextAfter {
  bool armed = false;
  ~FirstContextAfter() {
    if (!armed) return;
    if (void (*after)() = first_context_after.load()) after();
  }
};
}  // namespace

void set_first_context_hook(void (*before)(), void (*after)()) noexcept {
  first_context_after.store(after);
  first_context_before.store(before);
}

CUcontext primary_context(int device) {
  // Every call of a ufunc asks (ContextGuard): once the context is known, one load answers.
  if (static_cast<unsigned>(device) < static_cast<unsigned>(kKnownDevices)) {
    if (CUcontext known = known_contexts[device].load(std::memory_order_acquire)) return known;
  }
  const DeviceInfo& info = device_info(device);  // throws for a missing driver or device
  PrimaryContext& slot = primary_context_slot(device);
  std::call_once(slot.retained, [&] {
    FirstContextAfter after_retain;
    std::call_once(first_context_once, [&after_retain] {
      if (void (*before)() = first_context_before.load()) before();
      after_retain.armed = true;
    });
    const Driver& d = driver();
    CUcontext context = nullptr;
    check(d.devicePrimaryCtxRetain(&context, info.handle), "cuDevicePrimaryCtxRetain");
    keep_freed_pool_memory(d, info);
    warm_up_pool(d, info, context);
    slot.context.store(context, std::memory_order_release);
  });
  const CUcontext context = slot.context.load(std::memory_order_acquire);
  if (device < kKnownDevices) known_contexts[device].store(context, std::memory_order_release);
  return context;
}

void forget_current_context() noexcept { seen_current = nullptr; }

ContextGuard::ContextGuard(int device, Trust trust) : ours_(primary_context(device)) {
  if (trust == Trust::thread_cache && seen_current == ours_) {
    trusted_ = true;
    return;
  }
  make_current();
}

void ContextGuard::make_current() {
  const Driver& d = driver();
  CUcontext current = nullptr;
  seen_current = nullptr;  // unknown until the driver has answered and done what we ask
  check(d.ctxGetCurrent(&current), "cuCtxGetCurrent");
  if (current == ours_) {
    seen_current = ours_;
    return;
  }
  if (current == nullptr) {
    check(d.ctxSetCurrent(ours_), "cuCtxSetCurrent");
    seen_current = ours_;
    return;
  }
  check(d.ctxPushCurrent(ours_), "cuCtxPushCurrent");
  pushed_ = true;
  previous_ = current;
  seen_current = ours_;
}

void ContextGuard::verify() {
  if (!trusted_) return;
  trusted_ = false;
  make_current();
}

ContextGuard::~ContextGuard() {
  if (!pushed_) return;
  CUcontext popped = nullptr;
  const CUresult result = driver().ctxPopCurrent(&popped);
  seen_current = result == CUDA_SUCCESS ? previous_ : nullptr;
  if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED) {
    jitvec::detail::log().error("cuCtxPopCurrent failed: {}", error_text(result));
  }
}

}  // namespace jitvec::cuda
