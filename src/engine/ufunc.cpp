#include "jitvec/ufunc.hpp"

#include <fmt/format.h>

#include "core/array_access.hpp"
#include "engine/call_plan.hpp"
#include "engine/cuda_launcher.hpp"
#include "engine/engine_impl.hpp"
#include "engine/fusion.hpp"
#include "engine/graph_capture.hpp"
#include "engine/host_launcher.hpp"
#include "engine/out_overlap.hpp"

namespace jitvec {

std::string_view target_name(Target t) {
  switch (t) {
    case Target::cuda: return "cuda";
    case Target::cpu: return "cpu";
    case Target::parallel: return "parallel";
  }
  return "?";
}

std::optional<Target> parse_target(std::string_view name) {
  if (name == "cuda") return Target::cuda;
  if (name == "cpu") return Target::cpu;
  if (name == "parallel") return Target::parallel;
  return std::nullopt;
}

namespace {

detail::UfuncImpl& checked(const std::shared_ptr<detail::UfuncImpl>& impl) {
  if (!impl) throw Error("this Ufunc is empty: get one from Engine::vectorize or Engine::ufunc");
  return *impl;
}

int nout_of(const detail::UfuncImpl& ufunc) {
  return static_cast<int>(ufunc.signatures.front().results.size());
}

// Plans and runs one call; results[j] receives output j.
void call_into(detail::UfuncImpl& ufunc, const Arg* args, std::size_t count, Array* results) {
  if (ufunc.fusion) {
    results[0] = engine::call_fusion(ufunc, args, count);  // engine/fusion.hpp
    return;
  }
  Engine::Impl& engine = ufunc.engine;
  engine.calls++;
  engine::CallPlan plan = engine::make_call_plan(ufunc, engine.default_target(), args, count);
  if (engine::ActiveCapture* capture = engine::active_capture()) {
    engine::join_capture(ufunc, plan, *capture);  // inside jitvec::capture (jitvec/graph.hpp)
  }
  engine::check_outputs_apart(ufunc.name, plan);
  engine::OverlapBuffers buffers;  // copies of inputs that overlap out=, alive until we return
  engine::buffer_overlapping_inputs(engine, plan, buffers);
  if (plan.target == Target::cuda) {
    engine::run_on_gpu(ufunc, plan, results);
  } else {
    engine::run_on_host(ufunc, plan, results);
  }
}

}  // namespace

Array Ufunc::call(const Arg* args, std::size_t count) const {
  detail::UfuncImpl& ufunc = checked(impl_);
  if (nout_of(ufunc) != 1) {
    throw ArgumentError(fmt::format(
        "ufunc '{}' has {} outputs ({}); calling it returns one Array: call {}.outputs(...) for "
        "all of them",
        ufunc.name, nout_of(ufunc), ufunc.signatures.front().to_string(), ufunc.name));
  }
  Array result = ArrayAccess::unset();  // assigned by the call; Array() would allocate
  call_into(ufunc, args, count, &result);
  return result;
}

std::vector<Array> Ufunc::call_outputs(const Arg* args, std::size_t count) const {
  detail::UfuncImpl& ufunc = checked(impl_);
  std::vector<Array> results(static_cast<std::size_t>(nout_of(ufunc)));
  call_into(ufunc, args, count, results.data());
  return results;
}

const std::string& Ufunc::name() const { return checked(impl_).name; }
const std::vector<Signature>& Ufunc::signatures() const { return checked(impl_).signatures; }
int Ufunc::nin() const { return static_cast<int>(checked(impl_).signatures.front().args.size()); }
int Ufunc::nout() const { return nout_of(checked(impl_)); }

std::size_t Ufunc::loop_for(const Arg* args, std::size_t count) const {
  const detail::UfuncImpl& ufunc = checked(impl_);
  if (ufunc.fusion) {
    throw ArgumentError(fmt::format("fused ufunc '{}' has no loop table: each stage resolves its own loop", ufunc.name));
  }
  return engine::call_signature(ufunc, args, count);
}

Target Ufunc::default_target() const {
  detail::UfuncImpl& ufunc = checked(impl_);
  return ufunc.target ? *ufunc.target : ufunc.engine.default_target();
}

void Ufunc::precompile(std::size_t signature_index, Target target) const {
  detail::UfuncImpl& ufunc = checked(impl_);
  if (signature_index >= ufunc.signatures.size()) {
    throw ArgumentError(fmt::format("ufunc '{}' has {} signatures; there is no signature {}",
                                    ufunc.name, ufunc.signatures.size(), signature_index));
  }
  const codegen::LoopSpec spec = codegen::LoopSpec::exact(ufunc.signatures[signature_index]);
  // A fused ufunc's loop is its variant's (engine/fusion.hpp).
  const detail::UfuncImpl& loop_ufunc = *engine::exact_loop_ufunc(impl_, signature_index);
  // Every kernel (entry point) of the loop, in one module, so no later call compiles.
  if (target == Target::cuda) {
    ufunc.engine.cuda_loop(loop_ufunc, spec, 0)->build_every_kernel();
  } else {
    ufunc.engine.host_loop(loop_ufunc, spec)->build_every_entry();
  }
}

}  // namespace jitvec
