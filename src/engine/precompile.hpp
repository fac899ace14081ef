// src/engine/precompile.hpp: building a set of ufuncs' loops ahead of time, into the disk cache.
//
// `jitvec compile` fills a cache folder with every loop a program will need, so that the
// program starts without compiling. The work splits into jobs, one per binary: each ufunc x
// each signature x (each GPU architecture for `cuda`, once for the host). Each job builds the
// loop for LoopSpec::exact(signature), arrays of exactly the signature's types; scalar-vs-array
// arguments do not change the binary, so that one entry also serves calls like f(x, 0.5f, 1.0f).
// The `cpu` and `parallel` targets run the same host shared object, which is built once.
//
// Which targets a ufunc is built for: the ones asked for on the command line; else those its
// definition file lists under `targets`; else `cuda`. The engine does not keep the definition
// file's `targets` (they only matter here), so load_definition_files() reads them alongside
// loading the files into the engine.
//
// Jobs need no GPU (NVRTC and the host compiler run anywhere) and run_precompile_job() may be
// called from many threads at once; a job that fails reports the compiler's diagnostic instead
// of throwing.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "jitvec/engine.hpp"

namespace jitvec::engine {

/// The arch of host jobs.
inline constexpr const char* kHostArch = "host";

/// One binary to build.
struct PrecompileJob {
  std::string ufunc;
  /// Index into the ufunc's signatures.
  std::size_t signature_index = 0;
  /// That signature's canonical text, "float32(float32, float32)".
  std::string signature;
  /// Target::cuda, or Target::cpu for the host binary (which `parallel` uses too).
  Target target = Target::cuda;
  /// "sm_90" for cuda jobs, kHostArch for host jobs.
  std::string arch;
  /// Empty for the map loop (every kernel of it); engine::kReduceMethod or kAccumulateMethod
  /// for the signature's reduce or accumulate module (a definition file's `methods`);
  /// engine::kWhereSelectMethod for the select loop of
  /// reduce(where=) on arrays of the signature's type.
  std::string method;
};

struct PrecompileResult {
  PrecompileJob job;
  bool ok = false;
  /// The binary was already in the disk cache (nothing compiled).
  bool from_cache = false;
  /// The cache key of the built loop (empty when the job failed before it was known).
  std::string key_hex;
  /// When !ok: the complete diagnostic (a CompileError's what(), with the compiler's log).
  std::string error;
  /// Wall time of the job: the cache lookup, and the compile if there was one.
  double seconds = 0.0;
};

/// The targets definition files list for `jitvec compile`, by ufunc name. Ufuncs whose entry
/// has no `targets` are absent.
using DefinedTargets = std::map<std::string, std::vector<Target>>;

/// Loads each file into `engine` (Engine::load_definitions) and returns the targets the files'
/// ufuncs list. Throws what load_definitions throws (DefinitionError naming the file, line and
/// entry for a missing or malformed file).
DefinedTargets load_definition_files(Engine& engine,
                                     const std::vector<std::filesystem::path>& files);

/// The binaries to build for ufunc `ufunc`: Target::cuda and/or Target::cpu (the host binary),
/// in that order, each at most once. `requested` (the command line's targets) wins when not
/// empty; else the ufunc's entry in `defined`; else cuda.
std::vector<Target> binary_targets(const std::string& ufunc, const std::vector<Target>& requested,
                                   const DefinedTargets& defined);

/// Every job for the engine's ufuncs (by name), their signatures (in order) and the binary
/// targets above, cuda jobs once per entry of `archs` (in order, duplicates dropped). Throws
/// ArgumentError if a cuda job is due and `archs` is empty, or an arch is not sm_<digits>.
std::vector<PrecompileJob> plan_precompile(Engine& engine, const std::vector<Target>& targets,
                                           const std::vector<std::string>& archs,
                                           const DefinedTargets& defined = {});

/// Builds one job's binary through the engine's disk cache (a hit compiles nothing) and counts
/// it in the engine's stats. Never throws: any failure is returned in the result. Thread-safe.
PrecompileResult run_precompile_job(Engine& engine, const PrecompileJob& job);

}  // namespace jitvec::engine
