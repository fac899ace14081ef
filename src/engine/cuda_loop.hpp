// src/engine/cuda_loop.hpp: one loop on one device, and its kernels, each compiled (or read
// from the disk cache) and loaded the first time a launch asks for it.
//
// A loop's kernels are the variants of src/kernels/kernel_kinds.hpp's table: each kind's
// run-time kernel and its fixed-scalar-pattern copies. A call needs one of them, so CudaLoop
// builds none up front: kernel() builds the module of the one variant asked for (through the
// ModuleBuilder the engine gives it: disk cache, else NVRTC, then cuModuleLoadData) the first
// time it is asked, and a later call that needs another variant builds just that one. Each
// variant is built once however many threads ask at once (the first builds, the others wait);
// a build that fails leaves the variant unbuilt, so a later call tries again. A module holding
// every kernel (`jitvec compile`'s, Ufunc::precompile's) can be adopted: every variant not yet
// loaded then resolves from it, with nothing compiled. Kernels that take large dynamic shared
// memory get their limit raised as they are resolved. A loaded kernel is one atomic load away.
//
// A stand-in for a slow first compile (kernel_for_call): some kernels take NVRTC far longer
// than others (a vector kernel inlines the user's function once per element of a thread: 8
// times, so polar_distance's four sincos take 0.85 s on the H200's host where the grid-stride
// kernel takes ~0.15 s). When the kernel a call needs is in no cache, its compile starts on a
// worker thread; after stand_in_wait() (JITVEC_STAND_IN_MS, default 0) the compile of its
// stand-in (kernels::stand_in_for: jitvec_contig for one flat run, jitvec_strided64 for any
// other space, one element a thread, computing each element with the same inlined function, so
// with the same bits) starts on another, and the call runs whichever is loaded first. Later
// calls run the kernel of their kind as soon as its worker has loaded it. Not for fastmath
// loops (whose contraction may differ between kernels).
#pragma once

#include <cuda.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "cuda/module.hpp"
#include "kernels/kernel_abi.hpp"
#include "kernels/kernel_choice.hpp"
#include "kernels/module_source.hpp"

namespace jitvec::engine {

class CudaLoop {
 public:
  /// Loads the module holding `kernels` (empty: every kernel of the loop): with `compile`,
  /// from the disk cache or else the compiler; without, from the disk cache only (nullopt when
  /// it has none).
  using ModuleBuilder =
      std::function<std::optional<cuda::Module>(const kernels::KernelSelection& kernels, bool compile)>;

  /// `stand_ins`: whether a slow first compile may be stood in for (see above).
  CudaLoop(const codegen::LoopSpec& spec, int device, ModuleBuilder build, bool stand_ins);
  /// Waits for the kernels still compiling on worker threads.
  ~CudaLoop();
  CudaLoop(const CudaLoop&) = delete;
  CudaLoop& operator=(const CudaLoop&) = delete;

  /// The kernel of `kind` for a call with `scalar_mask` (its fixed-pattern copy when the loop
  /// has one, else the run-time kernel) if it is loaded; null otherwise. Never builds.
  CUfunction loaded_kernel(kernels::KernelKind kind, std::uint32_t scalar_mask) const noexcept {
    return slot(kind, scalar_mask).function.load(std::memory_order_acquire);
  }
  /// That kernel, built and loaded if it is not yet. The calling thread must have the loop's
  /// device's context current. Throws what the build throws (CompileError, CudaError).
  CUfunction kernel(kernels::KernelKind kind, std::uint32_t scalar_mask) const;
  /// The kernel a call of `kind` runs when loaded_kernel() has none: the kind's own (loaded
  /// from the disk cache, or compiled), or its stand-in while the kind's compiles on a worker
  /// thread (`stand_in` set: the caller launches the stand-in kind instead). `may_stand_in`
  /// false (a launch being captured into a graph): always the kind's own.
  struct CallKernel {
    CUfunction function = nullptr;
    bool stand_in = false;
  };
  CallKernel kernel_for_call(kernels::KernelKind kind, std::uint32_t scalar_mask,
                             bool may_stand_in = true) const;
  /// Builds the module of every kernel (or reads it from the disk cache) and adopts it.
  void build_every_kernel() const;
  /// Takes `module`, which holds every kernel of the loop: variants not yet loaded resolve
  /// from it from now on.
  void adopt_whole_module(cuda::Module module) const;
  /// Blocks of `contig` (this loop's jitvec_contig) that fill the device once (its
  /// grid-stride loop does the rest).
  unsigned one_wave(CUfunction contig) const;
  /// How many modules the loop has loaded (one per variant built alone, one for a whole
  /// module); for tests.
  std::size_t loaded_modules() const;

  /// What kernels::choose_kernel needs to know of this loop.
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
    mutable bool building = false;  // a thread or a worker builds it (under build_mutex_)
  };
  const Slot& slot(kernels::KernelKind kind, std::uint32_t scalar_mask) const noexcept;
  const Slot& named_slot(const std::string& name) const;
  CUfunction resolve(const Slot& slot, const cuda::Module& module) const;
  const cuda::Module& keep(cuda::Module module) const;
  /// Builds the slot (whole module, disk cache or compiler; `compile` false: no compiler) and
  /// publishes its kernel; null when not compiling and neither has it. The caller has set
  /// slot.building; this clears it and wakes the waiters, also when it throws.
  CUfunction build_slot(const Slot& slot, bool compile) const;
  /// Sets slot.building and builds it on a worker thread (build_mutex_ held by the caller).
  void start_worker(const Slot& slot) const;

  ModuleBuilder build_;
  int device_;
  bool stand_ins_;
  int max_shared_bytes_;
  std::vector<std::uint32_t> specialized_masks_;
  // One slot per variant of the loop's module (kernels::module_variants), and for each kind
  // the slot a call runs: [kind][0] for the run-time pattern, [kind][1 + i] for specialized
  // mask i (the run-time kernel's slot where the kind has no copy for it); -1: no such kernel.
  std::unique_ptr<Slot[]> slots_;
  std::size_t slot_count_ = 0;
  std::array<std::array<int, 3>, kernels::kKernelKinds> slot_of_{};
  const codegen::LoopSpec spec_;
  mutable std::mutex build_mutex_;
  mutable std::condition_variable built_;  // a slot's build ended (under build_mutex_)
  mutable std::mutex modules_mutex_;
  mutable std::vector<std::unique_ptr<cuda::Module>> modules_;
  mutable std::atomic<const cuda::Module*> whole_{nullptr};
  mutable std::atomic<unsigned> one_wave_{0};
  mutable std::vector<std::thread> workers_;  // under modules_mutex_
};

/// How long a first call waits for its kernel's compile before it runs a stand-in:
/// JITVEC_STAND_IN_MS (milliseconds; "off" never stands in), default 0. Read once.
std::optional<std::chrono::milliseconds> stand_in_wait();

}  // namespace jitvec::engine
