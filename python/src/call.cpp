#include "call.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <jitvec/dlpack.hpp>
#include <jitvec/ufunc.hpp>

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <optional>
#include <new>
#include <utility>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "arguments.hpp"
#include "capture.hpp"
#include "errors.hpp"
#include "fast_interop.hpp"
#include "py_array.hpp"
#include "py_scalar.hpp"

namespace nb = nanobind;

namespace jitvec_py {
struct Globals {
  PyTypeObject* numpy_generic = nullptr;
  PyTypeObject* py_array = nullptr;
  nb::object numpy_asarray;
  nb::object numpy_array;
  nb::object numpy_dtype;
  nb::object max_version;  // (1, 0)
  nb::object kwnames_stream_version;  // ("stream", "max_version")
  nb::object kwnames_stream;          // ("stream",)
  nb::object torch_raw_stream;        // torch._C._cuda_getCurrentRawStream
  nb::object torch_current_stream;    // torch.cuda.current_stream (fallback)
  std::unordered_map<PyTypeObject*, TypeInfo> types;
};
Globals* g = nullptr;  // made at import, never destroyed (outlives interpreter teardown races)

std::string root_module(PyTypeObject* type) {
  nb::object mod = nb::getattr(nb::handle(reinterpret_cast<PyObject*>(type)), "__module__", nb::none());
  if (!nb::isinstance<nb::str>(mod)) return "";
  std::string name = nb::cast<std::string>(mod);
  return name.substr(0, name.find('.'));
}

TypeInfo& type_info(PyObject* obj) {
  PyTypeObject* type = Py_TYPE(obj);
  // The last type asked about first: a call's arrays are mostly of one type. The table's
  // entries never move (node-based) nor go away, so the pointer stays valid.
  static PyTypeObject* last_type = nullptr;
  static TypeInfo* last_info = nullptr;
  if (type == last_type) return *last_info;
  auto it = g->types.find(type);
  if (it != g->types.end()) {
    last_type = type;
    last_info = &it->second;
    return it->second;
  }
  TypeInfo info;
  const std::string root = root_module(type);
  info.lib = root == "numpy" ? Lib::numpy : root == "cupy" ? Lib::cupy : root == "torch" ? Lib::torch : Lib::other;
  // CuPy's ndarray type has the buffer slot but refuses it for device memory (the H200 run:
  // "Accessing a CuPy ndarray on CPU is not allowed"): CuPy arrays always come in by DLPack.
  info.buffer = PyObject_CheckBuffer(obj) && info.lib != Lib::cupy;
  info.dlpack = nb::hasattr(obj, "__dlpack__");
  info.cai = nb::hasattr(obj, "__cuda_array_interface__");
  info.cupy_members = info.lib == Lib::cupy && is_cupy_ndarray(type);
  info.defers = !info.buffer && !info.dlpack && !info.cai && info.lib != Lib::numpy &&
                nb::hasattr(nb::handle(reinterpret_cast<PyObject*>(type)), "__array_ufunc__");
  if (info.lib == Lib::numpy) {
    info.from_dlpack = nb::none();  // results as NumPy directly
  } else if (!root.empty()) {
    try {
      nb::object mod = nb::module_::import_(root.c_str());
      info.from_dlpack = nb::getattr(mod, "from_dlpack", nb::none());
    } catch (const nb::python_error&) {  // a __module__ that is no importable module
      info.from_dlpack = nb::none();
    }
  } else {
    info.from_dlpack = nb::none();
  }
  // The table keeps the type alive: a type freed and another made at its address (classes
  // defined in a function) would otherwise find the old type's facts (found on the H200).
  Py_INCREF(reinterpret_cast<PyObject*>(type));
  return g->types.emplace(type, std::move(info)).first->second;
}

std::string where(const Slot& s) {
  return s.position == 0 ? std::string("out=") : fmt::format("argument {}", s.position);
}

jitvec::DType dtype_from_format(const char* format, Py_ssize_t itemsize, const Slot& s) {
  const char* f = format ? format : "B";
  if (*f == '<' || *f == '=' || *f == '@') ++f;
  if (*f == '>' || *f == '!') {
    throw jitvec::ArgumentError(fmt::format("{}: big-endian data (buffer format '{}') is not supported", where(s), format));
  }
  if (f[0] != '\0' && f[1] == '\0') {
    switch (f[0]) {
      case '?': return jitvec::DType::bool_;
      case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
        switch (itemsize) {
          case 1: return jitvec::DType::int8;
          case 2: return jitvec::DType::int16;
          case 4: return jitvec::DType::int32;
          case 8: return jitvec::DType::int64;
        }
        break;
      case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N':
        switch (itemsize) {
          case 1: return jitvec::DType::uint8;
          case 2: return jitvec::DType::uint16;
          case 4: return jitvec::DType::uint32;
          case 8: return jitvec::DType::uint64;
        }
        break;
      case 'e': return jitvec::DType::float16;
      case 'f': return jitvec::DType::float32;
      case 'd': return jitvec::DType::float64;
    }
  }
  if (f[0] == 'Z' && f[1] != '\0' && f[2] == '\0') {  // NumPy's complex formats
    if (f[1] == 'f') return jitvec::DType::complex64;
    if (f[1] == 'd') return jitvec::DType::complex128;
  }
  throw jitvec::ArgumentError(fmt::format(
      "{}: jitvec has no dtype for buffer format '{}' ({} bytes an item); it takes bool, "
      "int8..int64, uint8..uint64, float16, float32, float64, complex64 and complex128 (bfloat16 "
      "as ml_dtypes.bfloat16 or through DLPack)",
      where(s), format ? format : "", itemsize));
}

// Whether the buffer's data and strides suit jitvec: items aligned to their size, strides whole
// items. NumPy arrays that Dask or pickle rebuilt from a byte stream may be unaligned.
bool well_laid_out(const Py_buffer& view) {
  if (reinterpret_cast<std::uintptr_t>(view.buf) % static_cast<std::uintptr_t>(view.itemsize) != 0) return false;
  for (int d = 0; view.strides && d < view.ndim; ++d) {
    if (view.strides[d] % view.itemsize != 0) return false;
  }
  return true;
}

// An ml_dtypes.bfloat16 NumPy array, which has no buffer format: its bits as a uint16 view of
// the same memory (invalid for anything else). Called after its buffer was refused.
nb::object bfloat16_bits(PyObject* obj) {
  if (!PyErr_ExceptionMatches(PyExc_ValueError) && !PyErr_ExceptionMatches(PyExc_BufferError)) return nb::object();
  nb::error_scope refused;  // the buffer error, restored unless this is a bfloat16 array
  nb::object dtype = nb::getattr(nb::handle(obj), "dtype", nb::none());
  if (dtype.is_none() || !nb::hasattr(nb::handle(obj), "view") ||
      nb::cast<std::string>(nb::str(dtype)) != "bfloat16") {
    return nb::object();
  }
  return nb::handle(obj).attr("view")("uint16");
}

jitvec::Array import_buffer(const Slot& s, bool writable, Buffers& buffers,
                            std::vector<nb::object>& keep) {
  Py_buffer view;
  const int flags = PyBUF_RECORDS_RO | (writable ? PyBUF_WRITABLE : 0);
  PyObject* source = s.obj;
  bool bfloat16 = false;
  if (PyObject_GetBuffer(source, &view, flags) != 0) {
    if (nb::object bits = bfloat16_bits(source); bits.is_valid()) {
      PyErr_Clear();
      keep.push_back(std::move(bits));
      source = keep.back().ptr();
      bfloat16 = true;
    }
    if (!bfloat16 || PyObject_GetBuffer(source, &view, flags) != 0) {
      if (writable && (PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_ValueError))) {
        PyErr_Clear();
        throw jitvec::ArgumentError(fmt::format("{}: the array is read-only", where(s)));
      }
      throw nb::python_error();
    }
  }
  if (!well_laid_out(view)) {
    const void* data = view.buf;
    const Py_ssize_t itemsize = view.itemsize;
    PyBuffer_Release(&view);
    if (writable) {
      throw jitvec::ArgumentError(fmt::format(
          "{}: the array's data ({}) or strides are not aligned to its {}-byte items; jitvec "
          "writes only aligned arrays", where(s), data, itemsize));
    }
    // An input: read it from an aligned C-contiguous copy (NumPy's allocations are aligned).
    keep.push_back(g->numpy_array(nb::handle(source), nb::arg("order") = "C", nb::arg("copy") = true));
    if (PyObject_GetBuffer(keep.back().ptr(), &view, PyBUF_RECORDS_RO) != 0) throw nb::python_error();
  }
  buffers.push_back(view);
  const jitvec::DType dtype = bfloat16 ? jitvec::DType::bfloat16 : dtype_from_format(view.format, view.itemsize, s);
  jitvec::Shape shape(view.shape, view.shape + view.ndim);
  jitvec::Strides strides;
  if (view.strides) {
    for (int d = 0; d < view.ndim; ++d) strides.push_back(view.strides[d] / view.itemsize);
  }  // else C-contiguous
  return jitvec::Array::wrap(view.buf, dtype, std::move(shape), std::move(strides));
}

// The value __dlpack__(stream=...) gets for the call's stream: CUDA's legacy default is 1.
std::uintptr_t protocol_stream(std::uintptr_t stream) { return stream == 0 ? 1 : stream; }

// `same_stream`: the call runs on the producer library's own current stream, so the protocol's
// -1 ("the consumer orders it") saves the producer an event and a wait.
jitvec::Array import_dlpack(const Slot& s, std::uintptr_t stream, bool same_stream, bool writable) {
  static PyObject* name = PyUnicode_InternFromString("__dlpack__");
  nb::object stream_arg = !s.device     ? nb::none()
                          : same_stream ? nb::object(nb::int_(-1))
                                        : nb::object(nb::int_(protocol_stream(stream)));
  TypeInfo& info = *s.info;
  nb::object capsule;
  if (same_stream && info.lib == Lib::torch) capsule = torch_capsule(nb::handle(s.obj));
  if (!capsule.is_valid() && info.dlpack_versioned != 0) {
    PyObject* call_args[] = {s.obj, stream_arg.ptr(), g->max_version.ptr()};
    capsule = nb::steal(PyObject_VectorcallMethod(name, call_args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                                  g->kwnames_stream_version.ptr()));
    if (!capsule.is_valid()) {
      if (info.dlpack_versioned == -1 && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();  // an older producer: no max_version
        info.dlpack_versioned = 0;
      } else {
        throw nb::python_error();
      }
    } else {
      info.dlpack_versioned = 1;
    }
  }
  if (!capsule.is_valid()) {
    PyObject* call_args[] = {s.obj, stream_arg.ptr()};
    capsule = nb::steal(PyObject_VectorcallMethod(name, call_args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                                  g->kwnames_stream.ptr()));
    if (!capsule.is_valid()) throw nb::python_error();
  }
  try {
    return import_capsule(capsule, writable);
  } catch (const jitvec::Error& e) {
    throw jitvec::ArgumentError(fmt::format("{}: {}", where(s), e.what()));
  }
}

// A cupy.ndarray, borrowed for the call (the argument tuple or out= keeps it alive). Not on
// CuPy's current stream (stream= given, or the call's stream came from another library), the
// call waits for it, as __dlpack__(stream=) would have it.
jitvec::Array import_cupy(const Slot& s, std::uintptr_t stream, bool same_stream, bool writable) {
  std::optional<jitvec::Array> a;
  try {
    a = cupy_borrow(s.obj, CupyData{s.data, s.device_id});
  } catch (const jitvec::Error& e) {
    throw jitvec::ArgumentError(fmt::format("{}: {}", where(s), e.what()));
  }
  if (!a) return import_dlpack(s, stream, same_stream, writable);  // a dtype only DLPack carries
  if (!same_stream) {
    jitvec::wait_for_stream(reinterpret_cast<CUstream_st*>(stream),
                            reinterpret_cast<CUstream_st*>(cupy_current_stream(s.device_id)), s.device_id);
  }
  return std::move(*a);
}

jitvec::DType dtype_from_typestr(const std::string& t, const Slot& s) {
  if (const std::optional<jitvec::DType> dtype = dtype_of_typestr(t)) return *dtype;
  throw jitvec::ArgumentError(fmt::format(
      "{}: jitvec has no dtype for __cuda_array_interface__ typestr '{}'", where(s), t));
}

jitvec::Array import_cai(const Slot& s, std::uintptr_t stream) {
  nb::dict d = nb::cast<nb::dict>(nb::getattr(nb::handle(s.obj), "__cuda_array_interface__"));
  const jitvec::DType dtype = dtype_from_typestr(nb::cast<std::string>(d["typestr"]), s);
  nb::tuple data = nb::cast<nb::tuple>(d["data"]);
  auto* ptr = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(data[0]));
  jitvec::Shape shape = nb::cast<std::vector<std::int64_t>>(d["shape"]);
  jitvec::Strides strides;
  if (d.contains("strides") && !d["strides"].is_none()) {
    const std::int64_t item = static_cast<std::int64_t>(jitvec::dtype_size(dtype));
    for (nb::handle h : nb::cast<nb::tuple>(d["strides"])) {
      const std::int64_t bytes = nb::cast<std::int64_t>(h);
      if (bytes % item != 0) {
        throw jitvec::ArgumentError(fmt::format("{}: stride of {} bytes is not a multiple of the item size {}", where(s), bytes, item));
      }
      strides.push_back(bytes / item);
    }
  }
  const int device = ptr ? jitvec::device_of_pointer(ptr) : 0;
  if (d.contains("stream") && !d["stream"].is_none()) {
    const auto producer = nb::cast<std::uintptr_t>(d["stream"]);
    jitvec::wait_for_stream(reinterpret_cast<CUstream_st*>(stream), reinterpret_cast<CUstream_st*>(producer), device);
  }
  return jitvec::Array::wrap(ptr, dtype, std::move(shape), std::move(strides), jitvec::Memory::device, device);
}

// The current stream of `lib` on `device` (0 when the library has no notion of one).
std::uintptr_t library_stream(Lib lib, int device) {
  if (lib == Lib::cupy) return cupy_current_stream(device);
  if (lib == Lib::torch) {
    if (!g->torch_raw_stream.is_valid() && !g->torch_current_stream.is_valid()) {
      nb::module_ torch_c = nb::module_::import_("torch._C");
      if (nb::hasattr(torch_c, "_cuda_getCurrentRawStream")) {
        g->torch_raw_stream = torch_c.attr("_cuda_getCurrentRawStream");
      } else {
        g->torch_current_stream = nb::module_::import_("torch.cuda").attr("current_stream");
      }
    }
    if (g->torch_raw_stream.is_valid()) return nb::cast<std::uintptr_t>(g->torch_raw_stream(device));
    return nb::cast<std::uintptr_t>(g->torch_current_stream(device).attr("cuda_stream"));
  }
  return 0;
}

std::uintptr_t stream_of(nb::handle stream) {
  if (nb::isinstance<nb::int_>(stream)) return nb::cast<std::uintptr_t>(stream);
  if (nb::hasattr(stream, "ptr")) return nb::cast<std::uintptr_t>(stream.attr("ptr"));
  if (nb::hasattr(stream, "cuda_stream")) return nb::cast<std::uintptr_t>(stream.attr("cuda_stream"));
  throw jitvec::ArgumentError(
      "stream= takes an int (a CUstream handle), a CuPy stream (.ptr) or a PyTorch stream (.cuda_stream)");
}

// A call's stream: stream= (a valid handle), else the current stream of the library of the
// first device array (`stream_library` set to it), else a jitvec.Array's own, else 0.
std::uintptr_t call_stream(nb::handle stream_obj, const Slot* first_device, const TypeInfo*& stream_library) {
  if (stream_obj.is_valid()) return stream_of(stream_obj);
  if (const CaptureState* capture = active_capture()) {
    if (first_device && first_device->info) stream_library = first_device->info;
    return capture->stream;
  }
  if (first_device && first_device->info) {
    stream_library = first_device->info;
    return library_stream(first_device->info->lib, first_device->device_id);
  }
  if (first_device && first_device->kind == Kind::jitvec_array) {
    return nb::cast<const PyArray&>(nb::handle(first_device->obj)).stream;
  }
  return 0;
}

Slot classify(PyObject* obj, int position, std::vector<nb::object>& keep) {
  Slot s;
  s.obj = obj;
  s.position = position;
  if (PyBool_Check(obj) || PyLong_CheckExact(obj) || PyFloat_CheckExact(obj) || PyComplex_CheckExact(obj)) return s;
  PyTypeObject* type = Py_TYPE(obj);
  if (type == g->py_array) {
    s.kind = Kind::jitvec_array;
    const PyArray& a = nb::cast<const PyArray&>(nb::handle(obj));
    s.device = a.array.is_device();
    s.device_id = a.array.device();
    return s;
  }
  if (PyObject_TypeCheck(obj, g->numpy_generic)) {  // a NumPy scalar: weak, like Python's
    keep.push_back(nb::steal(PyObject_CallMethod(obj, "item", nullptr)));
    if (!keep.back().is_valid()) throw nb::python_error();
    s.obj = keep.back().ptr();
    if (!(PyBool_Check(s.obj) || PyLong_Check(s.obj) || PyFloat_Check(s.obj) || PyComplex_Check(s.obj))) {
      throw jitvec::ArgumentError(fmt::format("{}: NumPy scalar of an unsupported type", where(s)));
    }
    return s;
  }
  if (PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj)) return s;  // subclasses
  s.info = &type_info(obj);
  CupyData cupy;
  if (s.info->cupy_members && settings().cupy_members && cupy_data(obj, cupy)) {
    s.kind = Kind::cupy;
    s.device = true;
    s.device_id = cupy.device;
    s.data = cupy.ptr;
    return s;
  }
  if (s.info->buffer) {
    s.kind = Kind::buffer;
  } else if (s.info->dlpack) {
    s.kind = Kind::dlpack;
    if (s.info->lib == Lib::torch) {  // torch's __dlpack_device__ is Python code: ~1 us
      const TorchPlace place = torch_place(nb::handle(obj));
      s.device = place.cuda;
      s.device_id = place.device;
    } else {
      nb::tuple dev = nb::cast<nb::tuple>(nb::handle(obj).attr("__dlpack_device__")());
      const int type_code = nb::cast<int>(dev[0]);
      s.device = type_code == kDLCUDA || type_code == kDLCUDAManaged;
      s.device_id = nb::cast<int>(dev[1]);
    }
  } else if (s.info->cai) {
    s.kind = Kind::cai;
    s.device = true;
  } else if (s.info->defers) {
    s.kind = Kind::defers;
  } else {
    keep.push_back(g->numpy_asarray(nb::handle(obj)));
    s.obj = keep.back().ptr();
    s.info = &type_info(s.obj);
    s.kind = Kind::buffer;
    if (!s.info->buffer) throw jitvec::ArgumentError(fmt::format("{}: not an array numpy.asarray can read", where(s)));
  }
  return s;
}

jitvec::Array import_array(const Slot& s, std::uintptr_t stream, const TypeInfo* stream_library,
                           bool writable, Buffers& buffers, std::vector<nb::object>& keep) {
  if (CaptureState* capture = active_capture()) capture->used.push_back(nb::borrow(s.obj));
  switch (s.kind) {
    case Kind::jitvec_array: return nb::cast<const PyArray&>(nb::handle(s.obj)).array;
    case Kind::buffer: return import_buffer(s, writable, buffers, keep);
    case Kind::dlpack:
      return import_dlpack(s, stream, stream_library && s.info && s.info->lib == stream_library->lib &&
                                          s.info->lib != Lib::other, writable);
    case Kind::cai: return import_cai(s, stream);
    case Kind::cupy:
      return import_cupy(s, stream, stream_library && stream_library->lib == Lib::cupy, writable);
    case Kind::scalar: break;
    case Kind::defers:
      throw jitvec::ArgumentError(fmt::format("{}: a {} defers to its own __array_ufunc__ and is not read here",
                                              where(s), Py_TYPE(s.obj)->tp_name));
  }
  throw jitvec::Error("internal: import_array on a scalar");
}

void push_scalar(ArgList& args, PyObject* obj, int position) {
  args.emplace_back(scalar_of(obj, nullptr, position));
}

// `on_library_stream`: the call ran on the current stream of the decider's library, so the
// result needs no stream handshake and takes the library's direct constructor (fast_interop).
nb::object wrap_result(jitvec::Array&& result, std::uintptr_t stream, const Slot* decider,
                       bool on_library_stream) {
  // NumPy in (or scalars only), NumPy out; a 0-d result is a NumPy scalar, as NumPy's ufuncs
  // and reductions give. bfloat16 is NumPy's through ml_dtypes only: without it, a jitvec.Array.
  if ((!decider || (decider->kind == Kind::buffer && !result.is_device())) &&
      (result.dtype() != jitvec::DType::bfloat16 || numpy_has_bfloat16())) {
    const bool scalar = result.ndim() == 0;
    nb::object arr = to_numpy(std::move(result));
    return scalar ? arr[nb::tuple()] : arr;
  }
  if (!decider || decider->kind == Kind::buffer) return nb::cast(PyArray{std::move(result), stream});
  if (on_library_stream && decider->info && decider->info->lib == Lib::torch) {
    nb::object tensor = torch_tensor(result);
    if (tensor.is_valid()) return tensor;
  }
  if (on_library_stream && decider->info && decider->info->lib == Lib::cupy &&
      settings().cupy_result != InteropSettings::CupyResult::protocol) {
    nb::object array = cupy_ndarray(result);  // takes the result over when it succeeds
    if (array.is_valid()) return array;
  }
  nb::object wrapped = nb::cast(PyArray{std::move(result), stream});
  const bool has_converter = decider->kind != Kind::jitvec_array && decider->info &&
                             !decider->info->from_dlpack.is_none();
  return has_converter ? decider->info->from_dlpack(wrapped) : wrapped;
}

jitvec::DType dtype_of_object(nb::handle obj, const char* option) {
  std::string name;
  try {
    name = nb::cast<std::string>(g->numpy_dtype(obj).attr("name"));
  } catch (const nb::python_error&) {
    if (!nb::isinstance<nb::str>(obj)) throw;
    name = nb::cast<std::string>(obj);  // "bfloat16" where ml_dtypes is not installed
  }
  const std::optional<jitvec::DType> dtype = jitvec::parse_dtype(name);
  if (!dtype) throw jitvec::ArgumentError(fmt::format("{}{}: not a dtype jitvec has", option, name));
  return *dtype;
}

namespace {

// The GIL: released while a call may compile, wait or run long, kept otherwise (a release and
// re-acquire costs a fraction of a microsecond, a tenth of a warm call). A call keeps it when
// (1) the ufunc has completed a call of the same key before (the argument kinds and dtypes,
// whether each array is on the device, the target: the same loop, already loaded, so no
// compile), and (2) it is short: on cuda, every array is device memory (an asynchronous launch,
// no copy or wait); on cpu/parallel, no array has more than kShortHostElements elements. A key
// collision (64-bit hash) can only keep the GIL through a compile: slower, never wrong.
constexpr std::int64_t kShortHostElements = std::int64_t{1} << 15;

std::uint64_t call_key(const ArgList& args, jitvec::Target target) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  auto mix = [&h](std::uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  mix(static_cast<std::uint64_t>(target));
  for (std::size_t i = 0; i < args.size(); ++i) {
    const jitvec::Arg& a = args.data()[i];
    mix(static_cast<std::uint64_t>(a.kind()) + 1);
    if (a.kind() == jitvec::Arg::Kind::array || a.kind() == jitvec::Arg::Kind::out) {
      mix(static_cast<std::uint64_t>(a.array().dtype()) | (a.array().is_device() ? 0x100u : 0u));
    } else if (a.kind() == jitvec::Arg::Kind::scalar) {
      mix(static_cast<std::uint64_t>(a.scalar().type));
    } else if (a.kind() == jitvec::Arg::Kind::loop) {
      mix(a.loop_value().signature_index << 8 | static_cast<std::uint64_t>(a.loop_value().casting));
    }
  }
  return h;
}

bool is_short(const ArgList& args, jitvec::Target target) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const jitvec::Arg& a = args.data()[i];
    if (a.kind() != jitvec::Arg::Kind::array && a.kind() != jitvec::Arg::Kind::out) continue;
    if (target == jitvec::Target::cuda ? !a.array().is_device() : a.array().size() > kShortHostElements) {
      return false;
    }
  }
  return true;
}

// The index of `key` among the ufunc's warm calls, or -1.
int warm_index(const PyUfunc& u, std::uint64_t key) {
  for (std::size_t i = 0; i < u.warm_calls.size(); ++i) {
    if (u.warm_calls[i] == key) return static_cast<int>(i);
  }
  return -1;
}

bool is_warm(const PyUfunc& u, std::uint64_t key) { return warm_index(u, key) >= 0; }

// `result`: the single result of an allocating call (null otherwise).
void remember_warm(const PyUfunc& u, std::uint64_t key, const jitvec::Array* result) {
  int i = warm_index(u, key);
  if (i < 0) {
    i = static_cast<int>(u.warm_next++ % u.warm_calls.size());
    u.warm_calls[static_cast<std::size_t>(i)] = key;
    u.warm_result[static_cast<std::size_t>(i)] = 0;
  }
  if (result) u.warm_result[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(static_cast<int>(result->dtype()) + 1);
}

// The shape the call's arrays broadcast to (NumPy's rule); false when they do not (the call
// itself then says why).
bool broadcast_shape(const ArgList& args, jitvec::Shape& shape) {
  shape.clear();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const jitvec::Arg& a = args.data()[i];
    if (a.kind() != jitvec::Arg::Kind::array) continue;
    const jitvec::Shape& s = a.array().shape();
    if (s.size() > shape.size()) shape.insert(shape.begin(), s.size() - shape.size(), 1);
    const std::size_t lead = shape.size() - s.size();
    for (std::size_t d = 0; d < s.size(); ++d) {
      std::int64_t& have = shape[lead + d];
      if (s[d] == have || s[d] == 1) continue;
      if (have != 1) return false;
      have = s[d];
    }
  }
  return true;
}

// settings().cupy_result == pool: the result of a warm allocating call on CuPy's stream,
// allocated by CuPy (its pool) and added to `args` as out=; invalid when that does not apply.
nb::object pooled_cupy_result(const PyUfunc& u, std::uint64_t key, const Slot* decider, ArgList& args) {
  const int i = warm_index(u, key);
  if (i < 0 || u.warm_result[static_cast<std::size_t>(i)] == 0) return nb::object();
  jitvec::Shape shape;
  if (!broadcast_shape(args, shape)) return nb::object();
  const auto dtype = static_cast<jitvec::DType>(u.warm_result[static_cast<std::size_t>(i)] - 1);
  nb::object result = cupy_empty(dtype, shape, decider->device_id);
  CupyData data;
  if (!result.is_valid() || !cupy_data(result.ptr(), data)) return nb::object();
  args.emplace_back(jitvec::out(jitvec::Array::wrap(reinterpret_cast<void*>(data.ptr), dtype, std::move(shape),
                                                    {}, jitvec::Memory::device, data.device)));
  return result;
}

// The keyword names call_ufunc takes, interned at import: a keyword is found by pointer first.
PyObject* kw_out = nullptr;
PyObject* kw_stream = nullptr;
PyObject* kw_target = nullptr;
PyObject* kw_dtype = nullptr;
PyObject* kw_casting = nullptr;

// jitvec._numpy_api's entry for calls this file does not make itself (NEP 13 overrides,
// positional out, where=, signature=, casting='unsafe', ...), imported at its first use.
nb::object numpy_api_call() {
  static nb::object* call = nullptr;
  if (!call) call = new nb::object(nb::module_::import_("jitvec._numpy_api").attr("ufunc_call"));
  return *call;
}

bool keyword_is(PyObject* key, PyObject* interned) {
  return key == interned || (PyUnicode_Check(key) && PyUnicode_Compare(key, interned) == 0);
}

}  // namespace

// NumPy's casting= names jitvec applies itself; nullopt for 'unsafe' and anything else.
std::optional<jitvec::Casting> casting_of(PyObject* value) {
  const char* name = PyUnicode_AsUTF8(value);
  if (!name) throw nb::python_error();
  const std::string_view v(name);
  if (v == "no" || v == "equiv") return jitvec::Casting::no;
  if (v == "safe") return jitvec::Casting::safe;
  if (v == "same_kind") return jitvec::Casting::same_kind;
  return std::nullopt;
}

// NumPy's dtype= (every output of that dtype) and casting=: adds jitvec::loop() for the first
// signature whose results are `dtype` and to which each array input casts by `casting`; with
// casting alone, the loop NumPy's rule picks, its inputs and outputs held to `casting`.
void choose_loop(const PyUfunc& self, ArgList& args, nb::handle dtype_obj, jitvec::Casting casting) {
  const std::vector<jitvec::Signature>& signatures = self.ufunc.signatures();
  std::vector<jitvec::DType> arrays;  // the inputs' dtypes; scalars as bool_ with a flag
  std::vector<bool> is_scalar;
  std::vector<jitvec::DType> outs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const jitvec::Arg& a = args.data()[i];
    if (a.kind() == jitvec::Arg::Kind::array || a.kind() == jitvec::Arg::Kind::scalar) {
      is_scalar.push_back(a.kind() == jitvec::Arg::Kind::scalar);
      arrays.push_back(a.kind() == jitvec::Arg::Kind::array ? a.array().dtype() : jitvec::DType::bool_);
    } else if (a.kind() == jitvec::Arg::Kind::out) {
      outs.push_back(a.array().dtype());
    }
  }
  auto fits = [&](const jitvec::Signature& sig) {
    if (sig.args.size() != arrays.size()) return false;
    for (std::size_t k = 0; k < arrays.size(); ++k) {
      if (!is_scalar[k] && !jitvec::can_cast(arrays[k], sig.args[k], casting)) return false;
    }
    for (std::size_t j = 0; j < outs.size() && j < sig.results.size(); ++j) {
      if (!jitvec::can_cast(sig.results[j], outs[j], casting)) return false;
    }
    return true;
  };
  if (!dtype_obj.is_valid()) {
    const std::size_t index = self.ufunc.loop_for(args.data(), args.size());
    if (!fits(signatures[index])) {
      std::vector<std::string> given;
      for (std::size_t k = 0; k < arrays.size(); ++k) given.emplace_back(is_scalar[k] ? "scalar" : jitvec::dtype_name(arrays[k]));
      for (jitvec::DType d : outs) given.push_back(fmt::format("out={}", jitvec::dtype_name(d)));
      throw jitvec::ArgumentError(fmt::format(
          "ufunc '{}': its loop for these operands ({}), {}, needs a cast that casting='{}' does not allow",
          self.ufunc.name(), fmt::join(given, ", "), signatures[index].to_string(), jitvec::casting_name(casting)));
    }
    args.emplace_back(jitvec::loop(index, casting));
    return;
  }
  const jitvec::DType dtype = dtype_of_object(dtype_obj, "dtype=");
  for (std::size_t i = 0; i < signatures.size(); ++i) {
    bool returns = true;
    for (jitvec::DType r : signatures[i].results) returns &= r == dtype;
    if (returns && fits(signatures[i])) {
      args.emplace_back(jitvec::loop(i, casting));
      return;
    }
  }
  std::vector<std::string> loops, inputs;
  for (const auto& sig : signatures) loops.push_back(sig.to_string());
  for (std::size_t k = 0; k < arrays.size(); ++k) inputs.emplace_back(is_scalar[k] ? "scalar" : jitvec::dtype_name(arrays[k]));
  throw jitvec::ArgumentError(fmt::format(
      "ufunc '{}': no loop returns {} for inputs ({}) with casting='{}' (its loops: {})", self.ufunc.name(),
      jitvec::dtype_name(dtype), fmt::join(inputs, ", "), jitvec::casting_name(casting), fmt::join(loops, "; ")));
}

namespace {

}  // namespace

void init_call(nb::module_& m) {
  g = new Globals;
  nb::module_ np = nb::module_::import_("numpy");
  g->numpy_generic = reinterpret_cast<PyTypeObject*>(np.attr("generic").ptr());
  Py_INCREF(g->numpy_generic);
  g->numpy_asarray = np.attr("asarray");
  g->numpy_array = np.attr("array");
  g->numpy_dtype = np.attr("dtype");
  g->py_array = reinterpret_cast<PyTypeObject*>(m.attr("Array").ptr());
  g->max_version = nb::make_tuple(jitvec::kDLPackMajorVersion, jitvec::kDLPackMinorVersion);
  g->kwnames_stream_version = nb::make_tuple("stream", "max_version");
  g->kwnames_stream = nb::make_tuple("stream");
  kw_out = PyUnicode_InternFromString("out");
  kw_stream = PyUnicode_InternFromString("stream");
  kw_target = PyUnicode_InternFromString("target");
  kw_dtype = PyUnicode_InternFromString("dtype");
  kw_casting = PyUnicode_InternFromString("casting");
}

nb::object call_ufunc(PyObject* self_obj, const PyUfunc& self, PyObject* args, PyObject* kwargs) {
  nb::handle out_obj, stream_obj, target_obj, dtype_obj;
  std::optional<jitvec::Casting> casting;
  // What this function does not do itself, jitvec._numpy_api does (and calls back here).
  auto numpy_path = [&] {
    nb::object full = nb::steal(PySequence_Concat(nb::make_tuple(nb::handle(self_obj)).ptr(), args));
    if (!full.is_valid()) throw nb::python_error();
    PyObject* result = PyObject_Call(numpy_api_call().ptr(), full.ptr(), kwargs);
    if (!result) throw nb::python_error();
    return nb::steal(result);
  };
  if (kwargs) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      if (keyword_is(key, kw_out)) {
        out_obj = value;
      } else if (keyword_is(key, kw_stream)) {
        stream_obj = value;
      } else if (keyword_is(key, kw_target)) {
        target_obj = value;
      } else if (keyword_is(key, kw_dtype)) {
        dtype_obj = value;
      } else if (keyword_is(key, kw_casting) && PyUnicode_Check(value)) {
        casting = casting_of(value);
        if (!casting) return numpy_path();  // 'unsafe' (a NumPy cast first), or a bad value
      } else {
        return numpy_path();  // where=, signature=, order=, ...; an unknown keyword is a TypeError there
      }
    }
  }
  if (static_cast<std::size_t>(PyTuple_GET_SIZE(args)) > static_cast<std::size_t>(self.ufunc.nin())) {
    return numpy_path();  // outputs given by position
  }
  if (out_obj.is_valid() && out_obj.is_none()) out_obj = nb::handle();
  if (dtype_obj.is_valid() && dtype_obj.is_none()) dtype_obj = nb::handle();
  if (stream_obj.is_valid() && stream_obj.is_none()) stream_obj = nb::handle();
  if (target_obj.is_valid() && target_obj.is_none()) target_obj = nb::handle();

  const std::size_t n = static_cast<std::size_t>(PyTuple_GET_SIZE(args));
  std::vector<nb::object> keep;  // objects made for the call (numpy.asarray, NumPy scalar items)
  // Slots are set before they are read (classify makes each): left uninitialized, not cleared.
  SlotArray<33> slots_storage;
  if (n + 1 > slots_storage.size()) {
    throw jitvec::ArgumentError(fmt::format("ufunc '{}' was given {} arguments", self.ufunc.name(), n));
  }
  Slot* slots = slots_storage.data();
  const Slot* decider = nullptr;
  const Slot* first_device = nullptr;
  bool defers = false;
  for (std::size_t i = 0; i < n; ++i) {
    slots[i] = classify(PyTuple_GET_ITEM(args, static_cast<Py_ssize_t>(i)), static_cast<int>(i + 1), keep);
    defers |= slots[i].kind == Kind::defers;
    if (slots[i].kind != Kind::scalar) {
      if (!decider) decider = &slots[i];
      if (slots[i].device && !first_device) first_device = &slots[i];
    }
  }
  // out=: one array, or a tuple (or list) of one array per output, as NumPy's ufuncs take it.
  const int nout = self.ufunc.nout();
  SlotArray<32> out_slots;
  std::array<PyObject*, 32> out_objects{};  // as the caller gave them: what a call with out= returns
  std::size_t outs = 0;
  if (out_obj.is_valid()) {
    const bool sequence = PyTuple_Check(out_obj.ptr()) || PyList_Check(out_obj.ptr());
    outs = sequence ? static_cast<std::size_t>(PySequence_Size(out_obj.ptr())) : 1;
    if (outs != static_cast<std::size_t>(nout)) {
      throw jitvec::ArgumentError(fmt::format(
          "ufunc '{}' has {} output{}, but out= gives {} array{}{}", self.ufunc.name(), nout,
          nout == 1 ? "" : "s", outs, outs == 1 ? "" : "s",
          nout > 1 ? " (pass a tuple with one array per output)" : ""));
    }
    // One array: the keyword dict holds it for the call. A sequence: a tuple of it (a list
    // may change while the call runs), held in `keep`.
    PyObject* held = nullptr;
    if (sequence) {
      keep.push_back(nb::steal(PySequence_Tuple(out_obj.ptr())));
      if (!keep.back().is_valid()) throw nb::python_error();
      held = keep.back().ptr();
    }
    for (std::size_t j = 0; j < outs; ++j) {
      out_objects[j] = held ? PyTuple_GET_ITEM(held, static_cast<Py_ssize_t>(j)) : out_obj.ptr();
      out_slots[j] = classify(out_objects[j], 0, keep);
      defers |= out_slots[j].kind == Kind::defers;
      if (out_slots[j].kind == Kind::scalar) throw jitvec::ArgumentError("out= must be an array, not a scalar");
      if (out_slots[j].device && !first_device) first_device = &out_slots[j];
    }
  }
  if (defers) return numpy_path();  // NEP 13: the argument's __array_ufunc__ runs the call
  if (first_device) decider = first_device;

  const TypeInfo* stream_library = nullptr;  // whose current stream the call runs on
  const std::uintptr_t stream = call_stream(stream_obj, first_device, stream_library);

  Buffers buffers;
  ArgList call_args;
  for (std::size_t i = 0; i < n; ++i) {
    if (slots[i].kind == Kind::scalar) {
      push_scalar(call_args, slots[i].obj, static_cast<int>(i + 1));
    } else {
      if (slots[i].kind == Kind::jitvec_array) {  // refers to the argument's own Array: no copy
        call_args.emplace_back(static_cast<const jitvec::Array&>(nb::inst_ptr<PyArray>(nb::handle(slots[i].obj))->array));
      } else {
        call_args.emplace_back(import_array(slots[i], stream, stream_library, false, buffers, keep));
      }
    }
  }
  for (std::size_t j = 0; j < outs; ++j) {
    if (out_slots[j].kind == Kind::jitvec_array) {
      call_args.emplace_back(jitvec::out(nb::inst_ptr<PyArray>(nb::handle(out_slots[j].obj))->array));
    } else {
      call_args.emplace_back(jitvec::out(import_array(out_slots[j], stream, stream_library, true, buffers, keep)));
    }
  }
  call_args.emplace_back(jitvec::on(reinterpret_cast<CUstream_st*>(stream)));
  std::optional<jitvec::Target> explicit_target;
  if (target_obj.is_valid()) {
    const std::string name = nb::cast<std::string>(nb::str(target_obj));
    explicit_target = jitvec::parse_target(name);
    if (!explicit_target) throw jitvec::TargetError(fmt::format("unknown target '{}': jitvec has cuda, cpu and parallel", name));
    call_args.emplace_back(jitvec::target(*explicit_target));
  }
  if (dtype_obj.is_valid() || casting) choose_loop(self, call_args, dtype_obj, casting.value_or(jitvec::Casting::same_kind));

  const bool on_library_stream = stream_library && decider && decider->info &&
                                 decider->info->lib == stream_library->lib;
  const jitvec::Target target = explicit_target ? *explicit_target : self.ufunc.default_target();
  const std::uint64_t key = call_key(call_args, target);
  nb::object pooled;
  if (!outs && nout == 1 && on_library_stream && decider->info->lib == Lib::cupy &&
      settings().cupy_result == InteropSettings::CupyResult::pool) {
    pooled = pooled_cupy_result(self, key, decider, call_args);
  }
  const bool keep_gil = is_warm(self, key) && is_short(call_args, target);
  std::optional<nb::gil_scoped_release> release;
  if (!keep_gil) release.emplace();
  if (nout > 1) {  // a tuple of the outputs: out='s own objects, or the new arrays
    std::vector<jitvec::Array> results = self.ufunc.call_outputs(call_args.data(), call_args.size());
    release.reset();
    remember_warm(self, key, nullptr);
    nb::object tuple = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(results.size())));
    for (std::size_t j = 0; j < results.size(); ++j) {
      nb::object item = outs ? nb::borrow(out_objects[j])
                             : wrap_result(std::move(results[j]), stream, decider, on_library_stream);
      PyTuple_SET_ITEM(tuple.ptr(), static_cast<Py_ssize_t>(j), item.release().ptr());
    }
    return tuple;
  }
  jitvec::Array result = self.ufunc.call(call_args.data(), call_args.size());
  release.reset();
  remember_warm(self, key, outs ? nullptr : &result);
  if (outs) return nb::borrow(out_objects[0]);
  if (pooled.is_valid()) return pooled;
  return wrap_result(std::move(result), stream, decider, on_library_stream);
}

PyObject* ufunc_tp_call(PyObject* self, PyObject* args, PyObject* kwargs) noexcept {
  try {
    return call_ufunc(self, *nb::inst_ptr<PyUfunc>(nb::handle(self)), args, kwargs).release().ptr();
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

nb::object as_jitvec_array(nb::handle obj) {
  std::vector<nb::object> keep;
  Slot s = classify(obj.ptr(), 1, keep);
  if (s.kind == Kind::scalar) {
    keep.push_back(g->numpy_asarray(obj));
    s = classify(keep.back().ptr(), 1, keep);
  }
  if (s.kind == Kind::jitvec_array) return nb::borrow(obj);
  if (s.kind == Kind::cupy) s.kind = Kind::dlpack;  // an Array that owns a reference: DLPack
  if (s.kind == Kind::buffer && s.info->dlpack) {  // NumPy: a view through DLPack, owning a reference
    s.kind = Kind::dlpack;
    nb::tuple dev = nb::cast<nb::tuple>(obj.attr("__dlpack_device__")());
    s.device = nb::cast<int>(dev[0]) == kDLCUDA || nb::cast<int>(dev[0]) == kDLCUDAManaged;
    s.device_id = nb::cast<int>(dev[1]);
  }
  const std::uintptr_t stream = s.device && s.info ? library_stream(s.info->lib, s.device_id) : 0;
  Buffers buffers;
  jitvec::Array a = import_array(s, stream, s.device ? s.info : nullptr, false, buffers, keep);
  if (s.kind == Kind::buffer) a = a.to_host();  // the view would outlive its buffer: copy
  return nb::cast(PyArray{std::move(a), stream});
}

nb::object reduce_ufunc(const PyUfunc& self, nb::handle x_obj, nb::handle axis, nb::handle dtype, nb::handle out_obj,
                        bool keepdims, nb::handle initial, nb::handle where_obj, nb::handle stream_obj,
                        nb::handle target_obj) {
  jitvec::ReduceOptions options;
  if (!axis.is_none()) {
    options.axes = PySequence_Check(axis.ptr()) ? nb::cast<std::vector<int>>(axis)
                                                : std::vector<int>{nb::cast<int>(axis)};
  }
  options.keepdims = keepdims;
  if (!initial.is_none()) options.initial = scalar_of(initial.ptr(), "initial=");
  if (!dtype.is_none()) options.dtype = dtype_of_object(dtype, "reduce(): dtype=");
  if (!target_obj.is_none()) {
    const std::string name = nb::cast<std::string>(nb::str(target_obj));
    options.target = jitvec::parse_target(name);
    if (!options.target) throw jitvec::TargetError(fmt::format("unknown target '{}': jitvec has cuda, cpu and parallel", name));
  }
  // The arrays: x, where= (None or True: every element), out=; a scalar becomes a 0-d array.
  std::vector<nb::object> keep;
  auto slot_of = [&](nb::handle obj, int position) {
    Slot s = classify(obj.ptr(), position, keep);
    if (s.kind != Kind::scalar) return s;
    keep.push_back(g->numpy_asarray(obj));
    return classify(keep.back().ptr(), position, keep);
  };
  const bool masked = !where_obj.is_none() && !where_obj.is(Py_True);
  std::array<Slot, 3> slots{slot_of(x_obj, 1)};
  std::size_t count = 1;
  if (masked) slots[count++] = slot_of(where_obj, 2);
  if (!out_obj.is_none()) slots[count++] = slot_of(out_obj, 0);
  const Slot* first_device = nullptr;
  for (std::size_t i = 0; i < count && !first_device; ++i) {
    if (slots[i].device) first_device = &slots[i];
  }
  const TypeInfo* stream_library = nullptr;
  const std::uintptr_t stream = call_stream(stream_obj.is_none() ? nb::handle() : stream_obj, first_device, stream_library);
  options.stream = reinterpret_cast<CUstream_st*>(stream);
  Buffers buffers;
  const jitvec::Array x = import_array(slots[0], stream, stream_library, false, buffers, keep);
  if (masked) options.where = import_array(slots[1], stream, stream_library, false, buffers, keep);
  if (!out_obj.is_none()) options.out = import_array(slots[count - 1], stream, stream_library, true, buffers, keep);
  std::optional<jitvec::Array> result;
  {
    nb::gil_scoped_release release;
    result = self.ufunc.reduce(x, options);
  }
  if (!out_obj.is_none()) return nb::borrow(out_obj);
  const Slot* decider = first_device ? first_device : &slots[0];
  const bool on_library_stream = stream_library && decider->info && decider->info->lib == stream_library->lib;
  return wrap_result(std::move(*result), stream, decider, on_library_stream);  // 0-d NumPy: a scalar
}

nb::dict describe_import(nb::handle obj) {
  static const char* const kinds[] = {"scalar", "jitvec_array", "buffer", "dlpack", "cai", "cupy"};
  std::vector<nb::object> keep;
  const Slot s = classify(obj.ptr(), 1, keep);
  nb::dict d;
  d["kind"] = kinds[static_cast<int>(s.kind)];
  if (s.kind == Kind::scalar) return d;
  const std::uintptr_t stream = s.device && s.info ? library_stream(s.info->lib, s.device_id) : 0;
  Buffers buffers;
  const jitvec::Array a = import_array(s, stream, s.device ? s.info : nullptr, false, buffers, keep);
  d["data"] = reinterpret_cast<std::uintptr_t>(a.data());
  d["dtype"] = numpy_dtype_name(a.dtype());
  d["shape"] = nb::tuple(nb::cast(a.shape()));
  d["strides"] = nb::tuple(nb::cast(a.strides()));
  d["device"] = a.is_device() ? a.device() : -1;
  d["stream"] = stream;
  return d;
}

}  // namespace jitvec_py
