// python/src/py_scalar.hpp: Python numbers as exact jitvec::Scalars, and back.
//
// scalar_of() reads a call's scalar argument, reduce's initial= and vectorize's identity= (and
// a pickled identity): bool -> bool, int -> int64 (uint64 above int64's maximum; an int beyond
// both is an ArgumentError), float -> float64, complex -> complex128, and a NumPy scalar or 0-d
// array through .item(), its exact value as a Python number. No value passes through float64
// on its way (2**64 - 1 and 2**53 + 1 stay themselves). Anything else is an ArgumentError
// naming the argument and the type. python_number() is the way back, for pickling.
#pragma once

#include <nanobind/nanobind.h>

#include <jitvec/scalar.hpp>

namespace jitvec_py {

/// `obj` as a Scalar. `option` names it in messages ("initial=", "identity="); when null, the
/// message says "argument <position>".
jitvec::Scalar scalar_of(PyObject* obj, const char* option, int position = 0);

/// The Python number of `value`: bool, int, float or complex.
nanobind::object python_number(const jitvec::Scalar& value);

}  // namespace jitvec_py
