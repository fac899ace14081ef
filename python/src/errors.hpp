// python/src/errors.hpp: jitvec's C++ exceptions as Python exception classes.
//
// Each jitvec::Error subclass has a Python class of the same name in the jitvec module, with the
// same message: Error (base, an Exception); SignatureError, ArgumentError (BroadcastError below
// it) and DefinitionError are also ValueErrors; CudaError and TargetError also RuntimeErrors.
// CompileError carries .ufunc, .log and .options; CudaError carries .code.
#pragma once

#include <nanobind/nanobind.h>

namespace jitvec_py {

/// Creates the classes in `m` and registers the translator for C++ exceptions.
void register_errors(nanobind::module_& m);

}  // namespace jitvec_py
