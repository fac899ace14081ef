#include "py_scalar.hpp"

#include <nanobind/stl/string.h>

#include <jitvec/errors.hpp>

#include <fmt/format.h>

#include <complex>
#include <cstdint>
#include <string>

namespace nb = nanobind;

namespace jitvec_py {
namespace {

std::string name_of(const char* option, int position) {
  return option ? std::string(option) : fmt::format("argument {}", position);
}

// A NumPy scalar or a 0-d array (anything with .item() and ndim 0): its Python number.
nb::object item_of(PyObject* obj) {
  nb::handle h(obj);
  if (!nb::hasattr(h, "item") || !nb::hasattr(h, "ndim")) return nb::object();
  nb::object ndim = h.attr("ndim");
  if (!PyLong_Check(ndim.ptr()) || PyLong_AsLong(ndim.ptr()) != 0) return nb::object();
  return h.attr("item")();
}

}  // namespace

jitvec::Scalar scalar_of(PyObject* obj, const char* option, int position) {
  if (PyBool_Check(obj)) return jitvec::Scalar(obj == Py_True);
  if (PyLong_Check(obj)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow == 0) {
      if (v == -1 && PyErr_Occurred()) throw nb::python_error();
      return jitvec::Scalar(static_cast<std::int64_t>(v));
    }
    const unsigned long long u = overflow > 0 ? PyLong_AsUnsignedLongLong(obj) : 0;
    if (overflow < 0 || PyErr_Occurred()) {
      PyErr_Clear();
      throw jitvec::ArgumentError(fmt::format("{}: the integer {} fits neither int64 nor uint64",
                                              name_of(option, position),
                                              nb::cast<std::string>(nb::str(nb::handle(obj)))));
    }
    return jitvec::Scalar(static_cast<std::uint64_t>(u));
  }
  if (PyFloat_Check(obj)) return jitvec::Scalar(PyFloat_AS_DOUBLE(obj));
  if (PyComplex_Check(obj)) {
    return jitvec::Scalar(std::complex<double>(PyComplex_RealAsDouble(obj), PyComplex_ImagAsDouble(obj)));
  }
  if (nb::object item = item_of(obj); item.is_valid()) {
    if (PyBool_Check(item.ptr()) || PyLong_Check(item.ptr()) || PyFloat_Check(item.ptr()) ||
        PyComplex_Check(item.ptr())) {
      return scalar_of(item.ptr(), option, position);
    }
  }
  throw jitvec::ArgumentError(fmt::format(
      "{}: must be a number (bool, int, float, complex, or a NumPy scalar or 0-d array of one), not {}",
      name_of(option, position), nb::cast<std::string>(nb::str(nb::handle(obj).type().attr("__name__")))));
}

nb::object python_number(const jitvec::Scalar& value) {
  const jitvec::ScalarValue& v = value.value();
  switch (jitvec::dtype_kind(v.type)) {
    case jitvec::DTypeKind::boolean: return nb::bool_(v.b);
    case jitvec::DTypeKind::signed_int: return nb::steal(PyLong_FromLongLong(v.i));
    case jitvec::DTypeKind::unsigned_int: return nb::steal(PyLong_FromUnsignedLongLong(v.u));
    case jitvec::DTypeKind::floating: return nb::float_(v.f);
    case jitvec::DTypeKind::complex: return nb::steal(PyComplex_FromDoubles(v.f, v.f_imag));
  }
  return nb::none();
}

}  // namespace jitvec_py
