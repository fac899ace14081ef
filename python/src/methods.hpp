// python/src/methods.hpp: the ufunc methods beside the call and reduce (outer, accumulate, at),
// and gufunc calls, from Python.
//
// Each imports its operands as a ufunc call does (arguments.hpp: no copies, the same stream
// rule, results of the kind of the first device array, else of the first array) and calls the
// C++ method of the same name with the GIL released. NumPy's keywords beyond these, NEP 13
// overrides and the general index expressions of at() are jitvec/_numpy_api.py's.
#pragma once

#include <nanobind/nanobind.h>

#include "registry.hpp"

namespace jitvec_py {

/// ufunc.outer(a, b, out=, dtype=, casting=, stream=, target=).
nanobind::object outer_ufunc(const PyUfunc& self, nanobind::handle a, nanobind::handle b, nanobind::handle out,
                             nanobind::handle dtype, nanobind::handle casting, nanobind::handle stream,
                             nanobind::handle target);
/// ufunc.accumulate(x, axis=0, dtype=, out=, stream=, target=).
nanobind::object accumulate_ufunc(const PyUfunc& self, nanobind::handle x, int axis, nanobind::handle dtype,
                                  nanobind::handle out, nanobind::handle stream, nanobind::handle target);
/// ufunc.at(a, indices, b, stream=, target=): `indices` a 1-d integer array along a's first axis.
void at_ufunc(const PyUfunc& self, nanobind::handle a, nanobind::handle indices, nanobind::handle b,
              nanobind::handle stream, nanobind::handle target);
/// gufunc(*inputs, out=, stream=, target=): one result, or a tuple of them.
nanobind::object gufunc_call(const PyGufunc& self, nanobind::args args, nanobind::kwargs kwargs);

}  // namespace jitvec_py
