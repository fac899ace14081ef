// src/codegen/loop_spec.hpp: what one compiled loop is specialized for.
//
// A LoopSpec is everything the generated code depends on besides the user's source: the loop
// signature chosen for the call, each input array's storage dtype (converted to the loop's type
// inside the kernel) and each output array's storage dtype (the loop's result converted to it). Calls whose LoopSpecs are equal
// share one compiled module. Which inputs are scalars is NOT part of it: every loop takes, for
// each input, both a pointer and a value in the loop's type, and a warp-uniform bit mask says
// which to use, so `f(x, 0.5f, 1.0f)` and `f(x, mean_array, sigma_array)` share one binary and
// one precompiled cache entry serves both. A scalar input's storage dtype is its loop type.
#pragma once

#include <string>
#include <vector>

#include "jitvec/signature.hpp"

namespace jitvec::codegen {

struct LoopSpec {
  Signature loop;
  /// Storage dtype of each input array (a scalar input's: its loop type).
  std::vector<DType> inputs;
  /// Storage dtype of each output array, one per result of the signature.
  std::vector<DType> outputs;

  /// The spec for arrays of exactly the signature's types (what `jitvec compile` builds).
  static LoopSpec exact(const Signature& signature);
  int nin() const { return static_cast<int>(inputs.size()); }
  int nout() const { return static_cast<int>(outputs.size()); }
  /// Inputs + the outputs: the operands of the strided parameter block (outputs last).
  int operand_count() const { return nin() + nout(); }
  /// "float32(float32, float32, float32) <- [float32, int16, float32] -> float32", or with
  /// several outputs "(float32, int32)(float32) <- [float32] -> (float32, int32)"
  std::string describe() const;
  friend bool operator==(const LoopSpec& a, const LoopSpec& b) {
    return a.loop == b.loop && a.inputs == b.inputs && a.outputs == b.outputs;
  }
};

}  // namespace jitvec::codegen
