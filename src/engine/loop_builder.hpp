// src/engine/loop_builder.hpp: from a ufunc definition and a LoopSpec to binaries, via the
// disk cache.
//
// The pipeline, in order, for one loop:
//   1. generate the source (codegen: prelude + helpers + user function + the kernels asked for);
//   2. build the cache key from everything that changes the binary: jitvec's version, the
//      target, the architecture, the compiler's identity and options, and the source (for a
//      map loop: the text its modules share, the names of the kernels it holds and the digest
//      of the generator that writes their text, so a lookup writes no kernel text);
//   3. look the key up in the disk cache (a hit returns the stored binaries);
//   4. otherwise compile (NVRTC for cuda, the host compiler for cpu/parallel) and store;
//   5. return the binaries as typed structs (CudaBinaries, HostBinary).
// Compile errors propagate as CompileError; nothing is stored for them. This file knows
// nothing about devices or calls: `jitvec compile` uses it on machines without a GPU.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cache/cache_key.hpp"
#include "cache/disk_cache.hpp"
#include "codegen/helper_closure.hpp"
#include "codegen/loop_spec.hpp"
#include "codegen/source_parts.hpp"
#include "kernels/module_source.hpp"

namespace jitvec::engine {

/// Counts the builder's work (the engine adds these to its stats).
struct BuildCounters {
  std::atomic<std::uint64_t> disk_hits{0};
  std::atomic<std::uint64_t> disk_misses{0};
  std::atomic<std::uint64_t> compiles{0};
  std::atomic<std::uint64_t> compile_microseconds{0};
  std::atomic<std::uint64_t> disk_read_microseconds{0};  // lookups that hit
  std::atomic<std::uint64_t> load_microseconds{0};       // module / shared-object loads
};

/// Whole microseconds from `since` to now, as the counters above count them.
inline std::uint64_t microseconds_since(std::chrono::steady_clock::time_point since) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                        std::chrono::steady_clock::now() - since)
                                        .count());
}

/// Where a build's binaries came from.
struct BuildOrigin {
  std::string key_hex;
  bool from_cache = false;
};

/// A GPU loop's binaries: the cubin for the build's architecture and the PTX (the driver
/// JIT-compiles it when the cubin does not load).
struct CudaBinaries {
  std::string cubin;
  std::string ptx;
  BuildOrigin origin;
};

/// A host loop's binary: a shared object exporting the host entry points (kernels/kernel_abi.hpp).
struct HostBinary {
  std::string shared_object;
  BuildOrigin origin;
};

/// Whether a build may take its binaries from the disk cache. `compile` is for an entry that
/// was found but failed to load: compile again and store over it.
enum class LookupMode { use_cache, compile };

/// Everything a loop's binary depends on, as one definition.
struct LoopDefinition {
  const codegen::UfuncSource* ufunc = nullptr;
  std::vector<const codegen::HelperSource*> helpers;
  codegen::LoopSpec spec;
  /// Set for a module other than the map loops (a gufunc's, a ufunc's at(): engine/
  /// method_module.hpp): `what` it is goes into the cache key as a field of its own, so such a
  /// module never shares a key with a map loop, and `source` writes its text for the GPU
  /// (host = false) or the host. Unset for the map loops.
  struct Method {
    std::string what;
    std::function<std::string(bool host, const std::vector<const codegen::HelperSource*>& helpers)> source;
  };
  std::optional<Method> method;
  /// For a map loop: the kernels (GPU) or entry points (host) its module holds, by name; empty
  /// for every one. Named in the key ("kernels" field), so a module of one kernel and the
  /// module of all of them are different entries, and neither is taken for the other.
  kernels::KernelSelection kernels;
  /// The ufunc's fastmath (VectorizeOptions::fastmath): a * b + c may become an FMA.
  bool contract = false;
  /// For a map loop: the text its modules share, once written for the target the definition
  /// is built for (a loop's modules reuse it); empty until then.
  std::string common_source;
};

/// A GPU loop for `arch` ("sm_90"). An entry found in the cache without a cubin or PTX is a
/// miss (compiled and stored again).
CudaBinaries build_cuda_loop(const LoopDefinition& def, const std::string& arch,
                             cache::DiskCache* disk, BuildCounters& counters,
                             LookupMode mode = LookupMode::use_cache);

/// A host loop (shared object), for the cpu and parallel targets alike. An entry found in the
/// cache without a shared object is a miss.
HostBinary build_host_loop(const LoopDefinition& def, cache::DiskCache* disk,
                           BuildCounters& counters, LookupMode mode = LookupMode::use_cache);

/// The binaries of `def` when the disk cache has them; nothing is compiled, and a miss is not
/// counted (a probe: whether a whole module was precompiled).
std::optional<CudaBinaries> find_cuda_loop(const LoopDefinition& def, const std::string& arch,
                                           cache::DiskCache* disk, BuildCounters& counters);
std::optional<HostBinary> find_host_loop(const LoopDefinition& def, cache::DiskCache* disk,
                                         BuildCounters& counters);

/// The cache key of a GPU loop (exposed for tests and `jitvec cache`); `source` is what the
/// key hashes of the text: a method module's whole text, a map loop's common text
/// (kernels::cuda_module_common / host_module_common). host_loop_key's `disk`: where the host
/// compiler's self-report may be remembered (its writable folder), or nullptr.
cache::CacheKey cuda_loop_key(const LoopDefinition& def, const std::string& arch,
                              const std::string& source);
cache::CacheKey host_loop_key(const LoopDefinition& def, const std::string& source,
                              const cache::DiskCache* disk = nullptr);

}  // namespace jitvec::engine
