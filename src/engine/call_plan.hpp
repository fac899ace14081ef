// src/engine/call_plan.hpp: what a ufunc call means, before any target runs it.
//
// make_call_plan() reads a call's packed arguments and decides everything that does not depend
// on the target: which arguments are inputs, scalars, the `out=` array, the stream and the
// target; which loop serves the inputs (type_resolution.hpp) and the LoopSpec to compile;
// the scalars converted into the loop's types; the broadcast shape; and it checks `out=`
// (shape, dtype, writability). A ufunc of several outputs takes out= once per output, in order
// (all of them or none), each checked against its own result. The GPU and CPU launchers take a CallPlan and only move data
// and launch. operand_strides() gives the strides of every operand in the broadcast shape
// for the iteration space, scalars as zeros, so both launchers plan the same walk.
//
// A plan allocates nothing in the common case: its LoopSpec is the one in the ufunc's
// resolution cache (resolution_cache.hpp), and its shape is an input's when no input is
// broadcast; otherwise the plan holds its own (spec_owner, shape_owner: shared, so copies of
// a plan stay valid). A new output of an input's shape shares that input's layout
// (new_output), so it allocates only its memory.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "engine/resolution_cache.hpp"
#include "engine/type_resolution.hpp"
#include "jitvec/ufunc.hpp"
#include "launch/iteration_space.hpp"
#include "launch/strided_params.hpp"

namespace jitvec::detail {
class UfuncImpl;
}

namespace jitvec::engine {

struct CallPlan {
  CallPlan(const codegen::LoopSpec& spec, const Shape& shape) : spec(spec), shape(shape) {}

  Target target = Target::cuda;
  Stream stream;
  int nin = 0;
  /// Input k's array, or null for a scalar input. Only [0, nin) is set (the arrays are not
  /// cleared: a kilobyte of stores a call for entries nothing reads).
  std::array<const Array*, launch::kMaxOperands> inputs;
  /// Outputs: the signature's results.
  int nout = 1;
  /// The `out=` arrays, one per output, or all null; only [0, nout) is set.
  std::array<const Array*, launch::kMaxOperands> outs;
  /// The first output's out= (outs[0]), or null.
  const Array* out = nullptr;
  std::size_t signature_index = 0;
  /// The loop and the operands' storage dtypes: resolution->spec, or *spec_owner.
  const codegen::LoopSpec& spec;
  /// The ufunc's cached resolution this plan uses (null when the cache had no room, or the
  /// inputs are all scalars): it remembers the loaded loop per device.
  const Resolution* resolution = nullptr;
  std::shared_ptr<const codegen::LoopSpec> spec_owner;  // null when spec is the cache's
  /// Bit k set: input k is a scalar, whose value (in the loop's type) is scalars[k]; the
  /// slots of array inputs are zero, and only [0, nin) is set.
  std::uint32_t scalar_mask = 0;
  std::array<ScalarSlot, launch::kMaxOperands> scalars;
  /// The broadcast shape: an input array's own shape when none is broadcast, else *shape_owner.
  const Shape& shape;
  std::shared_ptr<const Shape> shape_owner;
  /// The input array whose shape `shape` is (the first array), or null when inputs broadcast
  /// or all are scalars: new outputs share its layout when it is C-contiguous (new_output).
  const Array* shape_source = nullptr;
  std::int64_t numel = 0;
};

/// The index of the signature a call with these arguments runs (what make_call_plan resolves,
/// without the shapes or out= checks); throws what the call would for its types.
std::size_t call_signature(const detail::UfuncImpl& ufunc, const Arg* args, std::size_t count);

CallPlan make_call_plan(const detail::UfuncImpl& ufunc, Target default_target, const Arg* args,
                        std::size_t count);

/// Whether every array operand (inputs as given by `inputs`, and the plan.nout arrays `outs`)
/// is C-contiguous with exactly plan.shape: the common case, which needs no iteration-space
/// planning.
bool is_plain_contiguous(const CallPlan& plan, const Array* const* inputs, const Array* const* outs);

/// The iteration space of the call: one flat dimension for plain contiguous calls, else
/// planned by launch::plan_iteration.
launch::IterationSpace iteration_space(const CallPlan& plan, const Array* const* inputs,
                                       const Array* const* outs);

/// Strides of every operand in plan.shape: inputs (scalars as zeros; `inputs[k]` replaces
/// plan.inputs[k] when the launcher moved an array), then the outputs `outs`.
std::vector<Strides> operand_strides(const CallPlan& plan, const Array* const* inputs,
                                     const Array* const* outs);

/// How errors name output j's out=: "out=" for a ufunc of one output, else "out= of output <j+1>".
std::string out_name(const CallPlan& plan, int j);

/// A new C-contiguous array for output j (plan.spec.outputs[j], plan.shape) in `memory`: as
/// Array::empty, but sharing plan.shape_source's layout when its strides are Array::empty's,
/// so the result allocates no shape or strides of its own.
Array new_output(const CallPlan& plan, int j, Memory memory, int device = 0, Stream stream = {});

}  // namespace jitvec::engine
