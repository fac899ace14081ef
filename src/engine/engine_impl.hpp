// src/engine/engine_impl.hpp: the engine's state, shared by its layers.
//
// Engine::Impl owns the registries (helpers by name, ufuncs by name), the disk cache, the build
// counters and the lazily made thread pool. detail::UfuncImpl is one registered ufunc: its
// definition and its two tables of loaded loops (GPU modules per device, host shared objects).
// cuda_loop()/host_loop() are the only way to a loaded loop: memory first, then the loop
// builder (disk cache, then compiler), then loading.
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
#include "codegen/cuda_source.hpp"
#include "codegen/helper_closure.hpp"
#include "codegen/loop_spec.hpp"
#include "codegen/source_parts.hpp"
#include "cpu/host_module.hpp"
#include "cpu/thread_pool.hpp"
#include "cuda/module.hpp"
#include "engine/cuda_loop.hpp"
#include "engine/host_pipeline.hpp"
#include "engine/loop_builder.hpp"
#include "engine/loop_table.hpp"
#include "jitvec/engine.hpp"

namespace jitvec::engine {

using HostContigFn = void (*)(void* const*, unsigned, long long, long long);
using HostStridedFn = void (*)(void* const*, unsigned, const void*, long long, long long);

/// A host loop, loaded into this process.
struct HostLoop {
  explicit HostLoop(cpu::HostModule loaded) : module(std::move(loaded)) {}
  cpu::HostModule module;
  HostContigFn contig = nullptr;
  HostStridedFn strided = nullptr;
};

}  // namespace jitvec::engine

namespace jitvec::detail {

class UfuncImpl {
 public:
  UfuncImpl(Engine::Impl& engine, std::string name, std::vector<Signature> signatures,
            codegen::UfuncSource source, std::optional<Target> target)
      : engine(engine),
        name(std::move(name)),
        signatures(std::move(signatures)),
        source(std::move(source)),
        target(target) {}

  Engine::Impl& engine;
  const std::string name;
  const std::vector<Signature> signatures;
  const codegen::UfuncSource source;
  const std::optional<Target> target;

  engine::LoopTable<engine::CudaLoop> cuda_loops;
  engine::LoopTable<engine::HostLoop> host_loops;
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
  engine::LoopDefinition loop_definition(const detail::UfuncImpl& ufunc,
                                         const codegen::LoopSpec& spec) const;

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

 private:
  std::unique_ptr<cache::DiskCache> disk_;
  std::once_flag default_target_once_;
  Target default_target_ = Target::cpu;
  std::once_flag pool_once_;
  std::unique_ptr<cpu::ThreadPool> pool_;
  std::mutex staging_mutex_;
  std::map<int, std::unique_ptr<engine::PipelineStaging>> staging_;
};

}  // namespace jitvec
