// python/src/py_array.hpp: jitvec arrays as Python objects, and DLPack capsules.
//
// PyArray (Python: jitvec.Array) holds a jitvec::Array and the stream whose work produced it.
// It speaks DLPack as a producer (__dlpack__ with stream= and max_version=, __dlpack_device__),
// __cuda_array_interface__ for device arrays and __array__ for host arrays, so CuPy, PyTorch,
// NumPy, JAX or Numba take it without a copy. Results of calls on such libraries' arrays are
// handed to them through it (cupy.from_dlpack(PyArray), torch.from_dlpack(PyArray)).
//
// import_capsule() is the consumer side: a capsule from someone's __dlpack__ becomes a
// jitvec::Array through Array::from_dlpack, and the capsule is marked used, as the protocol says.
// to_numpy() wraps a host Array as a NumPy array that owns a share of its memory (bfloat16 as
// ml_dtypes.bfloat16, which has no buffer format: it is imported as a uint16 view).
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include <jitvec/array.hpp>

namespace jitvec_py {

struct PyArray {
  jitvec::Array array;
  std::uintptr_t stream = 0;  // the stream the producing call ran on (device arrays)
};

/// A DLPack capsule ("dltensor_versioned" when `versioned`, else "dltensor") holding a share
/// of `array`; the capsule's destructor releases it unless a consumer renamed it "used_...".
nanobind::object make_capsule(const jitvec::Array& array, bool versioned);

/// The Array inside a "dltensor"/"dltensor_versioned" capsule (renamed "used_..." on success).
/// `writable`: a read-only versioned tensor is an error (for out=).
jitvec::Array import_capsule(nanobind::handle capsule, bool writable);

/// A NumPy array viewing a host Array (sharing its memory; no copy). A bfloat16 Array comes
/// as an ml_dtypes.bfloat16 array (the dtype JAX and PyTorch interop use); without ml_dtypes
/// installed that is an ArgumentError saying so (call results then stay jitvec.Arrays).
nanobind::object to_numpy(const jitvec::Array& array);
/// The same, taking the Array over (no copy of its shape, strides and owner).
nanobind::object to_numpy(jitvec::Array&& array);

/// ml_dtypes.bfloat16, imported on each use; an invalid object where ml_dtypes is missing.
nanobind::object ml_dtypes_bfloat16();
/// Whether NumPy has a bfloat16 dtype here (ml_dtypes imports).
bool numpy_has_bfloat16();

/// "float32" for a dtype, as NumPy names it.
const char* numpy_dtype_name(jitvec::DType dtype);

/// The dtype of an array-interface typestr ("<f4", "|b1", "=i8"; NumPy's dtype.str);
/// std::nullopt for big-endian, structured or unknown types.
std::optional<jitvec::DType> dtype_of_typestr(std::string_view typestr);

void register_array(nanobind::module_& m);

}  // namespace jitvec_py
