// src/engine/loop_table.hpp: loaded loops in memory, each built once however many threads ask.
//
// A LoopTable maps (LoopSpec, device) to a loaded loop of type T (a GPU module or a host shared
// object). get_or_build() returns the loaded loop, building it with `build` if nobody has: the
// first thread to ask builds, every other thread asking for the same key waits for that build
// and gets its result or its exception. A failed build leaves no entry, so a later call tries
// again. Lookups of loaded loops take a shared lock only.
#pragma once

#include <future>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "codegen/loop_spec.hpp"

namespace jitvec::engine {

template <class T> class LoopTable {
 public:
  /// `hit` is set to whether the loop was already loaded (or being loaded by another thread).
  template <class Build>
  std::shared_ptr<const T> get_or_build(const codegen::LoopSpec& spec, int device, Build build,
                                        bool& hit) {
    {
      std::shared_lock<std::shared_mutex> lock(mutex_);
      if (const Slot* slot = find(spec, device)) {
        hit = true;
        // A loaded loop is read directly: no copy of the future and no wait on it (the
        // cached call's path; bench/NOTES.md, "Dispatch").
        if (slot->loaded) return slot->loaded;
        std::shared_future<std::shared_ptr<const T>> ready = slot->ready;
        lock.unlock();
        return ready.get();
      }
    }
    std::promise<std::shared_ptr<const T>> promise;
    {
      std::unique_lock<std::shared_mutex> lock(mutex_);
      if (const Slot* slot = find(spec, device)) {  // another thread got here first
        hit = true;
        std::shared_future<std::shared_ptr<const T>> ready = slot->ready;
        lock.unlock();
        return ready.get();
      }
      slots_.push_back(Slot{spec, device, promise.get_future().share(), nullptr});
    }
    hit = false;
    try {
      std::shared_ptr<const T> loop = build();
      promise.set_value(loop);
      std::unique_lock<std::shared_mutex> lock(mutex_);
      for (Slot& slot : slots_) {
        if (slot.device == device && slot.spec == spec) slot.loaded = loop;
      }
      return loop;
    } catch (...) {
      promise.set_exception(std::current_exception());
      std::unique_lock<std::shared_mutex> lock(mutex_);
      for (auto it = slots_.begin(); it != slots_.end(); ++it) {
        if (it->device == device && it->spec == spec) {
          slots_.erase(it);
          break;
        }
      }
      throw;
    }
  }

 private:
  struct Slot {
    codegen::LoopSpec spec;
    int device;
    std::shared_future<std::shared_ptr<const T>> ready;
    std::shared_ptr<const T> loaded;  // ready's value, once it has one (under the lock)
  };
  const Slot* find(const codegen::LoopSpec& spec, int device) const {
    for (const Slot& slot : slots_) {
      if (slot.device == device && slot.spec == spec) return &slot;
    }
    return nullptr;
  }

  mutable std::shared_mutex mutex_;
  std::vector<Slot> slots_;
};

}  // namespace jitvec::engine
