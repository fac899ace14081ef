#include "fast_interop.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>

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

// An attribute of instances of exactly `owner`, read through the C getter of the class's getset
// descriptor (what PyObject_GetAttr finds for a Cython readonly field: a data descriptor, so
// nothing in an instance can shadow it) without the generic lookup; PyObject_GetAttr for
// instances of other types, or when the class has no such descriptor.
struct Member {
  PyObject* name = nullptr;  // interned
  PyTypeObject* owner = nullptr;
  getter get = nullptr;
  void* closure = nullptr;
  bool found = false;  // the class has the attribute at all

  PyObject* read(PyObject* obj) const {
    return get && Py_TYPE(obj) == owner ? get(obj, closure) : PyObject_GetAttr(obj, name);
  }
};

Member member(PyTypeObject* type, const char* name) {
  Member m;
  m.name = PyUnicode_InternFromString(name);
  m.owner = type;
  PyObject* descriptor = PyObject_GetAttr(reinterpret_cast<PyObject*>(type), m.name);  // kept
  if (!descriptor) {
    PyErr_Clear();
    return m;
  }
  m.found = true;
  if (Py_TYPE(descriptor) == &PyGetSetDescr_Type && type->tp_getattro == PyObject_GenericGetAttr) {
    const PyGetSetDef* def = reinterpret_cast<PyGetSetDescrObject*>(descriptor)->d_getset;
    m.get = def->get;
    m.closure = def->closure;
  }
  return m;
}

// CuPy's pieces, found once. `members`: cupy.ndarray and cupy.cuda.MemoryPointer have the
// members cupy_data/cupy_borrow read (CuPy 9 to 14 do). `base_new`: cupy.ndarray(...) is, as in
// CuPy 12 to 14, its base's tp_new then `_init(shape, dtype, memptr, strides)` (ndarray.__new__
// in cupy/_core/core.pyx, whose Python-level call with *args and **kwargs costs a third of the
// construction): new_ndarray then does those two steps itself.
struct CupyEntries {
  bool looked = false, found = false, members = false;
  PyTypeObject* ndarray_type = nullptr;
  PyTypeObject* ndarray_base = nullptr;  // the base whose tp_new makes the object; null: public
  nb::object ndarray, memory_pointer, unowned_memory, get_current_stream, get_device, numpy_dtype;
  nb::object empty_tuple;
  Member data, dtype, shape, strides, c_contiguous, ndim, size;  // cupy.ndarray's
  Member ptr, device_id;                             // cupy.cuda.MemoryPointer's
  PyObject* stream_ptr = nullptr;      // "ptr" of a Stream (an instance attribute)
  PyObject* init = nullptr;            // "_init"
  PyObject* str = nullptr;             // "str" of a numpy.dtype: "<f4"
  std::array<nb::object, 32> scalar_types;  // jitvec dtype -> numpy.float32 & co., on first use
  // numpy.dtype objects seen (CuPy keeps NumPy's canonical ones: a handful) -> jitvec dtype.
  // Held (a reference each), so an address is never reused by another dtype.
  struct Known {
    PyObject* object;
    jitvec::DType dtype;
  };
  std::array<Known, 32> known{};
  std::size_t known_count = 0;
};

TorchEntries* torch_entries = new TorchEntries;
CupyEntries* cupy_entries = new CupyEntries;
InteropSettings* interop = new InteropSettings;

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

// Whether the class has an attribute `name` (for CuPy's Cython classes, the getset descriptor
// of a readonly field).
bool has_descriptor(PyTypeObject* type, PyObject* name) {
  const int found = PyObject_HasAttr(reinterpret_cast<PyObject*>(type), name);
  PyErr_Clear();
  return found == 1;
}

const CupyEntries& cupy_lookup() {
  CupyEntries& e = *cupy_entries;
  if (e.looked) return e;
  e.looked = true;
  try {
    nb::module_ cupy = nb::module_::import_("cupy");
    nb::module_ cuda = nb::module_::import_("cupy.cuda");
    e.ndarray = nb::getattr(cupy, "ndarray", nb::none());
    e.memory_pointer = nb::getattr(cuda, "MemoryPointer", nb::none());
    e.unowned_memory = nb::getattr(cuda, "UnownedMemory", nb::none());
    e.get_current_stream = nb::getattr(cuda, "get_current_stream", nb::none());
    nb::object runtime = nb::getattr(cuda, "runtime", nb::none());
    e.get_device = runtime.is_none() ? nb::none() : nb::getattr(runtime, "getDevice", nb::none());
    e.numpy_dtype = nb::module_::import_("numpy").attr("dtype");
    e.found = !e.ndarray.is_none() && !e.memory_pointer.is_none() && !e.unowned_memory.is_none() &&
              !e.get_current_stream.is_none() && PyType_Check(e.ndarray.ptr());
  } catch (const nb::python_error&) {
    e.found = false;
  }
  if (!e.found) return e;
  e.ndarray_type = reinterpret_cast<PyTypeObject*>(e.ndarray.ptr());
  e.data = member(e.ndarray_type, "data");
  e.dtype = member(e.ndarray_type, "dtype");
  e.shape = member(e.ndarray_type, "shape");
  e.strides = member(e.ndarray_type, "strides");
  e.c_contiguous = member(e.ndarray_type, "_c_contiguous");
  e.ndim = member(e.ndarray_type, "ndim");
  e.size = member(e.ndarray_type, "size");
  e.members = e.data.found && e.dtype.found && e.shape.found && e.strides.found &&
              PyType_Check(e.memory_pointer.ptr());
  if (e.members) {
    auto* pointer_type = reinterpret_cast<PyTypeObject*>(e.memory_pointer.ptr());
    e.ptr = member(pointer_type, "ptr");
    e.device_id = member(pointer_type, "device_id");
    e.members = e.ptr.found && e.device_id.found;
  }
  e.stream_ptr = PyUnicode_InternFromString("ptr");
  e.init = PyUnicode_InternFromString("_init");
  e.str = PyUnicode_InternFromString("str");
  e.empty_tuple = nb::steal(PyTuple_New(0));
  // ndarray.__new__ written in Python (slot_tp_new) over a static base that makes the object,
  // and an _init: the layout new_ndarray's two steps rely on.
  PyTypeObject* base = e.ndarray_type->tp_base;
  if (base && base->tp_new && !(base->tp_flags & Py_TPFLAGS_HEAPTYPE) &&
      (e.ndarray_type->tp_flags & Py_TPFLAGS_HEAPTYPE) && e.ndarray_type->tp_new != base->tp_new &&
      has_descriptor(e.ndarray_type, e.init)) {
    e.ndarray_base = base;
  }
  return e;
}

// A numpy.dtype object as a jitvec dtype; false for those jitvec reads only through DLPack
// (bfloat16 and other extension types, structured, big-endian).
bool jitvec_dtype(CupyEntries& e, PyObject* dtype, jitvec::DType& out) {
  for (std::size_t i = 0; i < e.known_count; ++i) {
    if (e.known[i].object == dtype) {
      out = e.known[i].dtype;
      return true;
    }
  }
  nb::object str = nb::steal(PyObject_GetAttr(dtype, e.str));
  if (!str.is_valid()) throw nb::python_error();
  Py_ssize_t length = 0;
  const char* text = PyUnicode_Check(str.ptr()) ? PyUnicode_AsUTF8AndSize(str.ptr(), &length) : nullptr;
  if (!text) {
    PyErr_Clear();
    return false;
  }
  const std::optional<jitvec::DType> t = dtype_of_typestr(std::string_view(text, static_cast<std::size_t>(length)));
  if (!t) return false;
  if (e.known_count < e.known.size()) {
    Py_INCREF(dtype);
    e.known[e.known_count++] = {dtype, *t};
  }
  out = *t;
  return true;
}

// Element counts from a tuple of ints (shape) or of byte counts divided by `item` (strides).
jitvec::Shape tuple_values(PyObject* tuple, std::int64_t item, const char* what) {
  if (!PyTuple_Check(tuple)) {
    throw jitvec::ArgumentError(fmt::format("cupy.ndarray.{} is not a tuple", what));
  }
  const Py_ssize_t n = PyTuple_GET_SIZE(tuple);
  jitvec::Shape values(static_cast<std::size_t>(n));
  for (Py_ssize_t d = 0; d < n; ++d) {
    const long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, d));
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    if (v % item != 0) {
      throw jitvec::ArgumentError(
          fmt::format("stride of {} bytes is not a multiple of the item size {}", v, item));
    }
    values[static_cast<std::size_t>(d)] = v / item;
  }
  return values;
}

// An int member's value.
long read_long(const Member& m, PyObject* x) {
  nb::object v = nb::steal(m.read(x));
  if (!v.is_valid()) throw nb::python_error();
  const long value = PyLong_AsLong(v.ptr());
  if (value == -1 && PyErr_Occurred()) throw nb::python_error();
  return value;
}

PyObject* call1(PyObject* f, PyObject* a) {
  PyObject* args[] = {nullptr, a};
  return PyObject_Vectorcall(f, args + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
}

// numpy.float32 & co.: what CuPy's constructor turns into a dtype fastest (a type is hashed by
// its address; a dtype object is hashed from its fields).
const nb::object& numpy_scalar_type(CupyEntries& e, jitvec::DType t) {
  nb::object& d = e.scalar_types[static_cast<std::size_t>(t) % e.scalar_types.size()];
  if (!d.is_valid()) d = e.numpy_dtype(numpy_dtype_name(t)).attr("type");
  return d;
}

// cupy.ndarray(shape, dtype, memptr, strides), memptr and strides optional (null).
nb::object new_ndarray(CupyEntries& e, PyObject* shape, PyObject* dtype, PyObject* memptr, PyObject* strides) {
  PyObject* args[] = {nullptr, shape, dtype, memptr, strides};
  const std::size_t n = !memptr ? 2 : !strides ? 3 : 4;
  if (e.ndarray_base && settings().cupy_fast_new) {
    nb::object x = nb::steal(e.ndarray_base->tp_new(e.ndarray_type, e.empty_tuple.ptr(), nullptr));
    if (!x.is_valid()) throw nb::python_error();
    args[0] = x.ptr();
    nb::object none = nb::steal(PyObject_VectorcallMethod(e.init, args, n + 1, nullptr));
    if (!none.is_valid()) throw nb::python_error();
    return x;
  }
  nb::object x = nb::steal(PyObject_Vectorcall(e.ndarray.ptr(), args + 1, n | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr));
  if (!x.is_valid()) throw nb::python_error();
  return x;
}

nb::object shape_tuple(const jitvec::Shape& shape) {
  nb::object t = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(shape.size())));
  if (!t.is_valid()) throw nb::python_error();
  for (std::size_t d = 0; d < shape.size(); ++d) {
    PyObject* v = PyLong_FromLongLong(shape[d]);
    if (!v) throw nb::python_error();
    PyTuple_SET_ITEM(t.ptr(), static_cast<Py_ssize_t>(d), v);
  }
  return t;
}

constexpr const char* kOwnerCapsule = "jitvec.array_owner";

void destroy_owner(PyObject* capsule) {
  delete static_cast<jitvec::Array*>(PyCapsule_GetPointer(capsule, kOwnerCapsule));
}

}  // namespace

InteropSettings& settings() { return *interop; }

TorchPlace torch_place(nb::handle tensor) {
  static PyObject* const is_cuda = PyUnicode_InternFromString("is_cuda");
  static PyObject* const get_device = PyUnicode_InternFromString("get_device");
  TorchPlace p;
  nb::object flag = nb::steal(PyObject_GetAttr(tensor.ptr(), is_cuda));
  if (!flag.is_valid()) throw nb::python_error();
  p.cuda = flag.ptr() == Py_True;
  if (p.cuda) {
    PyObject* args[] = {tensor.ptr()};
    nb::object device = nb::steal(PyObject_VectorcallMethod(get_device, args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr));
    if (!device.is_valid()) throw nb::python_error();
    p.device = static_cast<int>(PyLong_AsLong(device.ptr()));
    if (PyErr_Occurred()) throw nb::python_error();
  }
  return p;
}

nb::object torch_capsule(nb::handle tensor) {
  static PyObject* const requires_grad = PyUnicode_InternFromString("requires_grad");
  const TorchEntries& e = torch_lookup();
  if (!e.found) return nb::object();
  nb::object grad = nb::steal(PyObject_GetAttr(tensor.ptr(), requires_grad));
  if (!grad.is_valid()) throw nb::python_error();
  if (grad.ptr() != Py_False) return nb::object();
  nb::object capsule = nb::steal(call1(e.to_dlpack.ptr(), tensor.ptr()));
  if (!capsule.is_valid()) throw nb::python_error();
  return capsule;
}

nb::object torch_tensor(const jitvec::Array& array) {
  const TorchEntries& e = torch_lookup();
  if (!e.found) return nb::object();
  return e.from_dlpack(make_capsule(array, false));
}

bool is_cupy_ndarray(PyTypeObject* type) {
  const CupyEntries& e = cupy_lookup();
  return e.found && e.members && type == e.ndarray_type;
}

bool cupy_data(PyObject* x, CupyData& data) {
  const CupyEntries& e = *cupy_entries;
  nb::object pointer = nb::steal(e.data.read(x));
  nb::object ptr, device;
  if (pointer.is_valid()) ptr = nb::steal(e.ptr.read(pointer.ptr()));
  if (ptr.is_valid()) device = nb::steal(e.device_id.read(pointer.ptr()));
  if (device.is_valid()) {
    data.ptr = reinterpret_cast<std::uintptr_t>(PyLong_AsVoidPtr(ptr.ptr()));
    data.device = static_cast<int>(PyLong_AsLong(device.ptr()));
  }
  if (!device.is_valid() || PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

std::optional<jitvec::Array> cupy_borrow(PyObject* x, const CupyData& data) {
  CupyEntries& e = *cupy_entries;
  nb::object dtype_object = nb::steal(e.dtype.read(x));
  if (!dtype_object.is_valid()) throw nb::python_error();
  jitvec::DType dtype;
  if (!jitvec_dtype(e, dtype_object.ptr(), dtype)) return std::nullopt;
  // 0-d and 1-d arrays (most calls): the shape from ndim and size, not from the tuple CuPy's
  // shape getter builds from its C++ vector.
  const long ndim = e.ndim.found && e.size.found ? read_long(e.ndim, x) : -1;
  jitvec::Shape shape;
  if (ndim == 1) {
    shape.assign(1, read_long(e.size, x));
  } else if (ndim != 0) {
    nb::object shape_object = nb::steal(e.shape.read(x));
    if (!shape_object.is_valid()) throw nb::python_error();
    shape = tuple_values(shape_object.ptr(), 1, "shape");
  }
  bool contiguous = false;
  if (e.c_contiguous.found) {
    nb::object flag = nb::steal(e.c_contiguous.read(x));
    if (!flag.is_valid()) throw nb::python_error();
    contiguous = flag.ptr() == Py_True;
  }
  jitvec::Strides strides;  // empty: C-contiguous
  if (!contiguous) {
    nb::object strides_object = nb::steal(e.strides.read(x));
    if (!strides_object.is_valid()) throw nb::python_error();
    strides = tuple_values(strides_object.ptr(), static_cast<std::int64_t>(jitvec::dtype_size(dtype)), "strides");
  }
  return jitvec::Array::wrap(reinterpret_cast<void*>(data.ptr), dtype, std::move(shape), std::move(strides),
                             jitvec::Memory::device, data.device);
}

std::uintptr_t cupy_current_stream(int device) {
  const CupyEntries& e = cupy_lookup();
  if (!e.found) throw jitvec::Error("internal: cupy_current_stream without CuPy");
  nb::object index = nb::steal(PyLong_FromLong(device));
  nb::object stream = nb::steal(call1(e.get_current_stream.ptr(), index.ptr()));
  if (!stream.is_valid()) throw nb::python_error();
  nb::object ptr = nb::steal(PyObject_GetAttr(stream.ptr(), e.stream_ptr));
  if (!ptr.is_valid()) throw nb::python_error();
  void* handle = PyLong_AsVoidPtr(ptr.ptr());
  if (!handle && PyErr_Occurred()) throw nb::python_error();
  return reinterpret_cast<std::uintptr_t>(handle);
}

nb::object cupy_view(std::uintptr_t data, jitvec::DType dtype, const jitvec::Shape& shape,
                     const jitvec::Strides& strides, int device, nb::handle owner) {
  CupyEntries& e = *cupy_entries;
  if (!cupy_lookup().found) return nb::object();
  const auto item = static_cast<std::int64_t>(jitvec::dtype_size(dtype));
  // The bytes the view spans, from its lowest to its highest element (strides may be negative).
  std::int64_t low = 0, high = 0, size = 1;
  nb::object byte_strides;
  if (!strides.empty()) {
    byte_strides = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(shape.size())));
    if (!byte_strides.is_valid()) throw nb::python_error();
  }
  for (std::size_t d = 0; d < shape.size(); ++d) {
    size *= shape[d];
    if (strides.empty()) continue;
    const std::int64_t step = strides[d] * item;
    if (shape[d] > 0) (step < 0 ? low : high) += (shape[d] - 1) * step;
    PyObject* v = PyLong_FromLongLong(step);
    if (!v) throw nb::python_error();
    PyTuple_SET_ITEM(byte_strides.ptr(), static_cast<Py_ssize_t>(d), v);
  }
  if (strides.empty()) high = (size - 1) * item;
  nb::object memory = e.unowned_memory(data + low, high - low + item, owner, device);
  nb::object pointer = e.memory_pointer(memory, -low);
  return new_ndarray(e, shape_tuple(shape).ptr(), numpy_scalar_type(e, dtype).ptr(), pointer.ptr(),
                     strides.empty() ? nullptr : byte_strides.ptr());
}

nb::object cupy_ndarray(jitvec::Array& array) {
  if (!cupy_lookup().found || !array.is_device() || array.size() == 0) return nb::object();
  // The owner: a capsule holding the Array (its memory returns to jitvec's allocator when CuPy
  // drops the last view of it). Results are C-contiguous: no strides (CuPy's quicker way).
  auto* held = new jitvec::Array(std::move(array));
  nb::object owner = nb::steal(PyCapsule_New(held, kOwnerCapsule, &destroy_owner));
  if (!owner.is_valid()) {
    array = std::move(*held);
    delete held;
    throw nb::python_error();
  }
  static const jitvec::Strides contiguous;
  return cupy_view(reinterpret_cast<std::uintptr_t>(held->data()), held->dtype(), held->shape(),
                   held->is_contiguous() ? contiguous : held->strides(), held->device(), owner);
}

nb::object cupy_empty(jitvec::DType dtype, const jitvec::Shape& shape, int device) {
  CupyEntries& e = *cupy_entries;
  if (!cupy_lookup().found || e.get_device.is_none()) return nb::object();
  nb::object current = nb::steal(PyObject_CallNoArgs(e.get_device.ptr()));
  if (!current.is_valid()) throw nb::python_error();
  if (PyLong_AsLong(current.ptr()) != device) return nb::object();
  return new_ndarray(e, shape_tuple(shape).ptr(), numpy_scalar_type(e, dtype).ptr(), nullptr, nullptr);
}

}  // namespace jitvec_py
