#include "engine/call_plan.hpp"

#include <fmt/format.h>

#include "engine/engine_impl.hpp"
#include "launch/broadcast.hpp"

namespace jitvec::engine {
namespace {

void check_out(const detail::UfuncImpl& ufunc, const CallPlan& plan, int j) {
  const Array& out = *plan.outs[j];
  const DType result = plan.spec.loop.results[j];
  const std::string name = out_name(plan, j);
  if (!can_cast_same_kind(result, out.dtype())) {
    throw ArgumentError(fmt::format(
        "ufunc '{}': {} is a {} array, but loop {} returns {}{}, which does not cast to {} "
        "(casting='same_kind')",
        ufunc.name, name, dtype_name(out.dtype()), plan.spec.loop.to_string(), dtype_name(result),
        plan.nout == 1 ? "" : fmt::format(" as output {}", j + 1), dtype_name(out.dtype())));
  }
  if (out.shape() != plan.shape) {
    throw BroadcastError(fmt::format("ufunc '{}': {} has shape {}, but the inputs broadcast to {}",
                                     ufunc.name, name, shape_to_string(out.shape()),
                                     shape_to_string(plan.shape)));
  }
  for (int d = 0; d < out.ndim(); ++d) {
    if (out.strides()[d] == 0 && out.shape()[d] > 1) {
      throw ArgumentError(fmt::format(
          "ufunc '{}': {} has stride 0 in dimension {} (a broadcast view): several results "
          "would land on one element",
          ufunc.name, name, d));
    }
  }
}

int out_count(const CallPlan& plan) {
  int given = 0;
  while (given < launch::kMaxOperands && plan.outs[given]) ++given;
  return given;
}

}  // namespace

std::string out_name(const CallPlan& plan, int j) {
  return plan.nout == 1 ? std::string("out=") : fmt::format("out= of output {}", j + 1);
}

namespace {

}  // namespace

CallPlan make_call_plan(const detail::UfuncImpl& ufunc, Target default_target, const Arg* args,
                        std::size_t count) {
  CallPlan plan;
  std::optional<Target> target;
  std::array<CallInput, launch::kMaxOperands> typed{};
  for (std::size_t i = 0; i < count; ++i) {
    const Arg& arg = args[i];
    switch (arg.kind()) {
      case Arg::Kind::array:
      case Arg::Kind::scalar: {
        if (plan.nin >= launch::kMaxOperands - 1) {
          throw ArgumentError(fmt::format("ufunc '{}' was given more than {} inputs", ufunc.name,
                                          launch::kMaxOperands - 1));
        }
        const bool scalar = arg.kind() == Arg::Kind::scalar;
        plan.inputs[plan.nin] = scalar ? nullptr : &arg.array();
        typed[static_cast<std::size_t>(plan.nin)] =
            CallInput{scalar, scalar ? arg.scalar().type : arg.array().dtype(),
                      scalar ? &arg.scalar() : nullptr};
        plan.nin++;
        break;
      }
      case Arg::Kind::out: {
        const int given = out_count(plan);
        const int nout = static_cast<int>(ufunc.signatures.front().results.size());
        if (given == nout) {
          if (nout == 1) throw ArgumentError(fmt::format("ufunc '{}': out= given twice", ufunc.name));
          throw ArgumentError(fmt::format(
              "ufunc '{}' has {} outputs but out= was given more than {} times (give out() once "
              "per output, in order)",
              ufunc.name, nout, nout));
        }
        plan.outs[given] = &arg.array();
        break;
      }
      case Arg::Kind::stream: plan.stream = arg.stream(); break;
      case Arg::Kind::target: target = arg.target_value(); break;
    }
  }
  plan.target = target ? *target : ufunc.target ? *ufunc.target : default_target;

  plan.signature_index =
      resolve_loop(ufunc.name, ufunc.signatures, typed.data(), static_cast<std::size_t>(plan.nin));
  const Signature& loop = ufunc.signatures[plan.signature_index];
  plan.spec.loop = loop;
  plan.spec.inputs.resize(plan.nin);
  for (int k = 0; k < plan.nin; ++k) {
    if (typed[k].is_scalar) {
      plan.scalar_mask |= 1u << k;
      plan.spec.inputs[k] = loop.args[k];
      convert_scalar(*typed[k].scalar, loop.args[k], plan.scalars[k]);
    } else {
      plan.spec.inputs[k] = typed[k].dtype;
    }
  }
  plan.nout = loop.nout();
  plan.out = plan.outs[0];
  if (const int given = out_count(plan); given != 0 && given != plan.nout) {
    throw ArgumentError(fmt::format(
        "ufunc '{}' has {} outputs but out= was given {} time{}: give out() once per output, in "
        "order (all of them or none)",
        ufunc.name, plan.nout, given, given == 1 ? "" : "s"));
  }
  plan.spec.outputs.resize(plan.nout);
  for (int j = 0; j < plan.nout; ++j) {
    plan.spec.outputs[j] = plan.outs[j] ? plan.outs[j]->dtype() : loop.results[j];
  }

  std::array<launch::NamedShape, launch::kMaxOperands> shapes{};
  std::size_t arrays = 0;
  for (int k = 0; k < plan.nin; ++k) {
    if (plan.inputs[k]) shapes[arrays++] = launch::NamedShape{&plan.inputs[k]->shape(), k + 1};
  }
  plan.shape = arrays == 0 ? Shape{} : launch::broadcast_shapes(shapes.data(), arrays);
  plan.numel = 1;
  for (std::int64_t s : plan.shape) plan.numel *= s;
  for (int j = 0; j < plan.nout && plan.outs[0]; ++j) check_out(ufunc, plan, j);
  return plan;
}

bool is_plain_contiguous(const CallPlan& plan, const Array* const* inputs, const Array* const* outs) {
  for (int j = 0; j < plan.nout; ++j) {
    if (!outs[j]->is_contiguous() || outs[j]->shape() != plan.shape) return false;
  }
  for (int k = 0; k < plan.nin; ++k) {
    if (inputs[k] && (inputs[k]->shape() != plan.shape || !inputs[k]->is_contiguous())) return false;
  }
  return true;
}

launch::IterationSpace iteration_space(const CallPlan& plan, const Array* const* inputs,
                                       const Array* const* outs) {
  if (is_plain_contiguous(plan, inputs, outs)) {
    launch::IterationSpace flat;
    flat.numel = plan.numel;
    flat.contiguous = true;
    flat.fits_32bit = plan.numel <= 0x7fffffff;
    return flat;  // sizes and strides are not needed by the contiguous loops
  }
  return launch::plan_iteration(plan.shape, operand_strides(plan, inputs, outs), plan.scalar_mask);
}

std::vector<Strides> operand_strides(const CallPlan& plan, const Array* const* inputs,
                                     const Array* const* outs) {
  std::vector<Strides> strides;
  strides.reserve(plan.nin + plan.nout);
  for (int k = 0; k < plan.nin; ++k) {
    if (!inputs[k]) {
      strides.emplace_back(plan.shape.size(), 0);
    } else {
      strides.push_back(launch::broadcast_strides(inputs[k]->shape(), inputs[k]->strides(), plan.shape));
    }
  }
  for (int j = 0; j < plan.nout; ++j) {
    strides.push_back(launch::broadcast_strides(outs[j]->shape(), outs[j]->strides(), plan.shape));
  }
  return strides;
}

}  // namespace jitvec::engine
