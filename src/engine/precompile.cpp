#include "engine/precompile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>

#include "codegen/loop_spec.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "definitions/definition_file.hpp"
#include "engine/engine_impl.hpp"
#include "engine/fusion.hpp"
#include "engine/gufunc.hpp"
#include "engine/loop_builder.hpp"
#include "engine/reduce_where.hpp"
#include "engine/reduction.hpp"

namespace jitvec::engine {
namespace {

template <class T> void append_once(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace

DefinedTargets load_definition_files(Engine& engine,
                                     const std::vector<std::filesystem::path>& files) {
  DefinedTargets defined;
  for (const auto& file : files) {
    engine.load_definitions(file);
    // The definition file parser has already checked that every name is a known target.
    const definitions::DefinitionSet set = definitions::parse_definition_file(file);
    auto add = [&](const std::string& entry, const std::vector<std::string>& names) {
      if (names.empty()) return;
      std::vector<Target>& targets = defined[entry];
      for (const std::string& name : names) append_once(targets, *parse_target(name));
    };
    for (const auto& ufunc : set.ufuncs) add(ufunc.name, ufunc.targets);
    for (const auto& fusion : set.fusions) add(fusion.name, fusion.targets);
    for (const auto& derivative : set.derivatives) add(derivative.name, derivative.targets);
  }
  return defined;
}

std::vector<Target> binary_targets(const std::string& ufunc, const std::vector<Target>& requested,
                                   const DefinedTargets& defined) {
  std::vector<Target> wanted = requested;
  if (wanted.empty()) {
    auto it = defined.find(ufunc);
    wanted = it != defined.end() ? it->second : std::vector<Target>{Target::cuda};
  }
  std::vector<Target> binaries;
  if (std::count(wanted.begin(), wanted.end(), Target::cuda)) binaries.push_back(Target::cuda);
  if (std::count(wanted.begin(), wanted.end(), Target::cpu) ||
      std::count(wanted.begin(), wanted.end(), Target::parallel)) {
    binaries.push_back(Target::cpu);
  }
  return binaries;
}

namespace {

// The ufunc `name` when it is a ufunc (not a gufunc) whose definition lists methods.
std::shared_ptr<detail::UfuncImpl> reduction_ufunc(Engine& engine, const std::string& name) {
  const std::vector<std::string> names = engine.ufunc_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) return nullptr;
  std::shared_ptr<detail::UfuncImpl> ufunc = engine.impl().find_ufunc(name);
  return ufunc->methods.empty() ? nullptr : ufunc;
}

// Whether signature `index` of ufunc `name` is a loop T(T, T), which reductions use.
bool is_reduction_loop(Engine& engine, const std::string& name, std::size_t index) {
  const Signature& s = engine.impl().find_ufunc(name)->signatures[index];
  return s.args.size() == 2 && s.results.size() == 1 && s.args[0] == s.args[1] &&
         s.args[0] == s.results[0];
}

}  // namespace

std::vector<PrecompileJob> plan_precompile(Engine& engine, const std::vector<Target>& targets,
                                           const std::vector<std::string>& archs,
                                           const DefinedTargets& defined) {
  std::vector<std::string> unique_archs;
  for (const std::string& arch : archs) {
    compile::parse_arch(arch);
    append_once(unique_archs, arch);
  }
  std::vector<PrecompileJob> jobs;
  // Ufuncs, then generalized ufuncs (engine/gufunc.hpp), each with its signatures' texts.
  std::vector<std::pair<std::string, std::vector<std::string>>> entries;
  for (const std::string& name : engine.ufunc_names()) {
    std::vector<std::string> texts;
    for (const Signature& s : engine.impl().find_ufunc(name)->signatures) texts.push_back(s.to_string());
    entries.emplace_back(name, std::move(texts));
  }
  for (const std::string& name : engine.gufunc_names()) {
    entries.emplace_back(name, engine.gufunc(name).signatures());
  }
  for (const auto& [name, signatures] : entries) {
    const std::vector<Target> binaries = binary_targets(name, targets, defined);
    if (unique_archs.empty() &&
        std::find(binaries.begin(), binaries.end(), Target::cuda) != binaries.end()) {
      throw ArgumentError(fmt::format(
          "ufunc '{}' is to be built for the cuda target, but no GPU architecture was given",
          name));
    }
    // A ufunc whose definition lists `methods` also gets, for each of its loops T(T, T) and
    // arrays of type T, the module of each method it lists (engine/reduction.hpp), and when it
    // lists "reduce" the select loop of reduce(where=) (engine/reduce_where.hpp).
    std::vector<std::string> methods{""};
    if (const std::shared_ptr<detail::UfuncImpl> ufunc = reduction_ufunc(engine, name)) {
      const auto lists = [&](const char* method) {
        return std::find(ufunc->methods.begin(), ufunc->methods.end(), method) != ufunc->methods.end();
      };
      if (lists(kReduceMethod)) methods.push_back(kReduceMethod);
      if (lists(kAccumulateMethod)) methods.push_back(kAccumulateMethod);
      if (lists(kReduceMethod)) methods.push_back(kWhereSelectMethod);
    }
    for (std::size_t index = 0; index < signatures.size(); ++index) {
      const std::string& signature = signatures[index];
      for (const std::string& method : methods) {
        if (!method.empty() && !is_reduction_loop(engine, name, index)) continue;
        for (Target binary : binaries) {
          if (binary == Target::cuda) {
            for (const std::string& arch : unique_archs) {
              jobs.push_back(PrecompileJob{name, index, signature, Target::cuda, arch, method});
            }
          } else {
            jobs.push_back(PrecompileJob{name, index, signature, Target::cpu, kHostArch, method});
          }
        }
      }
    }
  }
  return jobs;
}

PrecompileResult run_precompile_job(Engine& engine, const PrecompileJob& job) {
  PrecompileResult result;
  result.job = job;
  const auto started = std::chrono::steady_clock::now();
  try {
    if (std::optional<BuildOrigin> origin = precompile_gufunc(engine, job.ufunc, job.signature_index,
                                                              job.target, job.arch)) {
      result.ok = true;
      result.from_cache = origin->from_cache;
      result.key_hex = origin->key_hex;
      result.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      return result;
    }
    const std::shared_ptr<detail::UfuncImpl> ufunc = engine.impl().find_ufunc(job.ufunc);
    if (job.signature_index >= ufunc->signatures.size()) {
      throw ArgumentError(fmt::format("ufunc '{}' has {} signatures; there is no signature {}",
                                      job.ufunc, ufunc->signatures.size(), job.signature_index));
    }
    Engine::Impl& impl = engine.impl();
    const Signature& loop = ufunc->signatures[job.signature_index];
    const LoopDefinition definition =
        job.method == kWhereSelectMethod
        ? impl.loop_definition(impl.where_select_ufunc(), codegen::LoopSpec::exact(where_select_signature(loop.args[0])))
        : !job.method.empty()
        ? reduction_loop_definition(impl, *ufunc, reduction_spec(loop, loop.args[0], loop.results[0]), job.method)
        : impl.loop_definition(
        *exact_loop_ufunc(ufunc, job.signature_index),  // a fused ufunc's variant (fusion.hpp)
        codegen::LoopSpec::exact(ufunc->signatures[job.signature_index]));
    const BuildOrigin origin =
        job.target == Target::cuda
            ? build_cuda_loop(definition, job.arch, impl.disk(), impl.counters).origin
            : build_host_loop(definition, impl.disk(), impl.counters).origin;
    result.ok = true;
    result.from_cache = origin.from_cache;
    result.key_hex = origin.key_hex;
  } catch (const std::exception& e) {
    // Reported to the caller, who prints it; a job's failure must not stop the others.
    result.error = e.what();
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace jitvec::engine
