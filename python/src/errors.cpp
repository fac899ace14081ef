#include "errors.hpp"

#include <jitvec/errors.hpp>

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

// Raises `cls(message)` with extra attributes set on the instance.
void raise(PyObject* cls, const char* message, std::initializer_list<std::pair<const char*, nb::object>> attrs = {}) {
  nb::object instance = nb::steal(PyObject_CallOneArg(cls, nb::str(message).ptr()));
  if (!instance) throw nb::python_error();
  for (const auto& [key, value] : attrs) nb::setattr(instance, key, value);
  PyErr_SetObject(cls, instance.ptr());
}

}  // namespace

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
    raise(classes.compile, e.what(),
          {{"ufunc", nb::str(e.ufunc().c_str())}, {"log", nb::str(e.log().c_str(), e.log().size())},
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
