// src/engine/accuracy_reference.hpp: the wider-type reference an accuracy report measures a
// loop against (jitvec/accuracy.hpp).
//
// wider_signature() widens every operand of a loop (float16 and bfloat16 -> float32, float32
// -> float64); a float64 operand has no wider type, and an operand that is no float has no
// report: both say why. run_reference() evaluates the ufunc's own source with the widened
// types on the cpu target, through an engine-internal ufunc (not registered, so it takes no
// name) whose function calls the user's:
//
//     void jitvec_accuracy_reference(double a0, ..., double& r0, bool& wide) {
//       wide = jitvec_accuracy_call(0, r0, a0, ...);
//     }
//
// where jitvec_accuracy_call takes the user's function with the wide arguments and reports
// whether that call exists and returns the wide type (several outputs: takes references of
// the wide types); when not (a plain `float f(float)`, whose wide call would only convert its
// arguments), run_reference() throws DefinitionError saying what to write instead. Its loop
// goes through the ordinary loop builder, so the disk cache keeps it like any other.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/engine_impl.hpp"
#include "jitvec/array.hpp"

namespace jitvec::engine {

/// The loop with every operand one float type wider, or nullopt with `why` set.
std::optional<Signature> wider_signature(const Signature& loop, std::string& why);

/// The reference's results (one Array per output, of `wide`'s result types) for `inputs` (host
/// arrays of `wide`'s input types), computed on the cpu target from `ufunc`'s source. Throws
/// DefinitionError when the source has no wide call (above) or does not compile for it (the
/// compiler's message included).
std::vector<Array> run_reference(const detail::UfuncImpl& ufunc, const Signature& wide,
                                 const std::vector<Array>& inputs);

}  // namespace jitvec::engine
