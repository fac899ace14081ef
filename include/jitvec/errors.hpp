// jitvec/errors.hpp: the exceptions jitvec throws, one type per kind of mistake.
//
// Every error derives from jitvec::Error (itself a std::runtime_error) and its what() is a
// complete diagnostic: what was wrong and where (the ufunc, the argument, the shapes, the
// user's source line). Errors that are the user's to fix (a bad signature, shapes that do not
// broadcast, a compile error in the user's function) are separate types from failures of the
// machine (no CUDA driver, a driver call that failed), so callers can catch what they can act
// on. CompileError keeps the compiler's full log and options as fields, not only in the text.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace jitvec {

/// Base of every jitvec exception.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A type signature that does not parse, or names an unknown type.
class SignatureError : public Error {
 public:
  using Error::Error;
};

/// Arguments that do not fit the ufunc: wrong count, no loop for their dtypes, a scalar whose
/// value would change in the loop's type, a null or misaligned pointer, a bad `out=`.
class ArgumentError : public Error {
 public:
  using Error::Error;
};

/// Shapes that do not broadcast together; the message lists every argument's shape.
class BroadcastError : public ArgumentError {
 public:
  using ArgumentError::ArgumentError;
};

/// A definition problem: a ufunc or helper defined twice, an empty source, a bad definition
/// file (the message names the file, line and entry).
class DefinitionError : public Error {
 public:
  using Error::Error;
};

/// The compiler (NVRTC or the host C++ compiler) rejected a generated kernel.
class CompileError : public Error {
 public:
  CompileError(std::string message, std::string ufunc, std::string log,
               std::vector<std::string> options)
      : Error(std::move(message)),
        ufunc_(std::move(ufunc)),
        log_(std::move(log)),
        options_(std::move(options)) {}
  /// The ufunc whose kernel failed to compile.
  const std::string& ufunc() const noexcept { return ufunc_; }
  /// The compiler's complete log; its line numbers point into the user's source.
  const std::string& log() const noexcept { return log_; }
  /// The options the compiler was given.
  const std::vector<std::string>& options() const noexcept { return options_; }

 private:
  std::string ufunc_;
  std::string log_;
  std::vector<std::string> options_;
};

/// The CUDA driver is missing (no libcuda.so.1, no GPU) or a driver call failed.
class CudaError : public Error {
 public:
  CudaError(std::string message, int code) : Error(std::move(message)), code_(code) {}
  /// The CUresult, or -1 when the driver could not be loaded at all.
  int code() const noexcept { return code_; }

 private:
  int code_;
};

/// A target was asked for that this machine cannot serve (no GPU for `cuda`, no host compiler
/// for `cpu`), or an array lives where the target cannot reach it.
class TargetError : public Error {
 public:
  using Error::Error;
};

}  // namespace jitvec
