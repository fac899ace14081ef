// src/codegen/reserved_names.hpp: names a ufunc, a device function or a fusion may not take.
//
// The apply function calls the user's function by its name, unqualified, and the user's code is
// at global scope, so on the host a function of the same name that the C library declares takes
// part in the overload resolution. C23's narrowing functions (glibc 2.28+ declares them with
// _GNU_SOURCE, which g++ defines): `float fadd(double, double)`, fsub, fmul, fdiv, ffma, fsqrt,
// their `d...l` and `_FloatN` forms, are an exact match for float64 arguments, so a template
// named `fadd` would lose to glibc's on the cpu target and return the sum rounded to float,
// while CUDA, which has no such function, runs the user's. Such names are refused up front, for
// every target (one source, one answer): choose another name.
#pragma once

#include <optional>
#include <string>

namespace jitvec::codegen {

/// Why `name` cannot name a ufunc, device function or fusion ("the C23 <math.h> function ..."),
/// or nullopt when it can.
std::optional<std::string> reserved_name_reason(const std::string& name);

}  // namespace jitvec::codegen
