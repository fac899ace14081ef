// python/src/arguments.hpp: how a call from Python reads its arguments, and makes its results.
//
// classify() sorts one Python object (a scalar, a jitvec.Array, a buffer such as a NumPy array,
// a DLPack or __cuda_array_interface__ producer, a cupy.ndarray, or an object that defers to
// its own __array_ufunc__), once per type finding what its library offers (TypeInfo).
// import_array() then views it as a jitvec::Array without a copy, on the call's stream
// (call_stream()). wrap_result() gives a result back as the kind of array the call was given
// (call.hpp says which). The ufunc call (call.cpp) and the methods and gufuncs (methods.cpp)
// share these; ArgList and Buffers keep a call's arguments on the stack.
#pragma once

#include <nanobind/nanobind.h>

#include <jitvec/ufunc.hpp>

#include <array>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace jitvec_py {

// Which library an argument's type belongs to, found once per type.
enum class Lib : std::uint8_t { numpy, cupy, torch, other };

struct TypeInfo {
  Lib lib = Lib::other;
  bool buffer = false;  // buffer protocol (NumPy): preferred, it costs no Python call
  bool dlpack = false;
  bool cai = false;
  int dlpack_versioned = -1;  // -1: not yet known; 0: __dlpack__ refuses max_version; 1: takes it
  bool cupy_members = false;  // exactly cupy.ndarray: read through its members (fast_interop)
  // No array protocol jitvec reads, but __array_ufunc__ (NEP 13: Dask, xarray, pandas): the
  // call is handed to jitvec._numpy_api, which lets the type's override run it.
  bool defers = false;
  nanobind::object from_dlpack;     // how results go back to this library (None: jitvec.Array)
};

// cupy: a cupy.ndarray read through its members (the DLPack protocol is its fallback).
// defers: an object whose type overrides __array_ufunc__ (TypeInfo::defers), not imported.
enum class Kind : std::uint8_t { scalar, jitvec_array, buffer, dlpack, cai, cupy, defers };

struct Slot {
  Kind kind = Kind::scalar;
  PyObject* obj = nullptr;
  TypeInfo* info = nullptr;
  bool device = false;  // lives in CUDA memory (known before import for DLPack/CAI)
  int device_id = 0;
  int position = 0;     // 1-based argument number; 0 for out=
  std::uintptr_t data = 0;  // Kind::cupy: the address of element (0, ..., 0)
};

// N Slots in storage that is not cleared (Slot is trivially destructible; each is assigned
// before it is read): a call's two arrays of them cost 2.5 KiB of zeroing otherwise.
template <std::size_t N> class SlotArray {
  static_assert(std::is_trivially_destructible_v<Slot>);

 public:
  SlotArray() {}
  Slot* data() { return std::launder(reinterpret_cast<Slot*>(storage_)); }
  Slot& operator[](std::size_t i) { return data()[i]; }
  static constexpr std::size_t size() { return N; }

 private:
  alignas(Slot) unsigned char storage_[N * sizeof(Slot)];
};

// Py_buffer views held for the call: a fixed array, nothing allocated (one per array argument
// at most; the call refuses more than 32 arguments and 32 outputs).
struct Buffers {
  Py_buffer views[65];
  int count = 0;
  Buffers() {}
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  ~Buffers() {
    for (int i = 0; i < count; ++i) PyBuffer_Release(&views[i]);
  }
  void push_back(const Py_buffer& view) {
    if (count == static_cast<int>(std::size(views))) throw jitvec::ArgumentError("too many array arguments");
    views[count++] = view;
  }
};

// The call's jitvec::Args, built in place on the stack (no std::vector per call).
class ArgList {
 public:
  ArgList() {}
  ArgList(const ArgList&) = delete;
  ArgList& operator=(const ArgList&) = delete;
  ~ArgList() {
    for (std::size_t i = 0; i < size_; ++i) data()[i].~Arg();
  }
  template <class... A> void emplace_back(A&&... a) {
    if (size_ == kCapacity) throw jitvec::ArgumentError("too many arguments");
    ::new (static_cast<void*>(&storage_[size_])) jitvec::Arg(std::forward<A>(a)...);
    ++size_;
  }
  const jitvec::Arg* data() const { return std::launder(reinterpret_cast<const jitvec::Arg*>(storage_)); }
  jitvec::Arg* data() { return std::launder(reinterpret_cast<jitvec::Arg*>(storage_)); }
  std::size_t size() const { return size_; }

 private:
  static constexpr std::size_t kCapacity = 68;  // 33 inputs, 32 outputs, stream, target
  struct alignas(jitvec::Arg) Slot {
    unsigned char bytes[sizeof(jitvec::Arg)];
  };
  Slot storage_[kCapacity];
  std::size_t size_ = 0;
};

/// "argument 2", or "out=".
std::string where(const Slot& s);
/// One argument sorted (numpy.asarray for what no protocol reads; made objects go to `keep`).
Slot classify(PyObject* obj, int position, std::vector<nanobind::object>& keep);
/// The slot's object as an Array on `stream` (writable: for out= and at()'s operand).
jitvec::Array import_array(const Slot& s, std::uintptr_t stream, const TypeInfo* stream_library,
                           bool writable, Buffers& buffers, std::vector<nanobind::object>& keep);
/// stream= as a CUstream handle: an int, a CuPy stream (.ptr) or a PyTorch stream (.cuda_stream).
std::uintptr_t stream_of(nanobind::handle stream);
/// A call's stream: stream= (a valid handle), else, inside jitvec.capture's body, the capture's
/// stream (`stream_library` set to the first device array's library: nothing is ordered against
/// it), else the current stream of the library of the first device array (`stream_library` set
/// to it), else a jitvec.Array's own, else 0.
std::uintptr_t call_stream(nanobind::handle stream_obj, const Slot* first_device, const TypeInfo*& stream_library);
/// The result as the kind of array `decider` is (call.hpp); a 0-d NumPy result is a NumPy scalar.
nanobind::object wrap_result(jitvec::Array&& result, std::uintptr_t stream, const Slot* decider,
                             bool on_library_stream);
/// NumPy's dtype= value (a dtype, a type, a name) as jitvec's; `option` names it in errors.
jitvec::DType dtype_of_object(nanobind::handle obj, const char* option);
/// A Python or NumPy scalar as a call's weak scalar.
void push_scalar(ArgList& args, PyObject* obj, int position);

}  // namespace jitvec_py
