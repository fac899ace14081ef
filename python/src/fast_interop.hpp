// python/src/fast_interop.hpp: the quick ways in and out of PyTorch and CuPy on the call path.
//
// The DLPack protocol's Python-level entry points cost microseconds per array; each library
// also has a direct way that skips the protocol. Measured on the H200 for 1024 float32
// (bench/NOTES.md, "Python per-call cost" and "Session 6: Python per call"):
//   torch: t.__dlpack__() 2.4 us, torch.from_dlpack() 5.4 us, the tensor's __dlpack_device__
//          about 1 us; torch._C._to_dlpack 0.27 us, torch._C._from_dlpack 0.67 us,
//          t.get_device() 0.1 us.
//   CuPy:  x.__dlpack_device__() + x.__dlpack__(stream=) + the capsule's import and release
//          about 2 us; cupy.from_dlpack(jitvec.Array) 4.6 us; cupy.ndarray over
//          cupy.cuda.UnownedMemory 1.4 us.
//
// CuPy in: an argument whose type is exactly cupy.ndarray is read through the members CuPy's
// Cython class exposes (data -> MemoryPointer .ptr/.device_id, dtype, shape, _c_contiguous,
// strides only when not contiguous), each through its getset descriptor's C getter, found once
// (the generic attribute lookup skipped); the Array borrows
// the memory for the call (the call's argument tuple keeps the array alive, as it does for NumPy
// buffers). Where the call's stream is not CuPy's current stream the call orders itself after
// it (what __dlpack__(stream=) would do). Subclasses, other versions without these members and
// dtypes jitvec takes only through DLPack use the protocol.
// CuPy out: the result is wrapped as cupy.ndarray(shape, dtype, MemoryPointer(UnownedMemory(
// ptr, size, owner, device))) without strides (results are C-contiguous), the owner a capsule
// holding the Array, the dtype given as numpy.float32 & co.; or (settings().cupy_result == pool,
// an experiment) allocated from CuPy's own memory pool before the call, which then runs as out=.
// The cupy.ndarray is made as CuPy 12-14's ndarray.__new__ makes it (its base's tp_new, then
// _init(shape, dtype, memptr)), skipping that Python-level __new__, when CuPy is laid out so.
// torch: a "dltensor" capsule through torch._C._to_dlpack and results through _from_dlpack
// where the call runs on torch's current stream (no handshake needed), the protocol elsewhere.
//
// Every function returns "no" (false, std::nullopt or an invalid object) when the fast way does
// not apply, and the caller falls back to the protocol.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>

#include <jitvec/array.hpp>

namespace jitvec_py {

/// Which fast paths the call uses (bench/python_dispatch.py and the tests switch them through
/// _jitvec._set_interop; the defaults are what users get).
struct InteropSettings {
  bool cupy_members = true;  // read cupy.ndarray's members (false: __dlpack__)
  enum class CupyResult : std::uint8_t { wrap, pool, protocol };
  CupyResult cupy_result = CupyResult::wrap;
  bool cupy_fast_new = true;  // make cupy.ndarray results as ndarray.__new__ does, in C++
};
InteropSettings& settings();

/// Where a torch.Tensor lives, without __dlpack_device__: {is_cuda, device index}.
struct TorchPlace {
  bool cuda = false;
  int device = 0;
};
TorchPlace torch_place(nanobind::handle tensor);

/// A "dltensor" capsule of a torch.Tensor through torch._C._to_dlpack (no stream handshake);
/// invalid when torch lacks it or the tensor requires grad (the protocol then says why).
nanobind::object torch_capsule(nanobind::handle tensor);

/// A torch.Tensor sharing `array` (through torch._C._from_dlpack); invalid if unavailable.
nanobind::object torch_tensor(const jitvec::Array& array);

/// Whether `type` is exactly cupy.ndarray and CuPy exposes the members read here (found once).
bool is_cupy_ndarray(PyTypeObject* type);

/// x.data.ptr and x.data.device_id of a cupy.ndarray (is_cupy_ndarray); false, with no Python
/// error left, when they cannot be read.
struct CupyData {
  std::uintptr_t ptr = 0;
  int device = 0;
};
bool cupy_data(PyObject* x, CupyData& data);

/// The cupy.ndarray `x` as an Array borrowing its memory (the caller keeps `x` alive while the
/// Array is used); std::nullopt when its dtype is one jitvec reads only through DLPack. Throws
/// ArgumentError (without the argument's position) for strides that are not whole items.
std::optional<jitvec::Array> cupy_borrow(PyObject* x, const CupyData& data);

/// CuPy's current stream on `device` (cupy.cuda.get_current_stream(device).ptr).
std::uintptr_t cupy_current_stream(int device);

/// A cupy.ndarray viewing the device Array `array`, which it takes over (moved from only on
/// success); invalid if CuPy lacks the constructor pieces.
nanobind::object cupy_ndarray(jitvec::Array& array);

/// A cupy.ndarray over `data` (the address of element (0, ..., 0)) on `device`, keeping `owner`
/// alive; `strides` in elements, empty for C-contiguous; invalid if CuPy lacks the pieces.
nanobind::object cupy_view(std::uintptr_t data, jitvec::DType dtype, const jitvec::Shape& shape,
                           const jitvec::Strides& strides, int device, nanobind::handle owner);

/// A new C-contiguous cupy.ndarray of `dtype` and `shape` from CuPy's allocator (its memory
/// pool, ordered on CuPy's current stream); invalid when `device` is not CuPy's current device
/// or CuPy lacks the pieces.
nanobind::object cupy_empty(jitvec::DType dtype, const jitvec::Shape& shape, int device);

}  // namespace jitvec_py
