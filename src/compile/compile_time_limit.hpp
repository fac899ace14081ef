// src/compile/compile_time_limit.hpp: how long one compile may take (JITVEC_COMPILE_TIMEOUT).
//
// A pathological source can keep a compiler busy for minutes. Every compile jitvec starts is
// bounded by one limit, read from JITVEC_COMPILE_TIMEOUT at each compile: seconds (a decimal
// number, fractions allowed), 0 for no limit, kDefaultCompileTimeLimitSeconds when unset or
// empty. A value that is not a non-negative number warns once and the default applies. The
// NVRTC compile (nvrtc_compiler.cpp) and the host compiler (src/cpu) read the same variable.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace jitvec::compile {

inline constexpr double kDefaultCompileTimeLimitSeconds = 300;

/// A parsed JITVEC_COMPILE_TIMEOUT: the limit (nullopt: none) and, for a value that could not
/// be used, a warning saying why and what applies instead (empty otherwise).
struct CompileTimeLimit {
  std::optional<std::chrono::duration<double>> limit;
  std::string warning;
};

/// Parses a value of JITVEC_COMPILE_TIMEOUT; nullptr or "" gives the default.
CompileTimeLimit parse_compile_time_limit(const char* value);

/// The limit now in force, from the environment; warns once per bad value.
std::optional<std::chrono::duration<double>> compile_time_limit();

}  // namespace jitvec::compile
