// python/src/registry.hpp: the definitions made from Python, kept so that they pickle by
// definition and can be redefined.
//
// Every helper, ufunc, fusion, derivative and gufunc defined through the Python API (vectorize,
// fuse, derivative, value_and_derivative, guvectorize, define_device_function, load_definitions) is defined in a jitvec::Engine and
// remembered here with its exact text and origin (file and line, which enter the generated
// source and so the disk cache's key). A pickled state is the definition plus the helpers it
// uses (found with the library's own helper closure) and, for a fusion, the states of its
// stages (for a derivative, the state of the ufunc it differentiates); unpickling in another process defines what is missing and reuses what is identical,
// so the rebuilt object hits the same disk-cache entries.
//
// Defining a name again with the same definition returns the existing object (re-running a
// notebook cell). With a different one it replaces it: the registry moves to a new engine (a
// generation), re-makes every current definition there but the one replaced, then defines the
// new one. Names looked up afterwards (jitvec.ufunc, fusion expressions, pickles) see the new
// definition; handles made before keep the definition they were made with and go on working
// (each holds its own engine's share). A helper redefined is used by the ufuncs defined or
// re-made after it, which every current one is (jitvec.ufunc(name) gives them).
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

/// A ufunc, or a fusion of ufuncs when `fusion` (the expression) is set; a fusion has no
/// signatures, source or identity.
struct UfuncDef {
  std::string name;
  std::vector<std::string> signatures;
  std::string source;
  std::optional<jitvec::Target> target;
  std::string origin_file;
  int origin_line = 1;
  std::optional<jitvec::Scalar> identity;  // VectorizeOptions::identity (reduce, where=), exact
  bool fastmath = false;                   // VectorizeOptions::fastmath
  std::string fusion;                      // Engine::fuse's expression
  std::string derivative_of;               // Engine::derivative's ufunc (empty for others)
  std::optional<int> wrt_index;            // its input: an index, or else wrt_name
  std::string wrt_name;
  bool derivative_value = false;           // value_and_derivative
  /// A ufunc made from other ufuncs (a fusion or a derivative): made after them.
  bool derived() const { return !fusion.empty() || !derivative_of.empty(); }
  bool operator==(const UfuncDef& o) const {
    return name == o.name && signatures == o.signatures && source == o.source &&
           target == o.target && origin_file == o.origin_file && origin_line == o.origin_line &&
           identity == o.identity && fastmath == o.fastmath && fusion == o.fusion &&
           derivative_of == o.derivative_of && wrt_index == o.wrt_index && wrt_name == o.wrt_name &&
           derivative_value == o.derivative_value;
  }
};

struct GufuncDef {
  std::string name;
  std::vector<std::string> signatures;
  std::string layout;
  std::string source;
  std::optional<jitvec::Target> target;
  std::string origin_file;
  int origin_line = 1;
  bool operator==(const GufuncDef& o) const {
    return name == o.name && signatures == o.signatures && layout == o.layout && source == o.source &&
           target == o.target && origin_file == o.origin_file && origin_line == o.origin_line;
  }
};

/// Where Python wrote a source string: its compile errors name this file and line (the
/// string's line 1 is `line`). Not part of the definition: the cache key does not change.
struct PythonOrigin {
  std::string file;
  int line = 0;  // 0: unknown
};

/// A defined ufunc as Python sees it (jitvec.Ufunc).
struct PyUfunc {
  jitvec::Ufunc ufunc;
  UfuncDef definition;
  PythonOrigin python_origin;
  /// Keys of calls that completed (call.cpp's GIL policy: such a call again, if short, cannot
  /// compile, so it keeps the GIL). Read and written with the GIL held.
  mutable std::array<std::uint64_t, 8> warm_calls{};
  /// Beside each key, the dtype of the single result its allocating call gave, plus one (0:
  /// none known): a CuPy result allocated before the call needs it (fast_interop's pool mode).
  mutable std::array<std::uint8_t, 8> warm_result{};
  mutable unsigned warm_next = 0;
};

/// A defined generalized ufunc (jitvec.Gufunc).
struct PyGufunc {
  jitvec::Gufunc gufunc;
  GufuncDef definition;
  PythonOrigin python_origin;
};

/// A device function defined from Python (jitvec.DeviceFunction), as load_definitions returns it.
struct PyDeviceFunction {
  HelperDef definition;
};

/// Defines (or finds, when identical; replaces, when different) in the current generation.
void define_helper(const HelperDef& def);
PyUfunc define_ufunc(const UfuncDef& def, const PythonOrigin& origin = {});
PyGufunc define_gufunc(const GufuncDef& def, const PythonOrigin& origin = {});
/// Reads a TOML definition file; returns everything it defines by name: ufuncs, fusions and
/// derivatives (jitvec.Ufunc), gufuncs (jitvec.Gufunc) and device functions (jitvec.DeviceFunction).
nanobind::dict load_definitions(const std::string& path);
/// A ufunc (or fusion) / gufunc defined earlier from Python, by name.
PyUfunc find_ufunc(const std::string& name);
/// The name Engine::derivative gives the derivative of `of` (defined from Python) with respect to
/// `wrt` when none is given; throws its DefinitionError when there can be none.
std::string derivative_name(const std::string& of, const jitvec::DerivativeInput& wrt, bool value,
                            std::optional<jitvec::Target> target);
PyGufunc find_gufunc(const std::string& name);

/// Where Python wrote the source of the ufunc (or gufunc) called `name` (empty when unknown).
PythonOrigin python_origin_of(const std::string& name);

/// The counters of every generation, summed.
jitvec::EngineStats engine_stats();
/// Engine::set_num_threads on every generation (and those made later); the current count.
void set_num_threads(int threads);
int num_threads();
int max_threads();

/// The pickled state of a ufunc: (name, signatures, source, target or None, origin_file,
/// origin_line, [(helper name, source, origin_file, origin_line), ...] dependencies first,
/// identity or None, fastmath, fusion expression, [states of the fusion's stages, or of the
/// ufunc a derivative differentiates], derivative's ufunc or "", its input (index or name),
/// value_and_derivative). States of 7 fields (before identity), 8 (before fastmath and
/// fusions) and 11 (before derivatives) still load. The identity is
/// its exact Python number (bool, int, float, complex); older states hold a float.
nanobind::tuple ufunc_state(const PyUfunc& u);
PyUfunc ufunc_from_state(nanobind::handle state);
/// A gufunc's: (name, signatures, layout, source, target or None, origin_file, origin_line, helpers).
nanobind::tuple gufunc_state(const PyGufunc& g);
PyGufunc gufunc_from_state(nanobind::handle state);

}  // namespace jitvec_py
