// python/src/registry.hpp: the definitions made from Python, kept so ufuncs pickle by definition.
//
// Every helper and ufunc defined through the Python API (vectorize, define_device_function,
// load_definitions) is defined in jitvec::Engine::global() and remembered here with its exact
// text and origin (file and line, which enter the generated source and so the disk cache's key).
// A ufunc's pickled state is its definition plus the helpers it uses (found with the library's
// own helper closure); unpickling in another process defines what is missing and reuses what is
// identical, so the rebuilt ufunc hits the same disk-cache entries. Defining a name again with
// the same definition returns the existing ufunc (re-running a notebook cell works); with a
// different one it is a DefinitionError.
#pragma once

#include <nanobind/nanobind.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <jitvec/engine.hpp>

namespace jitvec_py {

struct HelperDef {
  std::string name, source, origin_file;
  int origin_line = 1;
  bool operator==(const HelperDef& o) const {
    return name == o.name && source == o.source && origin_file == o.origin_file &&
           origin_line == o.origin_line;
  }
};

struct UfuncDef {
  std::string name;
  std::vector<std::string> signatures;
  std::string source;
  std::optional<jitvec::Target> target;
  std::string origin_file;
  int origin_line = 1;
  std::optional<jitvec::Scalar> identity;  // VectorizeOptions::identity (reduce, where=), exact
  bool operator==(const UfuncDef& o) const {
    return name == o.name && signatures == o.signatures && source == o.source &&
           target == o.target && origin_file == o.origin_file && origin_line == o.origin_line &&
           identity == o.identity;
  }
};

/// A defined ufunc as Python sees it (jitvec.Ufunc).
struct PyUfunc {
  jitvec::Ufunc ufunc;
  UfuncDef definition;
  /// Keys of calls that completed (call.cpp's GIL policy: such a call again, if short, cannot
  /// compile, so it keeps the GIL). Read and written with the GIL held.
  mutable std::array<std::uint64_t, 8> warm_calls{};
  /// Beside each key, the dtype of the single result its allocating call gave, plus one (0:
  /// none known): a CuPy result allocated before the call needs it (fast_interop's pool mode).
  mutable std::array<std::uint8_t, 8> warm_result{};
  mutable unsigned warm_next = 0;
};

/// Defines (or finds, when identical) a helper / a ufunc in the global engine.
void define_helper(const HelperDef& def);
PyUfunc define_ufunc(const UfuncDef& def);
/// Reads a TOML definition file; returns its ufuncs by name.
nanobind::dict load_definitions(const std::string& path);
/// A ufunc defined earlier from Python, by name.
PyUfunc find_ufunc(const std::string& name);

/// The pickled state: (name, signatures, source, target or None, origin_file, origin_line,
/// [(helper name, source, origin_file, origin_line), ...] dependencies first, identity or
/// None); a state of 7 fields (before identity) is read as one without an identity. The
/// identity is its exact Python number (bool, int, float, complex); older states hold a float.
nanobind::tuple ufunc_state(const PyUfunc& u);
PyUfunc ufunc_from_state(nanobind::handle state);

}  // namespace jitvec_py
