// python/src/fast_interop.hpp: the quick ways in and out of PyTorch and CuPy on the call path.
//
// The DLPack protocol's Python-level entry points cost microseconds per array; each library
// also has a direct one that skips the protocol's stream handshake. Measured on the H200 for
// 1024 float32 (bench/NOTES.md, "Python per-call cost"):
//   torch: t.__dlpack__() 2.4 us, torch.from_dlpack() 5.4 us, the tensor's __dlpack_device__
//          about 1 us; torch._C._to_dlpack 0.27 us, torch._C._from_dlpack 0.67 us,
//          t.get_device() 0.1 us.
//   CuPy:  cupy.from_dlpack(jitvec.Array) 4.6 us; cupy.ndarray over cupy.cuda.UnownedMemory
//          1.4 us.
// The handshake (the consumer's stream waits for the producer's) is only skipped where it has
// nothing to do: the call runs on the library's own current stream, so the library's later
// work is ordered after jitvec's by the stream itself. Every other case, and a library that
// lacks an entry point (checked once), takes the protocol as before: these functions then
// return an invalid object and the caller falls back.
#pragma once

#include <nanobind/nanobind.h>

#include <jitvec/array.hpp>

namespace jitvec_py {

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

/// A cupy.ndarray viewing the device Array held by `owner` (a jitvec.Array object, which the
/// CuPy array keeps alive); invalid if CuPy lacks the constructor pieces.
nanobind::object cupy_ndarray(nanobind::handle owner, const jitvec::Array& array);

}  // namespace jitvec_py
