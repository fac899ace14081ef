// python/src/errors.hpp: jitvec's C++ exceptions as Python exception classes.
//
// Each jitvec::Error subclass has a Python class of the same name in the jitvec module, with the
// same message: Error (base, an Exception); SignatureError, ArgumentError (BroadcastError below
// it) and DefinitionError are also ValueErrors; CudaError and TargetError also RuntimeErrors.
// CompileError carries .ufunc, .log and .options; CudaError carries .code.
#pragma once

#include <string>

#include <nanobind/nanobind.h>

#include <exception>

namespace jitvec_py {

/// Creates the classes in `m` and registers the translator for C++ exceptions.
void register_errors(nanobind::module_& m);

/// Sets the Python error for a jitvec::Error (the translator's work); rethrows anything else.
void translate_jitvec_error(const std::exception_ptr& p);

/// Sets the Python error for the exception being handled (inside a catch block): for entry
/// points that CPython calls directly, without nanobind's translation (the ufunc's tp_call).
/// jitvec errors as their classes, nanobind's python_error restored, a failed cast as
/// TypeError, anything else as RuntimeError.
void set_python_error() noexcept;

struct PythonOrigin;
/// `text` (a compile error's message or log) with the ufunc's "ufunc:<name>(line)" and
/// "ufunc:<name>:line" positions made the .py file's and line where the source string was
/// written (registry.hpp); unchanged when the origin is unknown. Messages of the library's
/// own C++ names (Target::cpu, ReduceOptions::initial, ...) are given Python's spellings too.
std::string at_python_lines(const std::string& text, const std::string& ufunc, const PythonOrigin& origin);

}  // namespace jitvec_py
