// src/codegen/source_parts.hpp: the pieces of generated source that GPU and CPU loops share.
//
// Both targets' generated files are: a prelude, the helpers the ufunc uses, the user's
// function, then the loops (src/kernels). This file writes the parts that do not depend on
// the kernels:
//   - user_code(): helpers and the user's function, each under a `#line` directive so compiler
//     messages name the user's file (or "ufunc:<name>") and line; it first checks that each
//     uses only what every target has (portable_source.hpp);
//   - apply_function(): `jitvec_apply(L0 a0, ...)`, calling the user's function with the loop's
//     argument types and converting the result to the loop's result type; with several results
//     `void jitvec_apply(L0 a0, ..., R0& r0, R1& r1, ...)`, passing the results' references
//     after the inputs, as the user's function takes them;
#pragma once

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
  std::string origin_path;  // the definition file as the user gave it, for messages only
  /// Added to the message of a compile error of its loops (a derivative's rules), or empty.
  std::string compile_hint;
};

std::string user_code(const UfuncSource& ufunc, const std::vector<const HelperSource*>& helpers);

/// `qualifiers` precede the function ("__device__ __forceinline__" or "static inline").
std::string apply_function(const UfuncSource& ufunc, const LoopSpec& spec, const char* qualifiers);

/// C type names.
std::string c_type(DType t);

/// Marks where the generated loops start, so messages inside them are recognizable.
inline constexpr const char* kLoopLineMarker = "#line 1 \"jitvec-generated-loop\"\n";

}  // namespace jitvec::codegen
