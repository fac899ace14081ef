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
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "engine/type_resolution.hpp"
#include "jitvec/ufunc.hpp"
#include "launch/iteration_space.hpp"
#include "launch/strided_params.hpp"

namespace jitvec::detail {
class UfuncImpl;
}

namespace jitvec::engine {

struct CallPlan {
  Target target = Target::cuda;
  Stream stream;
  int nin = 0;
  /// Input k's array, or null for a scalar input.
  std::array<const Array*, launch::kMaxOperands> inputs{};
  /// Outputs: the signature's results.
  int nout = 1;
  /// The `out=` arrays, one per output, or all null.
  std::array<const Array*, launch::kMaxOperands> outs{};
  /// The first output's out= (outs[0]), or null.
  const Array* out = nullptr;
  std::size_t signature_index = 0;
  codegen::LoopSpec spec;
  /// Bit k set: input k is a scalar, whose value (in the loop's type) is scalars[k].
  std::uint32_t scalar_mask = 0;
  std::array<ScalarSlot, launch::kMaxOperands> scalars{};
  Shape shape;
  std::int64_t numel = 0;
};

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

}  // namespace jitvec::engine
