// python/src/call.hpp: a ufunc call from Python, argument import to result wrapping, in C++.
//
// Arguments: Python bool/int/float/complex and NumPy scalars are scalars (weak, as jitvec's C++
// scalars: they take the loop's type; exact, py_scalar.hpp); jitvec.Array is used as is; objects with the buffer
// protocol (NumPy arrays) are viewed in place; objects with __dlpack__ (CuPy, PyTorch, JAX, ...)
// are imported through Array::from_dlpack, asked for the call's stream; objects with only
// __cuda_array_interface__ (Numba, ...) are viewed in place (the interface's stream is waited
// for); anything else goes through numpy.asarray. Nothing is copied.
//
// The stream: stream= (an int handle, or an object with .ptr (CuPy) or .cuda_stream (PyTorch)),
// else the current stream of the library of the first device array (CuPy's
// get_current_stream, PyTorch's current stream, on that array's device), else the null stream.
//
// The result: out= returns the out object itself; otherwise the result comes back as the kind
// of the first device array argument (else the first array argument): NumPy for buffer inputs,
// the same library through its from_dlpack for DLPack/CAI inputs (the module is imported only
// when such an input came from it), jitvec.Array when the library has no from_dlpack, and a
// NumPy scalar when every argument was a scalar or the NumPy result is 0-d (as NumPy's ufuncs
// give). bfloat16 NumPy arrays are ml_dtypes.bfloat16 (read as their uint16 bits); a bfloat16
// result of NumPy inputs is one, or a jitvec.Array where ml_dtypes is not installed. The GIL
// is released while jitvec compiles, launches and waits.
//
// Python calls a Ufunc through its type's tp_call slot (ufunc_tp_call), straight into
// call_ufunc: no nanobind overload dispatch; the arguments go into fixed arrays on the stack
// (no std::vector per call).
#pragma once

#include <nanobind/nanobind.h>

#include <optional>

#include "arguments.hpp"
#include "registry.hpp"

namespace jitvec_py {

/// `args` a tuple, `kwargs` a dict or null (what CPython's tp_call passes).
nanobind::object call_ufunc(PyObject* self, const PyUfunc& ufunc, PyObject* args, PyObject* kwargs);

/// The Ufunc type's tp_call slot: call_ufunc without nanobind's dispatch (which would build
/// its own argument tuple and keyword dict), errors set as the translator would.
PyObject* ufunc_tp_call(PyObject* self, PyObject* args, PyObject* kwargs) noexcept;

/// Ufunc.reduce: NumPy's `ufunc.reduce(x, axis=0, dtype=None, out=None, keepdims=False,
/// initial=None, where=True)` (axis: an int, a tuple, or None for every axis; where: a bool
/// array, None or True for every element), plus stream= and target= as a call takes them. The
/// arrays are imported as a call's are (no copies), on the same stream rule; the result comes
/// back as the kind of the first device array (else x's), a NumPy scalar for a 0-d NumPy
/// result; out= returns the out object.
nanobind::object reduce_ufunc(const PyUfunc& ufunc, nanobind::handle x, nanobind::handle axis,
                              nanobind::handle dtype, nanobind::handle out, bool keepdims,
                              nanobind::handle initial, nanobind::handle where, nanobind::handle stream,
                              nanobind::handle target);

/// NumPy's casting= names jitvec applies itself (no, equiv, safe, same_kind); nullopt for
/// 'unsafe' (which jitvec._numpy_api does with NumPy's own casts) and anything else.
std::optional<jitvec::Casting> casting_of(PyObject* value);

/// dtype= (every output of that dtype) and casting=: adds jitvec::loop() to `args` for the
/// first signature whose results are `dtype` (null: the loop NumPy's rule picks) and whose
/// inputs each array casts to, and whose results cast to each out=, by `casting`; else an
/// ArgumentError naming the operands' dtypes and the loops.
void choose_loop(const PyUfunc& self, ArgList& args, nanobind::handle dtype, jitvec::Casting casting);

/// Imports one object as an Array (for jitvec.from_dlpack / tests): as call_ufunc does.
nanobind::object as_jitvec_array(nanobind::handle obj);

/// What a call makes of one argument (for tests): {"kind": "cupy" | "dlpack" | "buffer" | ...,
/// "data", "dtype", "shape", "strides" (in elements), "device" (-1: host), "stream" (the
/// library's current stream it was imported on)}; {"kind": "scalar"} for a scalar.
nanobind::dict describe_import(nanobind::handle obj);

/// Caches NumPy's types; call once at module import.
void init_call(nanobind::module_& m);

}  // namespace jitvec_py
