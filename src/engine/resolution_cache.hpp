// src/engine/resolution_cache.hpp: a ufunc's recent type resolutions, so that a repeated call
// skips the loop choice, the LoopSpec's construction and the loop table's lookup.
//
// make_call_plan() chooses a call's loop from its inputs' dtypes (type_resolution.hpp) and
// describes it as a codegen::LoopSpec (a Signature and two vectors: four heap allocations), and
// the launcher then finds the loaded loop by comparing LoopSpecs field by field. Calls of one
// ufunc mostly repeat the same dtypes, so each ufunc keeps up to kCapacity resolutions, keyed by
// what decides them: which inputs are scalars, each array input's dtype, and each out= dtype.
// When there are array inputs they alone choose the loop (scalars are weak), so the key holds
// no scalar value (the plan still checks that each scalar fits); calls of scalars only are not
// cached, as their values choose the loop. An entry also remembers, per device, the loaded
// GPU loop once a call has launched it: a LoopTable never drops a loaded loop, so the pointer
// is good for the ufunc's life.
//
// Entries are published once and never changed or removed, so a CallPlan refers to an entry's
// LoopSpec instead of copying it, and readers take no lock (an acquire load per entry).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "codegen/loop_spec.hpp"
#include "launch/strided_params.hpp"

namespace jitvec::engine {

class CudaLoop;

/// What chooses a call's loop when it has array inputs.
struct ResolutionKey {
  std::uint32_t scalar_mask = 0;  // bit k: input k is a scalar
  std::uint8_t nin = 0;
  std::uint8_t nout_given = 0;    // out= arrays given (0, or every output)
  std::uint8_t casting = 0;       // jitvec::loop()'s Casting, when forced_loop is set
  std::uint16_t forced_loop = 0;  // jitvec::loop()'s signature index + 1; 0: resolved by NumPy's rule
  /// The dtypes of the array inputs (a scalar's entry stays bool_), then of the out= arrays.
  std::array<DType, launch::kMaxOperands> dtypes{};

  friend bool operator==(const ResolutionKey& a, const ResolutionKey& b) {
    if (a.scalar_mask != b.scalar_mask || a.nin != b.nin || a.nout_given != b.nout_given ||
        a.forced_loop != b.forced_loop || a.casting != b.casting) {
      return false;
    }
    for (int i = 0, n = a.nin + a.nout_given; i < n; ++i) {
      if (a.dtypes[i] != b.dtypes[i]) return false;
    }
    return true;
  }
};

class Resolution {
 public:
  Resolution(const ResolutionKey& key, std::size_t signature_index, codegen::LoopSpec spec)
      : key(key), signature_index(signature_index), spec(std::move(spec)) {}

  const ResolutionKey key;
  const std::size_t signature_index;
  const codegen::LoopSpec spec;

  /// The loaded GPU loop of this spec on `device`, once remembered; else null.
  const CudaLoop* cuda_loop(int device) const noexcept {
    return device >= 0 && device < kDevices ? cuda_[device].load(std::memory_order_acquire)
                                            : nullptr;
  }
  /// Remembers the loaded loop of `device` (which the ufunc's LoopTable keeps loaded).
  void remember(int device, const CudaLoop* loop) const noexcept {
    if (device >= 0 && device < kDevices) cuda_[device].store(loop, std::memory_order_release);
  }

 private:
  static constexpr int kDevices = 16;  // devices past these go through the loop table
  mutable std::array<std::atomic<const CudaLoop*>, kDevices> cuda_{};
};

class ResolutionCache {
 public:
  static constexpr std::size_t kCapacity = 16;

  /// The published resolution for `key`, or null.
  const Resolution* find(const ResolutionKey& key) const noexcept {
    const std::size_t n = size_.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i) {
      const Resolution* r = published_[i].load(std::memory_order_acquire);
      if (r->key == key) return r;
    }
    return nullptr;
  }

  /// Publishes a resolution and returns it (the one already there when another thread was
  /// first), or null when the cache is full: the caller then keeps its own spec.
  const Resolution* add(const ResolutionKey& key, std::size_t signature_index,
                        const codegen::LoopSpec& spec) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const Resolution* there = find(key)) return there;
    const std::size_t n = size_.load(std::memory_order_relaxed);
    if (n == kCapacity) return nullptr;
    storage_[n] = std::make_unique<Resolution>(key, signature_index, spec);
    published_[n].store(storage_[n].get(), std::memory_order_release);
    size_.store(n + 1, std::memory_order_release);
    return storage_[n].get();
  }

 private:
  std::mutex mutex_;
  std::array<std::unique_ptr<Resolution>, kCapacity> storage_;  // written under mutex_
  std::array<std::atomic<const Resolution*>, kCapacity> published_{};
  std::atomic<std::size_t> size_{0};
};

}  // namespace jitvec::engine
