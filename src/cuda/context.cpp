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

}  // namespace

CUcontext primary_context(int device) {
  // Every call of a ufunc asks (ContextGuard): once the context is known, one load answers.
  if (device >= 0 && device < device_count()) {
    if (CUcontext known = primary_context_slot(device).context.load(std::memory_order_acquire)) {
      return known;
    }
  }
  const DeviceInfo& info = device_info(device);  // throws for a missing driver or device
  PrimaryContext& slot = primary_context_slot(device);
  std::call_once(slot.retained, [&] {
    const Driver& d = driver();
    CUcontext context = nullptr;
    check(d.devicePrimaryCtxRetain(&context, info.handle), "cuDevicePrimaryCtxRetain");
    keep_freed_pool_memory(d, info);
    warm_up_pool(d, info, context);
    slot.context.store(context, std::memory_order_release);
  });
  return slot.context.load(std::memory_order_acquire);
}

ContextGuard::ContextGuard(int device) {
  const CUcontext ours = primary_context(device);
  const Driver& d = driver();
  CUcontext current = nullptr;
  check(d.ctxGetCurrent(&current), "cuCtxGetCurrent");
  if (current == ours) return;
  if (current == nullptr) {
    check(d.ctxSetCurrent(ours), "cuCtxSetCurrent");
    return;
  }
  check(d.ctxPushCurrent(ours), "cuCtxPushCurrent");
  pushed_ = true;
}

ContextGuard::~ContextGuard() {
  if (!pushed_) return;
  CUcontext popped = nullptr;
  const CUresult result = driver().ctxPopCurrent(&popped);
  if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED) {
    jitvec::detail::log().error("cuCtxPopCurrent failed: {}", error_text(result));
  }
}

}  // namespace jitvec::cuda
