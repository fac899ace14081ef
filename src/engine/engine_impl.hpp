// src/engine/engine_impl.hpp: the engine's state, shared by its layers.
//
// Engine::Impl owns the registries (helpers by name, ufuncs by name), the disk cache, the build
// counters and the lazily made thread pool. detail::UfuncImpl is one registered ufunc: its
// definition and its two tables of loaded loops (GPU modules per device, host shared objects).
// cuda_loop()/host_loop() are the only way to a loaded loop: memory first, then the loop
// builder (disk cache, then compiler), then loading; a cached loop that fails to load is a
// miss, compiled again.
//
// Lifetimes: an Engine and each UfuncImpl it made share the Impl (shared_ptr), so a Ufunc
// handle keeps the state its calls use (helpers, disk cache, counters, thread pool, staging)
// alive after its Engine is destroyed. The Impl does not own itself through its ufunc registry:
// ~Engine empties the registry, which breaks the cycle (jitvec/ufunc.hpp states the rule).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include <cuda.h>

#include "cache/disk_cache.hpp"
#include "codegen/helper_closure.hpp"
#include "codegen/loop_spec.hpp"
#include "codegen/source_parts.hpp"
#include "cpu/host_module.hpp"
#include "cpu/thread_pool.hpp"
#include "cuda/module.hpp"
#include "engine/cuda_loop.hpp"
#include "engine/host_loop.hpp"
#include "engine/host_pipeline.hpp"
#include "engine/loop_builder.hpp"
#include "engine/loop_table.hpp"
#include "engine/method_module.hpp"
#include "engine/resolution_cache.hpp"
#include "jitvec/engine.hpp"

namespace jitvec::engine {
struct Fusion;  // engine/fusion.hpp
}  // namespace jitvec::engine

namespace jitvec::detail {

/// What a derivative ufunc differentiates (engine/derivative.hpp).
struct DerivativeOrigin {
  std::string of;        // the ufunc
  std::size_t wrt = 0;   // the input
  bool value = false;    // value_and_derivative: the value is its first output
};

class UfuncImpl {
 public:
  /// `keep_alive` owns `engine` (null for the engine's own internal ufuncs, which the engine
  /// owns: they must not own it back).
  UfuncImpl(Engine::Impl& engine, std::shared_ptr<Engine::Impl> keep_alive, std::string name,
            std::vector<Signature> signatures, codegen::UfuncSource source,
            std::optional<Target> target)
      : keep_alive_(std::move(keep_alive)),
        engine(engine),
        name(std::move(name)),
        signatures(std::move(signatures)),
        source(std::move(source)),
        target(target) {}

 private:
  const std::shared_ptr<Engine::Impl> keep_alive_;

 public:
  /// Valid for this UfuncImpl's whole life (keep_alive_ or the engine's ownership of it).
  Engine::Impl& engine;
  const std::string name;
  const std::vector<Signature> signatures;
  const codegen::UfuncSource source;
  const std::optional<Target> target;
  /// Set (before the ufunc is published) for a fused ufunc: Ufunc::call goes to
  /// engine::call_fusion (engine/fusion.hpp).
  std::shared_ptr<const engine::Fusion> fusion;
  /// Set (before the ufunc is published) for a derivative ufunc, whose source is generated.
  std::optional<DerivativeOrigin> derivative;
  /// VectorizeOptions::identity (reduce of an empty axis); set before the ufunc is published.
  std::optional<Scalar> identity;
  /// VectorizeOptions::fastmath; set before the ufunc is published.
  bool fastmath = false;
  /// VectorizeOptions::ranges (checked against the inputs' names); set before it is published.
  std::vector<InputRange> accuracy_ranges;
  /// The methods whose modules `jitvec compile` builds ("reduce", "accumulate": a definition
  /// file's `methods`).
  std::vector<std::string> methods;

  // Caches of loaded loops: filling them does not change what the ufunc is.
  /// Recent type resolutions, each with its loaded GPU loops (engine/resolution_cache.hpp).
  mutable engine::ResolutionCache resolutions;
  mutable engine::LoopTable<engine::CudaLoop> cuda_loops;
  mutable engine::LoopTable<engine::HostLoop> host_loops;
  /// Loaded modules of this ufunc's at() (engine/ufunc_at.hpp).
  mutable engine::MethodModules method_modules;
  /// Its reduce and its accumulate modules (engine/reduction.hpp), each built when first called.
  mutable engine::MethodModules reduce_modules;
  mutable engine::MethodModules accumulate_modules;
};

}  // namespace jitvec::detail

namespace jitvec {

struct Engine::Impl {
  explicit Impl(EngineOptions options);

  /// The loaded GPU loop for `spec` on `device`, built (or read from the disk cache) and
  /// loaded on first use.
  std::shared_ptr<const engine::CudaLoop> cuda_loop(const detail::UfuncImpl& ufunc,
                                                    const codegen::LoopSpec& spec, int device);
  std::shared_ptr<const engine::HostLoop> host_loop(const detail::UfuncImpl& ufunc,
                                                    const codegen::LoopSpec& spec);

  /// Everything `spec`'s binary depends on (the helpers resolved now, under the registry lock).
  /// Throws DefinitionError when the ufunc calls a function that is not defined.
  engine::LoopDefinition loop_definition(const detail::UfuncImpl& ufunc,
                                         const codegen::LoopSpec& spec) const;

  /// The registered ufunc `name`; throws DefinitionError listing the defined names (and the
  /// closest one) when there is none.
  std::shared_ptr<detail::UfuncImpl> find_ufunc(const std::string& name) const;

  /// The engine's internal identity ufunc (one loop per dtype), which copies a device array of
  /// any strides into a contiguous one through the ordinary loops (engine/out_overlap.hpp).
  detail::UfuncImpl& copy_ufunc();
  /// The engine's internal select ufunc of reduce's where= (`keep ? x : identity`, one loop
  /// T(bool, T, T) per dtype); defined in engine/reduce_where.cpp.
  detail::UfuncImpl& where_select_ufunc();

  /// The target of calls that name none and whose ufunc names none.
  Target default_target();
  cpu::ThreadPool& thread_pool();
  /// The host-to-device pipeline's buffers for `device` (made on first use).
  engine::PipelineStaging& staging(int device);
  /// The disk cache, or null when disabled.
  cache::DiskCache* disk() { return disk_.get(); }

  EngineOptions options;
  engine::BuildCounters counters;
  std::atomic<std::uint64_t> calls{0};
  std::atomic<std::uint64_t> memory_hits{0};

  mutable std::shared_mutex registry_mutex;
  std::map<std::string, codegen::HelperSource> helpers;
  std::map<std::string, std::shared_ptr<detail::UfuncImpl>> ufuncs;
  std::map<std::string, std::shared_ptr<detail::GufuncImpl>> gufuncs;  // engine/gufunc.hpp

 private:
  std::shared_ptr<const engine::CudaLoop> make_cuda_loop(const detail::UfuncImpl& ufunc,
                                                         const codegen::LoopSpec& spec, int device);
  std::shared_ptr<const engine::HostLoop> make_host_loop(const detail::UfuncImpl& ufunc,
                                                         const codegen::LoopSpec& spec);
  /// Builds with `build` (a LookupMode -> built binaries function) and loads with `load`; a
  /// loop from the disk cache that fails to load is counted as a miss and compiled again.
  template <class Build, class Load>
  auto build_and_load(const std::string& what, Build build, Load load);

  std::unique_ptr<cache::DiskCache> disk_;
  std::once_flag default_target_once_;
  Target default_target_ = Target::cpu;
  std::atomic<bool> default_target_known_{false};  // set after the once: one load per call
  std::once_flag pool_once_;
  std::unique_ptr<cpu::ThreadPool> pool_;
  std::mutex staging_mutex_;
  std::map<int, std::unique_ptr<engine::PipelineStaging>> staging_;
  std::once_flag copy_once_;
  std::unique_ptr<detail::UfuncImpl> copy_ufunc_;
  std::once_flag where_select_once_;
  std::unique_ptr<detail::UfuncImpl> where_select_;
};

}  // namespace jitvec
