// src/compile/library_loading.hpp: what the two run-time loaders (NVRTC here, the CUDA driver in
// src/cuda/driver.cpp) share.
//
// Both dlopen a library once per process (LoadOutcome), remember a failure and throw it again
// on every use, and report it the same way: a library the user named through an environment
// variable that does not work is a warning (they asked for it), while no library at all is the
// normal state of a CPU-only machine and only logged at debug level.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "jitvec/errors.hpp"

namespace jitvec::compile {

/// dlerror()'s text, or "no reason given".
std::string last_dlerror();

/// Logs a failed load: a warning naming `variable` and its value when it is set and not empty,
/// else a debug message.
void report_load_failure(const char* variable, const std::string& error);

/// The outcome of the process's one attempt to load a library: the entry points, or the
/// CudaError the attempt threw (its text and code), thrown again by every get().
template <class Loaded>
struct LoadOutcome {
  std::optional<Loaded> loaded;
  std::string error;
  int code = 0;

  /// Runs `load` (returns Loaded or throws CudaError); a failure is reported with
  /// report_load_failure(variable, ...).
  template <class Load>
  static LoadOutcome attempt(const char* variable, Load load) {
    LoadOutcome outcome;
    try {
      outcome.loaded.emplace(load());
    } catch (const CudaError& failure) {
      outcome.error = failure.what();
      outcome.code = failure.code();
      report_load_failure(variable, outcome.error);
    }
    return outcome;
  }

  const Loaded& get() const {
    if (!loaded) throw CudaError(error, code);
    return *loaded;
  }
};

}  // namespace jitvec::compile
