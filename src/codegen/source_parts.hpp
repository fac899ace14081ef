// src/codegen/source_parts.hpp: the pieces of generated source that GPU and CPU loops share.
//
// Both targets' generated files are: a prelude, the helpers the ufunc uses, the user's
// function, then the loops. This file writes the middle part and the per-element expression,
// so the two generators differ only in their loops:
//   - user_code(): helpers and the user's function, each under a `#line` directive so compiler
//     messages name the user's file (or "ufunc:<name>") and line;
//   - apply_function(): `jitvec_apply(L0 a0, ...)`, calling the user's function with the loop's
//     argument types and converting the result to the loop's result type;
//   - element_expression(): one output element: each input is the scalar parameter s<k> when
//     bit k of `scalar_mask` is set, else the loaded array value cast from its storage type to
//     the loop's type; the result is cast to the output's storage type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/helper_closure.hpp"
#include "codegen/loop_spec.hpp"

namespace jitvec::codegen {

/// The user's definition of one ufunc.
struct UfuncSource {
  std::string name;
  std::string source;
  std::string origin_file;  // empty: "ufunc:<name>"
  int origin_line = 1;
};

std::string user_code(const UfuncSource& ufunc, const std::vector<const HelperSource*>& helpers);

/// `qualifiers` precede the function ("__device__ __forceinline__" or "static inline").
std::string apply_function(const UfuncSource& ufunc, const LoopSpec& spec, const char* qualifiers);

/// The expression computing the output element, converted to the output's storage type, where
/// `array_value(k)` is the text of input k's array element (in its storage type). With
/// `known_scalars`, which inputs are scalars is fixed when the code is generated (bit k: input
/// k is s<k>) instead of read from `scalar_mask` for each element.
template <class ArrayValue>
std::string element_expression(const LoopSpec& spec, ArrayValue array_value,
                               std::optional<std::uint32_t> known_scalars = std::nullopt);

/// C type names.
std::string c_type(DType t);

/// Marks where the generated loops start, so messages inside them are recognizable.
inline constexpr const char* kLoopLineMarker = "#line 1 \"jitvec-generated-loop\"\n";

// ---- template definitions ----
template <class ArrayValue>
std::string element_expression(const LoopSpec& spec, ArrayValue array_value,
                               std::optional<std::uint32_t> known_scalars) {
  std::string call = "jitvec_apply(";
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    if (k) call += ", ";
    const std::string scalar = "s" + std::to_string(k);
    if (known_scalars && ((*known_scalars >> k) & 1u)) {
      call += scalar;
      continue;
    }
    const std::string loaded = array_value(k);
    const std::string value = spec.inputs[k] == spec.loop.args[k]
                                  ? loaded
                                  : "static_cast<" + c_type(spec.loop.args[k]) + ">(" + loaded + ")";
    call += known_scalars ? value
                          : "((scalar_mask >> " + std::to_string(k) + ") & 1u ? " + scalar +
                                " : " + value + ")";
  }
  call += ")";
  if (spec.out_storage == spec.loop.result) return call;
  return "static_cast<" + c_type(spec.out_storage) + ">(" + call + ")";
}

}  // namespace jitvec::codegen
