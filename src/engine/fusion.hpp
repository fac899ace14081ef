// src/engine/fusion.hpp: registered ufuncs composed into one ufunc, one kernel (Engine::fuse).
//
// `engine.fuse("fgh", "h(g(f(x, y), z))")` returns an ordinary Ufunc whose inputs are the
// expression's named inputs (x, y, z: in order of first appearance, a repeated name is one
// input). Calling it gives what the separate calls `t = f(x, y); u = g(t, z); h(u)` give, in
// one pass over memory: the intermediates stay in registers.
//
// How, in order, per call (call_fusion):
//   1. type resolution stage by stage, with the rules of a separate call (type_resolution.hpp):
//      each stage's loop is chosen from its arguments' dtypes (an intermediate is an array of
//      the previous stage's loop result type; an input scalar or a literal in the expression
//      is a weak scalar of that stage's call, and must fit its loop type as in a separate call);
//   2. the outcome (each stage's loop, each input's type) names a *variant*: an internal
//      UfuncImpl with one signature (the inputs' types -> the last stage's result) whose source
//      is generated here once per outcome: each stage's source in a namespace of its own
//      (jitvec_fusion_<ufunc>), its #include lines hoisted out, and one function that calls the
//      stages with the conversions a separate call makes (the stage's loop types in, its loop
//      result type out, as stored in an intermediate array and loaded again);
//   3. the variant is called as any ufunc, so loop building, the disk cache (its key holds the
//      generated source, so every stage's source and loop), the kernels, broadcasting, strides,
//      scalars, targets and the host pipeline are the ordinary ones.
// Same results as the separate calls: bit for bit on integers; on floats each intermediate is
// rounded to its stage's result type, and on the GPU each float intermediate passes through
// an `add.rn` of -0.0 in inline PTX, which neither NVVM nor ptxas contracts into an FMA with
// the next stage (`a * b` in f and `t + z` in g stay two roundings, as in two kernels). The
// host compilers already run with -ffp-contract=off. NaN payloads of intermediates may differ.
//
// signatures() of a fused ufunc are its "exact" loops: for each combination of its stages'
// signatures, the input types that combination names, when arrays of those types resolve to
// exactly that combination with no conversion between stages ("float32(float32, float32,
// float32)" for a chain of float32 loops; deduplicated, in order; where no combination is that
// exact, every one that resolves). They are what precompile() and `jitvec compile` build
// (exact_loop_ufunc); a call resolves stage by stage and may use any other input types.
// A stage may itself be a fused ufunc: its expression is substituted.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "jitvec/engine.hpp"
#include "jitvec/ufunc.hpp"

namespace jitvec::detail {
class UfuncImpl;
}

namespace jitvec::engine {

/// An argument of a stage: an input of the fused ufunc, a literal of the expression, or the
/// result of an earlier stage.
struct FusionOperand {
  enum class Kind : std::uint8_t { input, literal, stage };
  Kind kind = Kind::input;
  int index = 0;
};

struct FusionStage {
  std::shared_ptr<detail::UfuncImpl> ufunc;
  std::vector<FusionOperand> args;
  /// The column of the call in the fused ufunc's expression, and the call's text.
  int column = 1;
  std::string text;
};

/// A fused ufunc's definition (owned by its UfuncImpl) and its variants.
struct Fusion {
  std::string name;
  std::string expression;            // canonical spacing
  std::vector<std::string> inputs;   // names, in order
  std::vector<ScalarValue> literals;
  std::vector<FusionStage> stages;   // in evaluation order; the last one gives the result
  std::string origin_file;           // the definition file's name, or empty
  int origin_line = 1;

  /// Variants by outcome of type resolution (each stage's signature index, then each input's
  /// type), made on first use.
  mutable std::shared_mutex variants_mutex;
  mutable std::map<std::vector<int>, std::shared_ptr<detail::UfuncImpl>> variants;
};

/// Engine::fuse: parses `expression`, looks its ufuncs up (unknown names get a "did you mean"
/// and the column), registers the fused ufunc under `name` and returns it. Throws
/// DefinitionError.
Ufunc fuse(Engine::Impl& engine, const std::shared_ptr<Engine::Impl>& keep_alive,
           const std::string& name, const std::string& expression, const VectorizeOptions& options);

/// Ufunc::call of a fused ufunc (its UfuncImpl has a Fusion).
Array call_fusion(const detail::UfuncImpl& fused, const Arg* args, std::size_t count);

/// The UfuncImpl whose loop for LoopSpec::exact(ufunc->signatures[signature_index]) is the
/// binary that signature needs: `ufunc` itself, or, for a fused ufunc, its variant for arrays
/// of exactly that signature's types (for precompile() and `jitvec compile`).
std::shared_ptr<detail::UfuncImpl> exact_loop_ufunc(const std::shared_ptr<detail::UfuncImpl>& ufunc,
                                                    std::size_t signature_index);

}  // namespace jitvec::engine
