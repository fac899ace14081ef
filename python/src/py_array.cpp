#include "py_array.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <jitvec/dlpack.hpp>
#include <jitvec/errors.hpp>

#include <fmt/format.h>

namespace nb = nanobind;

namespace jitvec_py {
namespace {

constexpr const char* kCapsule = "dltensor";
constexpr const char* kCapsuleVersioned = "dltensor_versioned";
constexpr const char* kUsedCapsule = "used_dltensor";
constexpr const char* kUsedCapsuleVersioned = "used_dltensor_versioned";

// A capsule nobody consumed still owns its tensor.
void capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kCapsuleVersioned)) {
    auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kCapsuleVersioned));
    if (t && t->deleter) t->deleter(t);
  } else if (PyCapsule_IsValid(capsule, kCapsule)) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsule));
    if (t && t->deleter) t->deleter(t);
  }
}

// (kDLCUDA, device) or (kDLCPU, 0).
nb::tuple dlpack_device(const jitvec::Array& a) {
  return nb::make_tuple(a.is_device() ? static_cast<int>(kDLCUDA) : static_cast<int>(kDLCPU),
                        a.is_device() ? a.device() : 0);
}

// The stream a consumer names in __dlpack__(stream=...): an int (None: the legacy default).
std::uintptr_t consumer_stream(nb::handle stream) {
  if (stream.is_none()) return 1;  // the protocol's default for CUDA: the legacy stream
  return nb::cast<std::uintptr_t>(stream);
}

nb::object dlpack(PyArray& self, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                  nb::handle copy) {
  if (!copy.is_none() && nb::cast<bool>(copy)) {
    throw nb::buffer_error("jitvec.Array.__dlpack__: copy=True is not supported (jitvec shares memory)");
  }
  if (!dl_device.is_none()) {
    nb::tuple want = nb::cast<nb::tuple>(dl_device);
    if (!want.equal(dlpack_device(self.array))) {
      throw nb::buffer_error("jitvec.Array.__dlpack__: the array cannot move to another device "
                             "without a copy");
    }
  }
  if (self.array.is_device() && !stream.is_none()) {
    const auto consumer = consumer_stream(stream);
    if (consumer != static_cast<std::uintptr_t>(-1)) {  // -1: the consumer orders it itself
      jitvec::wait_for_stream(reinterpret_cast<CUstream_st*>(consumer),
                              reinterpret_cast<CUstream_st*>(self.stream), self.array.device());
    }
  }
  bool versioned = false;
  if (!max_version.is_none()) {
    nb::tuple v = nb::cast<nb::tuple>(max_version);
    versioned = nb::len(v) >= 1 && nb::cast<int>(v[0]) >= 1;
  }
  return make_capsule(self.array, versioned);
}

nb::object cuda_array_interface(const PyArray& self) {
  const jitvec::Array& a = self.array;
  if (!a.is_device()) {
    throw nb::attribute_error("__cuda_array_interface__: this jitvec.Array is in host memory");
  }
  const std::size_t item = jitvec::dtype_size(a.dtype());
  nb::list shape, strides;
  for (std::int64_t s : a.shape()) shape.append(s);
  for (std::int64_t s : a.strides()) strides.append(s * static_cast<std::int64_t>(item));
  if (a.dtype() == jitvec::DType::bfloat16) {  // the interface has no typestr for it
    throw nb::attribute_error("__cuda_array_interface__: bfloat16 has no typestr; use DLPack");
  }
  const char kind = jitvec::dtype_kind(a.dtype()) == jitvec::DTypeKind::floating       ? 'f'
                    : jitvec::dtype_kind(a.dtype()) == jitvec::DTypeKind::complex      ? 'c'
                    : jitvec::dtype_kind(a.dtype()) == jitvec::DTypeKind::signed_int   ? 'i'
                    : jitvec::dtype_kind(a.dtype()) == jitvec::DTypeKind::unsigned_int ? 'u'
                                                                                       : 'b';
  nb::dict d;
  d["shape"] = nb::tuple(shape);
  d["strides"] = nb::tuple(strides);
  d["typestr"] = fmt::format("<{}{}", kind, item);
  d["data"] = nb::make_tuple(reinterpret_cast<std::uintptr_t>(a.data()), false);
  d["version"] = 3;
  // The consumer waits for this stream's work (None: the legacy default stream, synchronous).
  d["stream"] = self.stream == 0 ? nb::object(nb::int_(1)) : nb::object(nb::int_(self.stream));
  return d;
}

}  // namespace

const char* numpy_dtype_name(jitvec::DType dtype) {
  if (dtype == jitvec::DType::bool_) return "bool";
  return jitvec::dtype_name(dtype).data();  // "float32", "int16", ...: NumPy's names too
}

std::optional<jitvec::DType> dtype_of_typestr(std::string_view t) {
  if (t.size() < 3 || (t[0] != '<' && t[0] != '|' && t[0] != '=')) return std::nullopt;
  int size = 0;
  for (char c : t.substr(2)) {
    if (c < '0' || c > '9' || size > 64) return std::nullopt;
    size = size * 10 + (c - '0');
  }
  switch (t[1]) {
    case 'b': if (size == 1) return jitvec::DType::bool_; break;
    case 'i':
      if (size == 1) return jitvec::DType::int8;
      if (size == 2) return jitvec::DType::int16;
      if (size == 4) return jitvec::DType::int32;
      if (size == 8) return jitvec::DType::int64;
      break;
    case 'u':
      if (size == 1) return jitvec::DType::uint8;
      if (size == 2) return jitvec::DType::uint16;
      if (size == 4) return jitvec::DType::uint32;
      if (size == 8) return jitvec::DType::uint64;
      break;
    case 'f':
      if (size == 2) return jitvec::DType::float16;
      if (size == 4) return jitvec::DType::float32;
      if (size == 8) return jitvec::DType::float64;
      break;
    case 'c':
      if (size == 8) return jitvec::DType::complex64;
      if (size == 16) return jitvec::DType::complex128;
      break;
  }
  return std::nullopt;
}

nb::object make_capsule(const jitvec::Array& array, bool versioned) {
  void* tensor = versioned ? static_cast<void*>(array.to_dlpack_versioned())
                           : static_cast<void*>(array.to_dlpack());
  PyObject* capsule =
      PyCapsule_New(tensor, versioned ? kCapsuleVersioned : kCapsule, &capsule_destructor);
  if (!capsule) {
    if (versioned) {
      auto* t = static_cast<DLManagedTensorVersioned*>(tensor);
      t->deleter(t);
    } else {
      auto* t = static_cast<DLManagedTensor*>(tensor);
      t->deleter(t);
    }
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

jitvec::Array import_capsule(nb::handle capsule, bool writable) {
  PyObject* c = capsule.ptr();
  if (PyCapsule_IsValid(c, kCapsuleVersioned)) {
    auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, kCapsuleVersioned));
    jitvec::Array a = jitvec::Array::from_dlpack(t, writable);
    PyCapsule_SetName(c, kUsedCapsuleVersioned);  // the Array owns the tensor now
    return a;
  }
  if (PyCapsule_IsValid(c, kCapsule)) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, kCapsule));
    jitvec::Array a = jitvec::Array::from_dlpack(t);
    PyCapsule_SetName(c, kUsedCapsule);
    return a;
  }
  throw jitvec::ArgumentError(
      "__dlpack__ returned something other than an unused \"dltensor\" or \"dltensor_versioned\" "
      "capsule");
}

nb::object to_numpy(const jitvec::Array& array) { return to_numpy(jitvec::Array(array)); }

nb::object ml_dtypes_bfloat16() {
  // Imported on each use (a sys.modules lookup once imported), so a test can hide ml_dtypes.
  PyObject* module = PyImport_ImportModule("ml_dtypes");
  if (!module) {
    PyErr_Clear();
    return nb::object();
  }
  nb::object mod = nb::steal(module);
  return nb::getattr(mod, "bfloat16", nb::none()).is_none() ? nb::object() : mod.attr("bfloat16");
}

bool numpy_has_bfloat16() { return ml_dtypes_bfloat16().is_valid(); }

nb::object to_numpy(jitvec::Array&& moved) {
  const jitvec::DType t = moved.dtype();
  nb::object bfloat16;  // the NumPy dtype of a bfloat16 array: ml_dtypes'
  if (t == jitvec::DType::bfloat16) {
    bfloat16 = ml_dtypes_bfloat16();
    if (!bfloat16.is_valid()) {
      throw jitvec::ArgumentError(
          "a bfloat16 array has no NumPy dtype without ml_dtypes (pip install ml_dtypes: the "
          "bfloat16 type JAX and PyTorch interop use); or hand it to torch.from_dlpack or "
          "jax.dlpack.from_dlpack, which take bfloat16 through DLPack");
    }
  }
  // The NumPy array owns a heap copy of the Array (a share of its memory): moved, not copied.
  auto* keep = new jitvec::Array(std::move(moved));
  const jitvec::Array& array = *keep;
  // bfloat16 is viewed as its bits (uint16), then as ml_dtypes.bfloat16.
  const nb::dlpack::dtype dt =
      bfloat16.is_valid()
          ? nb::dlpack::dtype{static_cast<std::uint8_t>(nb::dlpack::dtype_code::UInt), 16, 1}
          : nb::dlpack::dtype{static_cast<std::uint8_t>(jitvec::to_dlpack_dtype(t).code),
                              static_cast<std::uint8_t>(jitvec::dtype_size(t) * 8), 1};
  nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<jitvec::Array*>(p); });
  const int nd = array.ndim();
  std::size_t shape[64];
  for (int d = 0; d < nd; ++d) shape[d] = static_cast<std::size_t>(array.shape()[d]);
  nb::ndarray<nb::numpy> view(array.data(), static_cast<std::size_t>(nd), shape, owner,
                              array.strides().data(), dt, nb::device::cpu::value, 0);
  nb::object numpy = view.cast(nb::rv_policy::reference);
  if (bfloat16.is_valid()) return numpy.attr("view")(bfloat16);
  if (t == jitvec::DType::int64 || t == jitvec::DType::uint64) {
    // nanobind makes 8-byte integers NumPy's long long ('q', 'Q'), whose scalars are not
    // numpy.int64 / numpy.uint64 where those are long ('l', 'L'): viewed as NumPy's own, as
    // NumPy's results are (type(r[0]) is numpy.int64).
    static nb::handle* canonical = [] {
      nb::module_ np = nb::module_::import_("numpy");
      return new nb::handle[2]{np.attr("dtype")("int64").release(), np.attr("dtype")("uint64").release()};
    }();
    nb::handle want = canonical[t == jitvec::DType::int64 ? 0 : 1];
    if (!numpy.attr("dtype").attr("char").equal(want.attr("char"))) return numpy.attr("view")(want);
  }
  return numpy;
}

void register_array(nb::module_& m) {
  nb::class_<PyArray>(m, "Array",
                      "A jitvec array (host or CUDA device memory), as returned where the inputs' "
                      "library is unknown. Speaks DLPack, __cuda_array_interface__ (device) and "
                      "__array__ (host).")
      .def_prop_ro("shape", [](const PyArray& a) {
        nb::list l;
        for (std::int64_t s : a.array.shape()) l.append(s);
        return nb::tuple(l);
      })
      .def_prop_ro("strides", [](const PyArray& a) {  // in elements, as DLPack counts
        nb::list l;
        for (std::int64_t s : a.array.strides()) l.append(s);
        return nb::tuple(l);
      })
      .def_prop_ro("dtype", [](const PyArray& a) { return std::string(numpy_dtype_name(a.array.dtype())); })
      .def_prop_ro("ndim", [](const PyArray& a) { return a.array.ndim(); })
      .def_prop_ro("size", [](const PyArray& a) { return a.array.size(); })
      .def_prop_ro("device", [](const PyArray& a) {
        return a.array.is_device() ? fmt::format("cuda:{}", a.array.device()) : std::string("cpu");
      })
      .def_prop_ro("stream", [](const PyArray& a) { return a.stream; },
                   "The CUDA stream (handle) whose work produced the array.")
      .def("__dlpack__", &dlpack, nb::kw_only(), nb::arg("stream").none() = nb::none(),
           nb::arg("max_version").none() = nb::none(), nb::arg("dl_device").none() = nb::none(),
           nb::arg("copy").none() = nb::none())
      .def("__dlpack_device__", [](const PyArray& a) { return dlpack_device(a.array); })
      .def_prop_ro("__cuda_array_interface__", &cuda_array_interface)
      .def("to_numpy", [](const PyArray& a) {
        return to_numpy(a.array.is_device() ? a.array.to_host(reinterpret_cast<CUstream_st*>(a.stream)) : a.array);
      }, "A NumPy array: a view of host memory, or a copy of device memory.")
      .def("__array__", [](const PyArray& a, nb::handle dtype, nb::handle copy) {
        nb::object arr = to_numpy(a.array.is_device() ? a.array.to_host(reinterpret_cast<CUstream_st*>(a.stream)) : a.array);
        if (!dtype.is_none()) arr = arr.attr("astype")(dtype);
        (void)copy;
        return arr;
      }, nb::arg("dtype").none() = nb::none(), nb::arg("copy").none() = nb::none())
      .def("__repr__", [](const PyArray& a) { return fmt::format("jitvec.Array({})", a.array.describe()); });
}

}  // namespace jitvec_py
