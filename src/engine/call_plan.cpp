#include "engine/call_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/array_access.hpp"
#include "engine/engine_impl.hpp"
#include "launch/broadcast.hpp"

namespace jitvec::engine {
namespace {

// Whether two shapes are equal; the same vector (a shared layout's) needs no comparison.
bool same_shape(const Shape& a, const Shape& b) { return &a == &b || a == b; }

void check_out(const detail::UfuncImpl& ufunc, const CallPlan& plan, int j) {
  const Array& out = *plan.outs[j];
  const DType result = plan.spec.loop.results[j];
  // Named only for an error (a string a call otherwise).
  const auto name = [&plan, j] { return out_name(plan, j); };
  if (!can_cast_same_kind(result, out.dtype())) {
    throw ArgumentError(fmt::format(
        "ufunc '{}': {} is a {} array, but loop {} returns {}{}, which does not cast to {} "
        "(casting='same_kind')",
        ufunc.name, name(), dtype_name(out.dtype()), plan.spec.loop.to_string(), dtype_name(result),
        plan.nout == 1 ? "" : fmt::format(" as output {}", j + 1), dtype_name(out.dtype())));
  }
  if (!same_shape(out.shape(), plan.shape)) {
    throw BroadcastError(fmt::format("ufunc '{}': {} has shape {}, but the inputs broadcast to {}",
                                     ufunc.name, name(), shape_to_string(out.shape()),
                                     shape_to_string(plan.shape)));
  }
  // A contiguous out= with elements has no stride 0 along a dimension longer than 1.
  if (out.is_contiguous() && out.size() > 0) return;
  if (const int d = launch::repeated_dimension(out.shape(), out.strides()); d >= 0) {
    throw ArgumentError(fmt::format(
        "ufunc '{}': {} has stride 0 in dimension {} (a broadcast view): several results "
        "would land on one element",
        ufunc.name, name(), d));
  }
}

}  // namespace

std::string out_name(const CallPlan& plan, int j) {
  return plan.nout == 1 ? std::string("out=") : fmt::format("out= of output {}", j + 1);
}

namespace {

// A call's arguments, sorted before its loop is known.
struct ParsedArgs {
  std::optional<Target> target;
  Stream stream;
  int nin = 0;
  std::array<const Array*, launch::kMaxOperands> inputs;  // [0, nin) set: nothing to clear
  std::array<const Array*, launch::kMaxOperands> outs;    // [0, outs_given) set
  int outs_given = 0;
  std::array<CallInput, launch::kMaxOperands> typed;  // [0, nin) set: nothing to clear
  ResolutionKey key;
  bool any_array = false;
  std::optional<LoopOption> forced;  // jitvec::loop(): the caller's choice of loop
};

ParsedArgs parse_args(const detail::UfuncImpl& ufunc, const Arg* args, std::size_t count) {
  ParsedArgs p;
  for (std::size_t i = 0; i < count; ++i) {
    const Arg& arg = args[i];
    switch (arg.kind()) {
      case Arg::Kind::array:
      case Arg::Kind::scalar: {
        if (p.nin >= launch::kMaxOperands - 1) {
          throw ArgumentError(fmt::format("ufunc '{}' was given more than {} inputs", ufunc.name,
                                          launch::kMaxOperands - 1));
        }
        const bool scalar = arg.kind() == Arg::Kind::scalar;
        p.inputs[p.nin] = scalar ? nullptr : &arg.array();
        p.typed[static_cast<std::size_t>(p.nin)] =
            CallInput{scalar, scalar ? arg.scalar().type : arg.array().dtype(),
                      scalar ? &arg.scalar() : nullptr};
        if (scalar) {
          p.key.scalar_mask |= 1u << p.nin;
        } else {
          p.key.dtypes[p.nin] = arg.array().dtype();
          p.any_array = true;
        }
        p.nin++;
        break;
      }
      case Arg::Kind::out: {
        const int nout = static_cast<int>(ufunc.signatures.front().results.size());
        if (p.outs_given == nout) {
          if (nout == 1) throw ArgumentError(fmt::format("ufunc '{}': out= given twice", ufunc.name));
          throw ArgumentError(fmt::format(
              "ufunc '{}' has {} outputs but out= was given more than {} times (give out() once "
              "per output, in order)",
              ufunc.name, nout, nout));
        }
        p.outs[p.outs_given++] = &arg.array();
        break;
      }
      case Arg::Kind::stream: p.stream = arg.stream(); break;
      case Arg::Kind::target: p.target = arg.target_value(); break;
      case Arg::Kind::loop:
        if (arg.loop_value().signature_index >= ufunc.signatures.size()) {
          throw ArgumentError(fmt::format("ufunc '{}': loop({}) asked for, but it has {} loop{}", ufunc.name,
                                          arg.loop_value().signature_index, ufunc.signatures.size(),
                                          ufunc.signatures.size() == 1 ? "" : "s"));
        }
        p.forced = arg.loop_value();
        p.key.forced_loop = static_cast<std::uint16_t>(p.forced->signature_index + 1);
        p.key.casting = static_cast<std::uint8_t>(p.forced->casting);
        break;
    }
  }
  p.key.nin = static_cast<std::uint8_t>(p.nin);
  p.key.nout_given = static_cast<std::uint8_t>(p.outs_given);
  for (int j = 0; j < p.outs_given; ++j) p.key.dtypes[p.nin + j] = p.outs[j]->dtype();
  return p;
}

// The loop jitvec::loop() named, once the inputs are checked against it (the count by
// resolve_loop's own message, the dtypes by the option's casting, the scalars' values).
std::size_t forced_loop(const detail::UfuncImpl& ufunc, const ParsedArgs& p) {
  const std::size_t index = p.forced->signature_index;
  const Signature& loop = ufunc.signatures[index];
  if (static_cast<std::size_t>(p.nin) != loop.args.size()) {
    resolve_loop(ufunc.name, ufunc.signatures, p.typed.data(), static_cast<std::size_t>(p.nin));
  }
  for (int k = 0; k < p.nin; ++k) {
    const CallInput& in = p.typed[k];
    if (in.is_scalar ? scalar_fits(*in.scalar, loop.args[k]) : can_cast(in.dtype, loop.args[k], p.forced->casting)) {
      continue;
    }
    throw ArgumentError(
        in.is_scalar
            ? fmt::format("ufunc '{}': the loop asked for, {}, takes {} as input {}, which cannot hold the scalar {}",
                          ufunc.name, loop.to_string(), dtype_name(loop.args[k]), k + 1, scalar_to_string(*in.scalar))
            : fmt::format("ufunc '{}': the loop asked for, {}, takes {} as input {}, but the array there is {}, "
                          "which does not cast to it with casting='{}'",
                          ufunc.name, loop.to_string(), dtype_name(loop.args[k]), k + 1, dtype_name(in.dtype),
                          casting_name(p.forced->casting)));
  }
  return index;
}

// The loop for the parsed inputs: the ufunc's cached resolution when it has one (scalars
// still checked against it), else resolved now and cached. `owned` receives the spec when the
// cache has no room for it.
const codegen::LoopSpec& resolve(const detail::UfuncImpl& ufunc, const ParsedArgs& p,
                                 std::size_t& signature_index, const Resolution*& resolution,
                                 std::shared_ptr<const codegen::LoopSpec>& owned) {
  if (p.any_array) {
    if ((resolution = ufunc.resolutions.find(p.key))) {
      const Signature& loop = ufunc.signatures[resolution->signature_index];
      for (int k = 0; k < p.nin; ++k) {
        if (p.typed[k].is_scalar && !scalar_fits(*p.typed[k].scalar, loop.args[k])) {
          // The full resolution, which throws the error naming the scalar.
          if (p.forced) forced_loop(ufunc, p);
          resolve_loop(ufunc.name, ufunc.signatures, p.typed.data(), static_cast<std::size_t>(p.nin));
        }
      }
      signature_index = resolution->signature_index;
      return resolution->spec;
    }
  }
  signature_index = p.forced ? forced_loop(ufunc, p)
                             : resolve_loop(ufunc.name, ufunc.signatures, p.typed.data(),
                                            static_cast<std::size_t>(p.nin));
  const Signature& loop = ufunc.signatures[signature_index];
  codegen::LoopSpec spec;
  spec.loop = loop;
  spec.inputs.resize(p.nin);
  for (int k = 0; k < p.nin; ++k) spec.inputs[k] = p.typed[k].is_scalar ? loop.args[k] : p.typed[k].dtype;
  if (p.outs_given != 0 && p.outs_given != loop.nout()) {
    throw ArgumentError(fmt::format(
        "ufunc '{}' has {} outputs but out= was given {} time{}: give out() once per output, in "
        "order (all of them or none)",
        ufunc.name, loop.nout(), p.outs_given, p.outs_given == 1 ? "" : "s"));
  }
  spec.outputs.resize(loop.nout());
  for (int j = 0; j < loop.nout(); ++j) {
    spec.outputs[j] = p.outs_given ? p.outs[j]->dtype() : loop.results[j];
  }
  if (p.any_array && (resolution = ufunc.resolutions.add(p.key, signature_index, spec))) {
    return resolution->spec;
  }
  owned = std::make_shared<const codegen::LoopSpec>(std::move(spec));
  return *owned;
}

const Shape kScalarShape{};

// The broadcast shape of the inputs: the first array's own shape when every array has it (no
// allocation; `source` is that array), else `owned`.
const Shape& broadcast_shape(const ParsedArgs& p, std::shared_ptr<const Shape>& owned,
                             const Array*& source) {
  const Array* first = nullptr;
  bool same = true;
  for (int k = 0; k < p.nin; ++k) {
    if (!p.inputs[k]) continue;
    if (!first) {
      first = p.inputs[k];
    } else if (same && !same_shape(p.inputs[k]->shape(), first->shape())) {
      same = false;
    }
  }
  if (!first) return kScalarShape;
  if (same) {
    source = first;
    return first->shape();
  }
  std::array<launch::NamedShape, launch::kMaxOperands> shapes{};
  std::size_t arrays = 0;
  for (int k = 0; k < p.nin; ++k) {
    if (p.inputs[k]) shapes[arrays++] = launch::NamedShape{&p.inputs[k]->shape(), k + 1};
  }
  owned = std::make_shared<const Shape>(launch::broadcast_shapes(shapes.data(), arrays));
  return *owned;
}

}  // namespace

std::size_t call_signature(const detail::UfuncImpl& ufunc, const Arg* args, std::size_t count) {
  const ParsedArgs p = parse_args(ufunc, args, count);
  std::size_t signature_index = 0;
  const Resolution* resolution = nullptr;
  std::shared_ptr<const codegen::LoopSpec> spec_owner;
  resolve(ufunc, p, signature_index, resolution, spec_owner);
  return signature_index;
}

CallPlan make_call_plan(const detail::UfuncImpl& ufunc, Target default_target, const Arg* args,
                        std::size_t count) {
  const ParsedArgs p = parse_args(ufunc, args, count);
  std::size_t signature_index = 0;
  const Resolution* resolution = nullptr;
  std::shared_ptr<const codegen::LoopSpec> spec_owner;
  const codegen::LoopSpec& spec = resolve(ufunc, p, signature_index, resolution, spec_owner);
  std::shared_ptr<const Shape> shape_owner;
  const Array* shape_source = nullptr;
  const Shape& shape = broadcast_shape(p, shape_owner, shape_source);

  CallPlan plan(spec, shape);
  plan.target = p.target ? *p.target : ufunc.target ? *ufunc.target : default_target;
  plan.stream = p.stream;
  plan.nin = p.nin;
  std::copy_n(p.inputs.begin(), p.nin, plan.inputs.begin());
  plan.signature_index = signature_index;
  plan.resolution = resolution;
  plan.spec_owner = std::move(spec_owner);
  plan.shape_owner = std::move(shape_owner);
  plan.shape_source = shape_source;
  const Signature& loop = ufunc.signatures[signature_index];
  for (int k = 0; k < plan.nin; ++k) {
    if (p.typed[k].is_scalar) {
      plan.scalar_mask |= 1u << k;
      convert_scalar(*p.typed[k].scalar, loop.args[k], plan.scalars[k]);
    } else {
      plan.scalars[k] = ScalarSlot{};
    }
  }
  plan.nout = loop.nout();
  // resolve() checked that out= is given for every output or none.
  for (int j = 0; j < plan.nout; ++j) plan.outs[j] = p.outs_given ? p.outs[j] : nullptr;
  plan.out = plan.outs[0];
  if (shape_source) {
    plan.numel = shape_source->size();
  } else {
    plan.numel = 1;
    for (std::int64_t s : plan.shape) plan.numel *= s;
  }
  for (int j = 0; j < plan.nout && plan.outs[0]; ++j) check_out(ufunc, plan, j);
  return plan;
}

Array new_output(const CallPlan& plan, int j, Memory memory, int device, Stream stream) {
  const DType dtype = plan.spec.outputs[j];
  if (plan.shape_source) return ArrayAccess::empty_like(dtype, *plan.shape_source, memory, device, stream);
  return Array::empty(dtype, plan.shape, memory, device, stream);
}

bool is_plain_contiguous(const CallPlan& plan, const Array* const* inputs, const Array* const* outs) {
  for (int j = 0; j < plan.nout; ++j) {
    if (!outs[j]->is_contiguous() || !same_shape(outs[j]->shape(), plan.shape)) return false;
  }
  for (int k = 0; k < plan.nin; ++k) {
    if (inputs[k] && (!same_shape(inputs[k]->shape(), plan.shape) || !inputs[k]->is_contiguous())) {
      return false;
    }
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
