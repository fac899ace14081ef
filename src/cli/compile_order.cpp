#include "cli/compile_order.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <numeric>
#include <shared_mutex>
#include <string>
#include <utility>

#include "codegen/helper_closure.hpp"
#include "engine/engine_impl.hpp"
#include "engine/fusion.hpp"
#include "engine/gufunc.hpp"

namespace jitvec::cli {
namespace {

// A gufunc's module is one small kernel family; a ufunc's map module a dozen kernels.
constexpr double kGufuncWeight = 0.1;

// How much code `source` brings: the distinct identifiers of its text and of the helpers it
// uses (transitively), comments and string literals left out (a long comment costs nothing).
double code_size(const std::string& source, const std::map<std::string, codegen::HelperSource>& helpers) {
  double size = static_cast<double>(codegen::identifiers_in(source).size());
  try {
    for (const codegen::HelperSource* helper : codegen::helpers_used(source, helpers)) {
      size += static_cast<double>(codegen::identifiers_in(helper->source).size());
    }
  } catch (const std::exception&) {
    // Mutually recursive helpers: the job fails with the DefinitionError; its own text will do.
  }
  return size;
}

}  // namespace

double estimated_compile_cost(Engine& engine, const engine::PrecompileJob& job) {
  Engine::Impl& impl = engine.impl();
  std::shared_lock<std::shared_mutex> lock(impl.registry_mutex);
  if (auto it = impl.ufuncs.find(job.ufunc); it != impl.ufuncs.end()) {
    const detail::UfuncImpl& ufunc = *it->second;
    if (job.signature_index >= ufunc.signatures.size()) return 0.0;
    const Signature& signature = ufunc.signatures[job.signature_index];
    double size = 0.0;
    if (ufunc.fusion) {
      for (const engine::FusionStage& stage : ufunc.fusion->stages) {
        size += code_size(stage.ufunc->source.source, impl.helpers);
      }
    } else {
      size = code_size(ufunc.source.source, impl.helpers);
    }
    return static_cast<double>(signature.args.size() + signature.results.size()) * size;
  }
  if (auto it = impl.gufuncs.find(job.ufunc); it != impl.gufuncs.end()) {
    const detail::GufuncImpl& gufunc = *it->second;
    if (job.signature_index >= gufunc.types.size()) return 0.0;
    return kGufuncWeight * static_cast<double>(gufunc.types[job.signature_index].size()) *
           code_size(gufunc.source.source, impl.helpers);
  }
  return 0.0;
}

std::vector<std::size_t> start_order(Engine& engine, const std::vector<engine::PrecompileJob>& jobs) {
  std::vector<double> cost(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) cost[i] = estimated_compile_cost(engine, jobs[i]);
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  return order;
}

}  // namespace jitvec::cli
