#include "errors.hpp"

#include <jitvec/errors.hpp>

#include <cctype>
#include <string>
#include <string_view>
#include <utility>

#include "registry.hpp"

namespace nb = nanobind;

namespace jitvec_py {
namespace {

struct Classes {
  PyObject* error = nullptr;
  PyObject* signature = nullptr;
  PyObject* argument = nullptr;
  PyObject* broadcast = nullptr;
  PyObject* definition = nullptr;
  PyObject* compile = nullptr;
  PyObject* cuda = nullptr;
  PyObject* target = nullptr;
};
Classes classes;

PyObject* make_class(nb::module_& m, const char* name, std::initializer_list<PyObject*> bases,
                     const char* doc) {
  nb::tuple base_tuple = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(bases.size())));
  Py_ssize_t i = 0;
  for (PyObject* b : bases) {
    Py_INCREF(b);
    PyTuple_SET_ITEM(base_tuple.ptr(), i++, b);
  }
  const std::string qualified = std::string("jitvec.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base_tuple.ptr(), nullptr);
  if (!cls) throw nb::python_error();
  m.attr(name) = nb::handle(cls);
  return cls;  // kept for the process's life (the module holds a reference too)
}

// The library's messages name its C++ options; from Python they read as Python's.
std::string python_spellings(std::string text) {
  static const std::pair<std::string_view, std::string_view> kSpellings[] = {
      {"target(Target::cpu) or target(Target::parallel)", "target='cpu' or target='parallel'"},
      {"target(Target::cuda)", "target='cuda'"},
      {"target(Target::cpu)", "target='cpu'"},
      {"target(Target::parallel)", "target='parallel'"},
      {"Target::cuda", "target='cuda'"},
      {"Target::cpu", "target='cpu'"},
      {"Target::parallel", "target='parallel'"},
      {"ReduceOptions::initial", "initial="},
      {"ReduceOptions::dtype", "dtype="},
      {"ReduceOptions::where", "where="},
      {"AccumulateOptions::dtype", "dtype="},
      {"VectorizeOptions::identity", "identity="},
      {"VectorizeOptions::fastmath", "fastmath="},
      {"EngineOptions::threads", "jitvec.set_num_threads()"},
      {"Ufunc::precompile", "precompile()"},
      {"Ufunc::reduce", "reduce()"},
      {"Ufunc::accumulate", "accumulate()"},
      {"to_host()", "to_numpy()"},
      {"(leave on() out, or pass that stream)", "(leave stream= out, or pass that stream)"},
      {"copy it with to_device before the capture", "copy it to the device before the capture"},
      {"jitvec::capture", "jitvec.capture"},
  };
  for (const auto& [cpp, py] : kSpellings) {
    for (std::size_t at = text.find(cpp); at != std::string::npos; at = text.find(cpp, at + py.size())) {
      text.replace(at, cpp.size(), py);
    }
  }
  return text;
}

// Raises `cls(message)` with extra attributes set on the instance.
void raise(PyObject* cls, const char* message, std::initializer_list<std::pair<const char*, nb::object>> attrs = {}) {
  nb::object instance = nb::steal(PyObject_CallOneArg(cls, nb::str(python_spellings(message).c_str()).ptr()));
  if (!instance) throw nb::python_error();
  for (const auto& [key, value] : attrs) nb::setattr(instance, key, value);
  PyErr_SetObject(cls, instance.ptr());
}

}  // namespace

std::string at_python_lines(const std::string& text, const std::string& ufunc, const PythonOrigin& origin) {
  if (origin.line <= 0 || origin.file.empty()) return text;
  const std::string label = "ufunc:" + ufunc;
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = text.find(label); at != std::string::npos; at = text.find(label, from)) {
    std::size_t p = at + label.size();
    const bool paren = p < text.size() && text[p] == '(';  // NVRTC: name(line); GCC: name:line
    if (p < text.size() && (paren || text[p] == ':')) ++p;
    std::size_t q = p;
    while (q < text.size() && std::isdigit(static_cast<unsigned char>(text[q]))) ++q;
    out.append(text, from, at - from);
    if (q == p) {  // the label without a line number
      out.append(origin.file);
      from = at + label.size();
      continue;
    }
    const long line = std::stol(text.substr(p, q - p)) + origin.line - 1;
    out.append(origin.file).append(":").append(std::to_string(line));
    if (paren && q < text.size() && text[q] == ')') ++q;
    from = q;
  }
  out.append(text, from, std::string::npos);
  return out;
}

void register_errors(nb::module_& m) {
  classes.error = make_class(m, "Error", {PyExc_Exception}, "Base of every jitvec error.");
  classes.signature = make_class(m, "SignatureError", {classes.error, PyExc_ValueError},
                                 "A type signature that does not parse or names an unknown type.");
  classes.argument = make_class(m, "ArgumentError", {classes.error, PyExc_ValueError},
                                "Arguments that do not fit the ufunc.");
  classes.broadcast = make_class(m, "BroadcastError", {classes.argument},
                                 "Shapes that do not broadcast together.");
  classes.definition = make_class(m, "DefinitionError", {classes.error, PyExc_ValueError},
                                  "A bad or conflicting definition, or a bad definition file.");
  classes.compile = make_class(m, "CompileError", {classes.error},
                               "The compiler rejected a kernel (.log, .options, .ufunc).");
  classes.cuda = make_class(m, "CudaError", {classes.error, PyExc_RuntimeError},
                            "No CUDA driver, or a driver call failed (.code).");
  classes.target = make_class(m, "TargetError", {classes.error, PyExc_RuntimeError},
                              "A target this machine cannot serve.");

  nb::register_exception_translator([](const std::exception_ptr& p, void*) { translate_jitvec_error(p); });
}

void translate_jitvec_error(const std::exception_ptr& p) {
  try {
    std::rethrow_exception(p);
  } catch (const jitvec::CompileError& e) {
    nb::list options;
    for (const std::string& o : e.options()) options.append(nb::str(o.c_str(), o.size()));
    // A source written in a .py file: its lines there, not the string's.
    const PythonOrigin origin = python_origin_of(e.ufunc());
    const std::string message = at_python_lines(e.what(), e.ufunc(), origin);
    const std::string log = at_python_lines(e.log(), e.ufunc(), origin);
    raise(classes.compile, message.c_str(),
          {{"ufunc", nb::str(e.ufunc().c_str())}, {"log", nb::str(log.c_str(), log.size())},
           {"options", options}});
  } catch (const jitvec::CudaError& e) {
    raise(classes.cuda, e.what(), {{"code", nb::int_(e.code())}});
  } catch (const jitvec::BroadcastError& e) {
    raise(classes.broadcast, e.what());
  } catch (const jitvec::ArgumentError& e) {
    raise(classes.argument, e.what());
  } catch (const jitvec::SignatureError& e) {
    raise(classes.signature, e.what());
  } catch (const jitvec::DefinitionError& e) {
    raise(classes.definition, e.what());
  } catch (const jitvec::TargetError& e) {
    raise(classes.target, e.what());
  } catch (const jitvec::Error& e) {
    raise(classes.error, e.what());
  }
}

void set_python_error() noexcept {
  try {
    try {
      throw;
    } catch (nb::python_error& e) {
      e.restore();
    } catch (const nb::cast_error&) {
      PyErr_SetString(PyExc_TypeError, "an argument has a type jitvec cannot take here");
    } catch (const jitvec::Error&) {
      translate_jitvec_error(std::current_exception());
    } catch (const std::bad_alloc&) {
      PyErr_NoMemory();
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  } catch (nb::python_error& e) {  // raising the translated error failed
    e.restore();
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "jitvec: an unknown C++ exception");
  }
}

}  // namespace jitvec_py
