// src/codegen/dual_number.hpp: jitvec::dual<T>, the number type of forward-mode derivatives.
//
// A derivative ufunc (Engine::derivative, src/engine/derivative.hpp) instantiates the user's
// template function with `jitvec::dual<float>` or `jitvec::dual<double>`: a value `v` and a
// tangent `t` (the derivative of the value with respect to the chosen input). This file holds
// that type as source text, pasted at the top of every derivative loop's source (and of no
// other loop's, so ordinary loops' text, goldens and cache keys do not change). The same text
// compiles under NVRTC and the host compiler (src/kernels/host_prelude.cpp):
//   - construction from T (and so from any number: `T(-0.5)`, `T(2)`), tangent 0;
//   - + - * / between duals and with plain numbers on either side, unary + and -, compound
//     assignment, and the comparisons (on the value);
//   - the math functions, with their derivatives, in both spellings where CUDA has both
//     (`exp` and `expf`): the hidden friends of the class (found by argument-dependent lookup
//     for the unqualified calls a ufunc makes), and, for the names the host prelude maps to its
//     own functions by a macro (`rsqrtf`, `sinpif`, `__expf`, ...), free functions where that
//     macro leads (namespace jitvec_host on the host, namespace jitvec on the GPU).
// dual_function_names() lists every math function the text defines, for the README and tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jitvec::codegen {

/// The text of jitvec::dual<T> and its functions (plain C++ for both compilers).
std::string_view dual_number_source();

/// Every math function `dual_number_source()` defines for dual arguments, by CUDA name.
const std::vector<std::string>& dual_function_names();

}  // namespace jitvec::codegen
