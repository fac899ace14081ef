#include "fast_interop.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "py_array.hpp"

namespace nb = nanobind;

namespace jitvec_py {
namespace {

// Entry points looked up once; `found` false when a library lacks one (then every call falls
// back to the protocol). Never destroyed: they outlive interpreter teardown races.
struct TorchEntries {
  bool looked = false, found = false;
  nb::object to_dlpack, from_dlpack;
};
struct CupyEntries {
  bool looked = false, found = false;
  nb::object ndarray, memory_pointer, unowned_memory, numpy_dtype;
  std::unordered_map<int, nb::object> dtypes;  // jitvec dtype -> numpy.dtype
};
TorchEntries* torch_entries = new TorchEntries;
CupyEntries* cupy_entries = new CupyEntries;

const TorchEntries& torch_lookup() {
  TorchEntries& e = *torch_entries;
  if (!e.looked) {
    e.looked = true;
    try {
      nb::module_ c = nb::module_::import_("torch._C");
      e.to_dlpack = nb::getattr(c, "_to_dlpack", nb::none());
      e.from_dlpack = nb::getattr(c, "_from_dlpack", nb::none());
      e.found = !e.to_dlpack.is_none() && !e.from_dlpack.is_none();
    } catch (const nb::python_error&) {
      e.found = false;
    }
  }
  return e;
}

const CupyEntries& cupy_lookup() {
  CupyEntries& e = *cupy_entries;
  if (!e.looked) {
    e.looked = true;
    try {
      nb::module_ cupy = nb::module_::import_("cupy");
      nb::module_ cuda = nb::module_::import_("cupy.cuda");
      e.ndarray = nb::getattr(cupy, "ndarray", nb::none());
      e.memory_pointer = nb::getattr(cuda, "MemoryPointer", nb::none());
      e.unowned_memory = nb::getattr(cuda, "UnownedMemory", nb::none());
      e.numpy_dtype = nb::module_::import_("numpy").attr("dtype");
      e.found = !e.ndarray.is_none() && !e.memory_pointer.is_none() && !e.unowned_memory.is_none();
    } catch (const nb::python_error&) {
      e.found = false;
    }
  }
  return e;
}

}  // namespace

TorchPlace torch_place(nb::handle tensor) {
  TorchPlace p;
  p.cuda = nb::cast<bool>(tensor.attr("is_cuda"));
  if (p.cuda) p.device = nb::cast<int>(tensor.attr("get_device")());
  return p;
}

nb::object torch_capsule(nb::handle tensor) {
  const TorchEntries& e = torch_lookup();
  if (!e.found || nb::cast<bool>(tensor.attr("requires_grad"))) return nb::object();
  return e.to_dlpack(tensor);
}

nb::object torch_tensor(const jitvec::Array& array) {
  const TorchEntries& e = torch_lookup();
  if (!e.found) return nb::object();
  return e.from_dlpack(make_capsule(array, false));
}

nb::object cupy_ndarray(nb::handle owner, const jitvec::Array& array) {
  CupyEntries& e = *cupy_entries;
  if (!cupy_lookup().found || !array.is_device() || array.size() == 0) return nb::object();
  const auto item = static_cast<std::int64_t>(jitvec::dtype_size(array.dtype()));
  // The bytes the view spans, from its lowest to its highest element (strides may be negative).
  std::int64_t low = 0, high = 0;
  const int nd = array.ndim();
  nb::object shape = nb::steal(PyTuple_New(nd));
  nb::object strides = nb::steal(PyTuple_New(nd));
  for (int d = 0; d < nd; ++d) {
    const std::int64_t extent = array.shape()[d], step = array.strides()[d] * item;
    if (extent > 0) (step < 0 ? low : high) += (extent - 1) * step;
    PyTuple_SET_ITEM(shape.ptr(), d, PyLong_FromLongLong(extent));
    PyTuple_SET_ITEM(strides.ptr(), d, PyLong_FromLongLong(step));
  }
  const auto data = reinterpret_cast<std::uintptr_t>(array.data());
  const std::int64_t span = high - low + item;
  auto& dtype = e.dtypes[static_cast<int>(array.dtype())];
  if (!dtype.is_valid()) dtype = e.numpy_dtype(numpy_dtype_name(array.dtype()));
  nb::object memory = e.unowned_memory(data + low, span, owner, array.device());
  nb::object pointer = e.memory_pointer(memory, -low);
  return e.ndarray(shape, dtype, pointer, strides);
}

}  // namespace jitvec_py
