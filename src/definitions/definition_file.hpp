// src/definitions/definition_file.hpp: reading jitvec's human-edited TOML definition files.
//
// A definition file lists device-function helpers and ufuncs, each as a table whose name is the
// C++ name of the function:
//
//     [device_functions.polar_to_cartesian]
//     source = '''
//     __device__ void polar_to_cartesian(float rho, float theta, float& x, float& y) { ... }
//     '''
//
//     [gufuncs.batched_dot]               # a generalized ufunc (Engine::guvectorize)
//     signatures = ["void(float32[:], float32[:], float32)"]
//     layout = "(n),(n)->()"
//     source = '''...'''
//
//     [ufuncs.polar_distance]
//     signatures = ["float32(float32, float32, float32, float32)"]
//     targets = ["cuda", "cpu"]   # optional: what `jitvec compile` builds by default
//     source = '''
//     __device__ float polar_distance(float rho1, float theta1, float rho2, float theta2) { ... }
//     '''
//
//     [ufuncs.polar_distance.ranges]    # optional: what accuracy reports sweep (jitvec check)
//     rho1 = [0, 100]
//
//     [fusions.gauss_then_scale]          # optional: ufuncs fused into one kernel (Engine::fuse)
//     expression = "scale(gaussian_pdf(x, mu, sigma), k)"
//     targets = ["cuda"]                 # optional, as for ufuncs
//
//     [derivatives.dgauss_dx]             # optional: a partial derivative (Engine::derivative)
//     of = "gaussian_pdf"
//     wrt = "x"                          # the input's parameter name, or its index (wrt = 0)
//     value = true                       # optional: value_and_derivative (two outputs)
//     targets = ["cuda", "cpu"]          # optional, as for ufuncs
//
// This file turns such text into plain structs, checking the file's shape: only those
// top-level tables, only the known keys, values of the right types, target names jitvec knows,
// names that are C++ identifiers and unique across helpers, ufuncs and fusions. It does not
// parse the signatures or expressions (the engine does) nor compile anything.
// Every error is a jitvec::DefinitionError whose message reads
//     samples/x.toml:12: ufuncs.polar_distance: 'signatures' must be an array of strings
// and TOML syntax errors carry the column too (samples/x.toml:12:7: ...).
//
// Each source keeps the file line its first line stands on, so generated code can say
// `#line N "file"` and compiler errors point at the definition file. With a `'''` (or `"""`)
// string whose opening delimiter ends its line, TOML drops that newline, so the first source
// line is the next one. Only literal strings ('''...''') keep every later line in step: in a
// basic string ("""...""") a line-ending backslash joins lines, so prefer '''.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jitvec/scalar.hpp"

namespace jitvec::definitions {

/// Where a definition's source text came from.
struct SourceOrigin {
  /// The file name as given to the parser (used in messages and #line directives).
  std::string file;
  /// The 1-based line of `file` on which the source's first line stands.
  int line = 1;
};

/// A `[device_functions.NAME]` entry: a helper pasted into the ufuncs that call it.
struct HelperDefinition {
  std::string name;
  std::string source;
  SourceOrigin origin;
};

/// One input's line of `[ufuncs.NAME.ranges]`: `x = [-10, 10]` (what accuracy reports sweep).
struct RangeDefinition {
  std::string input;
  double low = 0;
  double high = 0;
};

/// A `[ufuncs.NAME]` entry.
struct UfuncDefinition {
  std::string name;
  /// The signature strings as written, unparsed, in file order (at least one).
  std::vector<std::string> signatures;
  std::string source;
  /// "cuda", "cpu" or "parallel", as written; empty when the entry gives no `targets`.
  std::vector<std::string> targets;
  SourceOrigin origin;
  /// `identity = 0` (an integer, float or bool; a string for an integer beyond TOML's int64,
  /// `identity = "18446744073709551615"`): VectorizeOptions::identity, exactly as written.
  std::optional<Scalar> identity;
  /// `methods = ["reduce", "accumulate"]`: the method modules `jitvec compile` also builds.
  std::vector<std::string> methods;
  /// `fastmath = true`: VectorizeOptions::fastmath.
  bool fastmath = false;
  /// `[ufuncs.NAME.ranges]`: VectorizeOptions::ranges, in file order.
  std::vector<RangeDefinition> ranges{};
};

/// A `[fusions.NAME]` entry: registered ufuncs composed into one (Engine::fuse).
struct FusionDefinition {
  std::string name;
  /// The expression as written, "h(g(f(x, y), z))" (parsed by the engine).
  std::string expression;
  /// As UfuncDefinition::targets.
  std::vector<std::string> targets;
  /// The line of the `expression` value.
  SourceOrigin origin;
};

/// A `[derivatives.NAME]` entry: a ufunc's partial derivative (Engine::derivative).
struct DerivativeDefinition {
  std::string name;
  /// The ufunc it differentiates, as written (looked up by the engine).
  std::string of;
  /// `wrt`: the input's index, or else its parameter's name.
  std::optional<int> wrt_index;
  std::string wrt_name;
  /// `value = true`: Engine::value_and_derivative.
  bool value = false;
  /// As UfuncDefinition::targets.
  std::vector<std::string> targets;
  /// The line of the entry's header.
  SourceOrigin origin;
};

/// A `[gufuncs.NAME]` entry: a generalized ufunc (Engine::guvectorize).
struct GufuncDefinition {
  std::string name;
  /// The signature strings as written ("void(float32[:], float32[:], float32)"), at least one.
  std::vector<std::string> signatures;
  /// The layout as written, "(n),(n)->()".
  std::string layout;
  std::string source;
  SourceOrigin origin;
};

/// Everything one definition file defines, each list in file order.
struct DefinitionSet {
  std::vector<HelperDefinition> helpers;
  std::vector<UfuncDefinition> ufuncs;
  std::vector<GufuncDefinition> gufuncs;
  std::vector<FusionDefinition> fusions;
  std::vector<DerivativeDefinition> derivatives;
};

/// The most bytes of definitions read from one file (16 MiB): a larger file is a
/// DefinitionError, found without reading more than that.
inline constexpr std::size_t kMaxDefinitionFileSize = std::size_t{16} << 20;

/// Reads and checks the definition file at `file`; messages name it as `file.string()`.
/// Throws DefinitionError for a path that does not name a regular file ("samples/x.toml: cannot
/// read definition file: it is a FIFO (named pipe), not a regular file"; FIFOs, devices and
/// sockets are refused without being read, so the call never blocks), an unreadable or too
/// large file, and every problem parse_definition_text reports. A file that defines nothing
/// (empty, comments only, or only empty tables) is read, with a warning through jitvec's logger
/// naming it.
DefinitionSet parse_definition_file(const std::filesystem::path& file);

/// Parses definition-file `text`; `file_name_for_messages` names it in errors and origins.
/// Throws DefinitionError (with file, line and entry) for text over kMaxDefinitionFileSize, a
/// TOML syntax error, an unknown
/// top-level table or entry key, a missing or mistyped value, an empty source or signature
/// list, an unknown target, a name that is not a C++ identifier, or a name used twice.
DefinitionSet parse_definition_text(std::string_view text, std::string file_name_for_messages);

}  // namespace jitvec::definitions
