// python/src/module.cpp: the jitvec._jitvec extension module (nanobind): the Python API over
// jitvec::Engine::global(). Ufunc calls are in call.cpp, arrays and DLPack in py_array.cpp,
// definitions and pickling in registry.cpp, exceptions in errors.cpp.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <jitvec/jitvec.hpp>
#include <jitvec/version.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

#include "call.hpp"
#include "capture.hpp"
#include "errors.hpp"
#include "fast_interop.hpp"
#include "methods.hpp"
#include "py_array.hpp"
#include "py_scalar.hpp"
#include "registry.hpp"

namespace nb = nanobind;
using namespace jitvec_py;

namespace {

std::optional<jitvec::Target> parse_target_arg(const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  auto t = jitvec::parse_target(*name);
  if (!t) throw jitvec::TargetError(fmt::format("unknown target '{}': jitvec has cuda, cpu and parallel", *name));
  return t;
}

nb::dict stats_dict() {
  const jitvec::EngineStats s = engine_stats();
  nb::dict d;
  d["calls"] = s.calls;
  d["memory_hits"] = s.memory_hits;
  d["disk_hits"] = s.disk_hits;
  d["disk_misses"] = s.disk_misses;
  d["compiles"] = s.compiles;
  d["compile_seconds"] = s.compile_seconds;
  d["disk_read_seconds"] = s.disk_read_seconds;
  d["load_seconds"] = s.load_seconds;
  return d;
}

}  // namespace

NB_MODULE(_jitvec, m) {
  m.doc() = "jitvec: elementwise ufuncs from scalar CUDA C++ functions (the C++ library's binding)";
  // Arrays and ufuncs held by Dask, pickled tasks or tracebacks at interpreter exit are not
  // leaks worth a report.
  nb::set_leak_warnings(false);
  register_errors(m);
  register_array(m);
  register_capture(m);

  // Calls go through the type's tp_call slot (call.hpp: no nanobind dispatch per call).
  static PyType_Slot ufunc_slots[] = {{Py_tp_call, reinterpret_cast<void*>(&ufunc_tp_call)},
                                      {0, nullptr}};
  nb::class_<PyUfunc>(m, "Ufunc", nb::type_slots(ufunc_slots),
                      "A jitvec ufunc: call it with arrays (NumPy, CuPy, PyTorch, anything with "
                      "__dlpack__ or __cuda_array_interface__) and scalars; out=, stream=, "
                      "target= are keyword options.")
      .def_prop_ro("name", [](const PyUfunc& u) { return u.definition.name; })
      .def_prop_ro("signatures", [](const PyUfunc& u) {
        if (u.definition.derivative_of.empty()) return u.definition.signatures;
        std::vector<std::string> loops;  // a derivative's loops are the engine's choice
        for (const jitvec::Signature& s : u.ufunc.signatures()) loops.push_back(s.to_string());
        return loops;
      })
      .def_prop_ro("source", [](const PyUfunc& u) { return u.definition.source; })
      .def_prop_ro("nin", [](const PyUfunc& u) { return u.ufunc.nin(); })
      .def_prop_ro("nout", [](const PyUfunc& u) { return u.ufunc.nout(); })
      .def_prop_ro("identity", [](const PyUfunc& u) {
        return u.definition.identity ? python_number(*u.definition.identity) : nb::none();
      }, "The value given as identity= (None without one), as NumPy's ufunc.identity.")
      .def_prop_ro("fastmath", [](const PyUfunc& u) { return u.definition.fusion.empty() && u.definition.fastmath; })
      .def_prop_ro("expression", [](const PyUfunc& u) {
        return u.definition.fusion.empty() ? nb::none() : nb::object(nb::str(u.definition.fusion.c_str()));
      }, "A fused ufunc's expression (jitvec.fuse); None for others.")
      .def_prop_ro("_loop_signatures", [](const PyUfunc& u) {
        std::vector<std::string> loops;
        for (const jitvec::Signature& s : u.ufunc.signatures()) loops.push_back(s.to_string());
        return loops;
      })
      .def_prop_ro("target", [](const PyUfunc& u) {
        return std::string(jitvec::target_name(u.ufunc.default_target()));
      }, "The target calls use when they name none.")
      .def("precompile", [](const PyUfunc& u, std::optional<std::string> target) {
        const auto t = target ? parse_target_arg(target) : std::optional<jitvec::Target>(u.ufunc.default_target());
        nb::gil_scoped_release release;
        for (std::size_t i = 0; i < u.ufunc.signatures().size(); ++i) u.ufunc.precompile(i, *t);
      }, nb::arg("target").none() = nb::none(),
         "Compiles (or loads from the disk cache) every signature's loop for `target` now.")
      .def("_reduce", &reduce_ufunc, nb::arg("x"), nb::arg("axis").none() = 0, nb::arg("dtype").none() = nb::none(),
           nb::arg("out").none() = nb::none(), nb::arg("keepdims") = false, nb::arg("initial").none() = nb::none(),
           nb::arg("where").none() = nb::none(), nb::arg("stream").none() = nb::none(),
           nb::arg("target").none() = nb::none(),
           "NumPy's ufunc.reduce: folds x along axis (an int, a tuple, or None for all) with the "
           "function, for ufuncs of two inputs and one output. where= (a bool array broadcast to "
           "x's shape) folds only the selected elements and needs the ufunc's identity (vectorize's "
           "identity=); the fold order is fixed (README, Reductions).")
      .def("_outer", &outer_ufunc, nb::arg("a"), nb::arg("b"), nb::arg("out").none() = nb::none(),
           nb::arg("dtype").none() = nb::none(), nb::arg("casting").none() = nb::none(),
           nb::arg("stream").none() = nb::none(), nb::arg("target").none() = nb::none())
      .def("_accumulate", &accumulate_ufunc, nb::arg("x"), nb::arg("axis") = 0, nb::arg("dtype").none() = nb::none(),
           nb::arg("out").none() = nb::none(), nb::arg("stream").none() = nb::none(),
           nb::arg("target").none() = nb::none())
      .def("_at", &at_ufunc, nb::arg("a"), nb::arg("indices"), nb::arg("b"), nb::arg("stream").none() = nb::none(),
           nb::arg("target").none() = nb::none())
      .def("_loop_for_dtypes", [](const PyUfunc& u, const std::vector<std::string>& dtypes) {
        // The loop NumPy's rule picks for arrays of these dtypes (no data: empty arrays).
        std::vector<jitvec::Array> arrays;
        for (const std::string& d : dtypes) {
          const std::optional<jitvec::DType> t = jitvec::parse_dtype(d);
          if (!t) throw jitvec::ArgumentError(fmt::format("resolve_dtypes(): '{}' is not a dtype jitvec has", d));
          arrays.push_back(jitvec::Array::empty(*t, {0}));
        }
        std::vector<jitvec::Arg> args(arrays.begin(), arrays.end());
        return u.ufunc.loop_for(args.data(), args.size());
      })
      .def("_state", &ufunc_state)
      .def("__repr__", [](const PyUfunc& u) {
        return fmt::format("<jitvec.Ufunc '{}' {}>", u.definition.name, fmt::join(u.definition.signatures, ", "));
      });

  nb::class_<PyGufunc>(m, "Gufunc",
                       "A jitvec generalized ufunc (jitvec.guvectorize): call it with arrays whose last "
                       "dimensions are its core dimensions; out=, stream=, target= are keyword options.")
      .def_prop_ro("name", [](const PyGufunc& g) { return g.definition.name; })
      .def_prop_ro("signatures", [](const PyGufunc& g) { return g.definition.signatures; })
      .def_prop_ro("signature", [](const PyGufunc& g) { return g.gufunc.layout(); },
                   "The layout in NumPy's form, \"(m,n),(n)->(m)\".")
      .def_prop_ro("source", [](const PyGufunc& g) { return g.definition.source; })
      .def_prop_ro("nin", [](const PyGufunc& g) { return g.gufunc.nin(); })
      .def_prop_ro("nout", [](const PyGufunc& g) { return g.gufunc.nout(); })
      .def("_call", &gufunc_call)
      .def("precompile", [](const PyGufunc& g, std::optional<std::string> target) {
        // The gufunc's own target, else the one its calls would take (JITVEC_TARGET, else the GPU's).
        std::optional<jitvec::Target> t = target ? parse_target_arg(target) : g.definition.target;
        if (!t) {
          const char* env = std::getenv("JITVEC_TARGET");
          if (env && *env) t = jitvec::parse_target(env);
        }
        if (!t) t = jitvec::cuda_device_count() > 0 ? jitvec::Target::cuda : jitvec::Target::cpu;
        nb::gil_scoped_release release;
        for (std::size_t i = 0; i < g.gufunc.signatures().size(); ++i) g.gufunc.precompile(i, *t);
      }, nb::arg("target").none() = nb::none(),
         "Compiles (or loads from the disk cache) every signature's module for `target` now.")
      .def("_state", &gufunc_state)
      .def("__repr__", [](const PyGufunc& g) {
        return fmt::format("<jitvec.Gufunc '{}' {} {}>", g.definition.name, g.gufunc.layout(),
                           fmt::join(g.definition.signatures, ", "));
      });
  nb::class_<PyDeviceFunction>(m, "DeviceFunction",
                               "A device function (a helper ufuncs may call), as load_definitions returns it.")
      .def_prop_ro("name", [](const PyDeviceFunction& h) { return h.definition.name; })
      .def_prop_ro("source", [](const PyDeviceFunction& h) { return h.definition.source; })
      .def("__repr__", [](const PyDeviceFunction& h) { return fmt::format("<jitvec.DeviceFunction '{}'>", h.definition.name); });

  m.def("_vectorize", [](const std::vector<std::string>& signatures, const std::string& source,
                         const std::string& name, std::optional<std::string> target, nb::handle identity,
                         bool fastmath, const std::string& py_file, int py_line) {
    std::optional<jitvec::Scalar> exact;
    if (!identity.is_none()) exact = scalar_of(identity.ptr(), "identity=");
    UfuncDef def;
    def.name = name;
    def.signatures = signatures;
    def.source = source;
    def.target = parse_target_arg(target);
    def.identity = exact;
    def.fastmath = fastmath;
    return define_ufunc(def, PythonOrigin{py_file, py_line});
  }, nb::arg("signatures"), nb::arg("source"), nb::arg("name"), nb::arg("target").none() = nb::none(),
     nb::arg("identity").none() = nb::none(), nb::arg("fastmath") = false, nb::arg("py_file") = "",
     nb::arg("py_line") = 0);
  m.def("_fuse", [](const std::string& name, const std::string& expression, std::optional<std::string> target) {
    UfuncDef def;
    def.name = name;
    def.fusion = expression;
    def.target = parse_target_arg(target);
    return define_ufunc(def);
  }, nb::arg("name"), nb::arg("expression"), nb::arg("target").none() = nb::none());
  m.def("_derivative", [](nb::handle of, nb::handle wrt, bool value, std::optional<std::string> name,
                          std::optional<std::string> target) {
    UfuncDef def;
    def.derivative_of = nb::isinstance<nb::str>(of) ? nb::cast<std::string>(of) : nb::cast<std::string>(of.attr("name"));
    if (nb::isinstance<nb::bool_>(wrt) || !(nb::isinstance<nb::int_>(wrt) || nb::isinstance<nb::str>(wrt))) {
      throw jitvec::DefinitionError(fmt::format("{}(): wrt must be an input's index (an int) or its parameter's "
                                                "name (a str), not {}", value ? "value_and_derivative" : "derivative",
                                                nb::type_name(wrt.type()).c_str()));
    }
    if (nb::isinstance<nb::int_>(wrt)) {
      def.wrt_index = nb::cast<int>(wrt);
    } else {
      def.wrt_name = nb::cast<std::string>(wrt);
    }
    def.derivative_value = value;
    def.target = parse_target_arg(target);
    const jitvec::DerivativeInput input = def.wrt_index ? jitvec::DerivativeInput(*def.wrt_index)
                                                        : jitvec::DerivativeInput(def.wrt_name);
    def.name = name ? *name : derivative_name(def.derivative_of, input, value, def.target);
    return define_ufunc(def);
  }, nb::arg("of"), nb::arg("wrt"), nb::arg("value"), nb::arg("name").none() = nb::none(),
     nb::arg("target").none() = nb::none());
  m.def("_guvectorize", [](const std::vector<std::string>& signatures, const std::string& layout,
                           const std::string& source, const std::string& name, std::optional<std::string> target,
                           const std::string& py_file, int py_line) {
    return define_gufunc(GufuncDef{name, signatures, layout, source, parse_target_arg(target), "", 1},
                         PythonOrigin{py_file, py_line});
  }, nb::arg("signatures"), nb::arg("layout"), nb::arg("source"), nb::arg("name"),
     nb::arg("target").none() = nb::none(), nb::arg("py_file") = "", nb::arg("py_line") = 0);
  m.def("gufunc", &find_gufunc, nb::arg("name"), "A gufunc defined earlier in this process.");
  m.def("_gufunc_from_state", &gufunc_from_state);
  m.def("set_num_threads", &set_num_threads, nb::arg("n"),
        "The threads a `parallel` call uses, from 1 to get_max_threads() (the cores, or "
        "JITVEC_NUM_THREADS): as Numba's set_num_threads, for Dask workers that share the cores.");
  m.def("get_num_threads", &num_threads, "The threads a `parallel` call uses now.");
  m.def("get_max_threads", &max_threads, "The most threads set_num_threads takes: JITVEC_NUM_THREADS, else the cores.");
  m.def("define_device_function", [](const std::string& name, const std::string& source) {
    define_helper(HelperDef{name, source, "", 1});
  }, nb::arg("name"), nb::arg("source"),
     "Defines a helper any ufunc may call by `name` (CUDA C++ source of a __device__ function).");
  m.def("load_definitions", [](const std::string& path) { return load_definitions(path); },
        nb::arg("path"),
        "Defines everything a TOML definition file defines; returns {name: object}: jitvec.Ufunc for "
        "ufuncs and fusions, jitvec.Gufunc for gufuncs, jitvec.DeviceFunction for device functions.");
  m.def("ufunc", &find_ufunc, nb::arg("name"), "A ufunc defined earlier in this process.");
  m.def("_ufunc_from_state", &ufunc_from_state);
  m.def("engine_stats", &stats_dict,
        "The global engine's counters: calls, memory_hits, disk_hits, disk_misses, compiles and "
        "the seconds spent compiling, reading the disk cache and loading.");
  m.def("cuda_device_count", []() { return jitvec::cuda_device_count(); });
  m.def("synchronize", [](std::uintptr_t stream, int device) {
    nb::gil_scoped_release release;
    jitvec::synchronize(reinterpret_cast<CUstream_st*>(stream), device);
  }, nb::arg("stream") = 0, nb::arg("device") = 0);
  m.def("release_cached_memory", [](nb::handle stream, int device) {
    if (stream.is_none()) {
      jitvec::release_cached_memory();
    } else {
      jitvec::release_cached_memory(reinterpret_cast<CUstream_st*>(nb::cast<std::uintptr_t>(
                                        nb::hasattr(stream, "ptr") ? stream.attr("ptr") : nb::borrow(stream))),
                                    device);
    }
  }, nb::arg("stream").none() = nb::none(), nb::arg("device") = 0,
     "Frees jitvec's cached small device blocks (of one stream: call it before destroying a "
     "stream jitvec ran on; None: of every stream).");
  m.def("from_dlpack", &as_jitvec_array, nb::arg("obj"),
        "A jitvec.Array viewing `obj` (anything a ufunc call accepts), without a copy when it speaks DLPack.");
  // For bench/python_dispatch.py: the same call made `iterations` times from C++ (jitvec.Array
  // arguments and float scalars, built once), so Python's share of a call can be told apart.
  m.def("_cpp_call_loop", [](const PyUfunc& u, nb::list args, nb::handle out, std::uintptr_t stream,
                             int iterations) {
    std::vector<jitvec::Arg> packed;
    for (nb::handle h : args) {
      if (nb::isinstance<PyArray>(h)) {
        packed.emplace_back(nb::cast<const PyArray&>(h).array);  // refers to the list's Array
      } else {
        packed.emplace_back(nb::cast<double>(h));
      }
    }
    if (!out.is_none()) packed.emplace_back(jitvec::out(nb::cast<const PyArray&>(out).array));
    packed.emplace_back(jitvec::on(reinterpret_cast<CUstream_st*>(stream)));
    nb::gil_scoped_release release;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) u.ufunc.call(packed.data(), packed.size());
    const std::chrono::duration<double, std::micro> us = std::chrono::steady_clock::now() - t0;
    return us.count() / iterations;
  }, nb::arg("ufunc"), nb::arg("args"), nb::arg("out").none(), nb::arg("stream"), nb::arg("iterations"));
  // For tests and bench/python_dispatch.py: what a call makes of one argument, a cupy.ndarray
  // made as results are (over any address: the tests use host memory), and which fast paths
  // calls take (fast_interop.hpp; _set_interop returns the settings as they were).
  m.def("_describe_import", &describe_import, nb::arg("obj"));
  m.def("_cupy_view", [](std::uintptr_t data, const std::string& dtype, std::vector<std::int64_t> shape,
                         std::vector<std::int64_t> strides, int device, nb::handle owner) {
    const std::optional<jitvec::DType> t = jitvec::parse_dtype(dtype);
    if (!t) throw jitvec::ArgumentError(fmt::format("unknown dtype '{}'", dtype));
    return cupy_view(data, *t, shape, strides, device, owner);
  });
  m.def("_set_interop", [](std::optional<bool> cupy_members, std::optional<std::string> cupy_result,
                           std::optional<bool> cupy_fast_new) {
    InteropSettings& s = settings();
    static const char* const results[] = {"wrap", "pool", "protocol"};
    nb::dict before;
    before["cupy_members"] = s.cupy_members;
    before["cupy_result"] = results[static_cast<int>(s.cupy_result)];
    before["cupy_fast_new"] = s.cupy_fast_new;
    if (cupy_result) {
      int i = 0;
      while (i < 3 && *cupy_result != results[i]) ++i;
      if (i == 3) throw jitvec::ArgumentError(fmt::format("cupy_result='{}': it takes wrap, pool or protocol", *cupy_result));
      s.cupy_result = static_cast<InteropSettings::CupyResult>(i);
    }
    if (cupy_members) s.cupy_members = *cupy_members;
    if (cupy_fast_new) s.cupy_fast_new = *cupy_fast_new;
    return before;
  }, nb::arg("cupy_members").none() = nb::none(), nb::arg("cupy_result").none() = nb::none(),
     nb::arg("cupy_fast_new").none() = nb::none());
  m.attr("__version__") = JITVEC_VERSION_STRING;
  init_call(m);
}
