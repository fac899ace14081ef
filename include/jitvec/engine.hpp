// jitvec/engine.hpp: where ufuncs and their device-function helpers are defined.
//
// An Engine holds the registered helpers and ufuncs, the compiled loops (in memory, per device
// and target) and the disk cache. Typical use:
//
//     jitvec::Engine engine;
//     engine.define_device_function("polar_to_cartesian", "__device__ void polar_to_cartesian(...) {...}");
//     auto dist = engine.vectorize("polar_distance", {"float32(float32, float32, float32, float32)"},
//                                  "__device__ float polar_distance(...) {...}");
//     jitvec::Array d = dist(r1, t1, r2, t2);
//
// A ufunc's source is a complete CUDA C++ function named like the ufunc: plain, overloaded or a
// template. Helpers are pulled into exactly the ufuncs whose source (or whose helpers' source)
// names them. Engines are thread-safe; Engine::global() is a process-wide default.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jitvec/accuracy.hpp"
#include "jitvec/gufunc.hpp"
#include "jitvec/scalar.hpp"
#include "jitvec/ufunc.hpp"

namespace jitvec {

/// Where compiled loops are kept on disk. Each field left unset takes its environment
/// variable's value (named beside it), then the default.
struct CacheOptions {
  /// JITVEC_CACHE_DIR, else $XDG_CACHE_HOME/jitvec, else ~/.cache/jitvec. Writable.
  std::optional<std::filesystem::path> dir;
  /// JITVEC_CACHE_PATH (colon-separated): read-only folders searched after `dir`.
  std::optional<std::vector<std::filesystem::path>> read_only_dirs;
  /// JITVEC_CACHE_DISABLE=1: keep compiled loops in memory only.
  std::optional<bool> disabled;
  /// JITVEC_CACHE_MAX_SIZE (bytes, or with a K/M/G suffix); default 1 GiB.
  std::optional<std::uint64_t> max_size;
};

struct EngineOptions {
  CacheOptions cache;
  /// JITVEC_TARGET, else cuda when a GPU is usable, else cpu.
  std::optional<Target> default_target;
  /// Threads for the `parallel` target (0: JITVEC_NUM_THREADS, else one per core). At most
  /// this many run a call; Engine::set_num_threads lowers the count at run time.
  int threads = 0;
  /// A GPU call whose kernel is in no cache may run a stand-in kernel that compiles faster
  /// (one element a thread, the same bits) while its own compiles on a worker thread, for a
  /// quicker first result (README, "First calls"). False: a first call always waits for its
  /// own kernel, so every call runs at steady-state speed (what the benchmarks time).
  bool stand_ins = true;
};

/// Per-definition options of vectorize().
struct VectorizeOptions {
  /// The ufunc's default target (else the engine's).
  std::optional<Target> target;
  /// Where the source came from, for diagnostics and #line: a file and the line its first
  /// line is on (definition files set these).
  std::string origin_file;
  int origin_line = 1;
  /// The identity of a two-input ufunc's reduce (0 for an add, 1 for a multiply, `false` for a
  /// logical or, `std::uint64_t(-1)` for a bitwise and of uint64; none for a maximum): the
  /// result of an empty reduction and what where= puts in masked elements. Held exactly
  /// (jitvec/scalar.hpp) and converted, when a reduction needs it, into the accumulator type by
  /// ReduceOptions::initial's rule (into the input's dtype exactly for where=).
  std::optional<Scalar> identity;
  /// Lets the compilers fuse a * b + c into one FMA (one rounding instead of two) in the
  /// ufunc's map loops: NVRTC's -fmad=true, the host compiler's -ffp-contract=fast. Off by
  /// default, so every target gives NumPy's bits for arithmetic (as Numba's fastmath=False);
  /// a fastmath loop may differ in the last bit between targets. `fastmath = true` in a
  /// definition file.
  bool fastmath = false;
  /// The ranges accuracy reports sweep the inputs over (jitvec/accuracy.hpp), by input name;
  /// an input without one sweeps its type's whole finite range. `[ufuncs.NAME.ranges]` in a
  /// definition file (`x = [-10, 10]`).
  std::vector<InputRange> ranges{};
};

/// The input a derivative is taken with respect to (Engine::derivative): its index (0 for the
/// first input) or the name its parameter has in the ufunc's source.
struct DerivativeInput {
  DerivativeInput(int index) : index(index) {}                    // NOLINT: implicit by design
  DerivativeInput(std::string name) : name(std::move(name)) {}    // NOLINT
  DerivativeInput(const char* name) : name(name) {}               // NOLINT
  std::optional<int> index;
  std::string name;
};

/// Per-definition options of Engine::derivative and Engine::value_and_derivative.
struct DerivativeOptions {
  /// The derivative ufunc's name; empty: `d_<ufunc>_d<input>` (`d_gaussian_pdf_dx`), and
  /// `value_and_d_<ufunc>_d<input>` for value_and_derivative, where <input> is the parameter's
  /// name (its index when the source gives none).
  std::string name;
  /// The derivative's default target (else the ufunc's, else the engine's).
  std::optional<Target> target;
  /// Where the definition came from, for messages (definition files set these).
  std::string origin_file;
  int origin_line = 1;
};

/// Counters since the engine was made (all threads, all targets).
struct EngineStats {
  std::uint64_t calls = 0;           ///< ufunc calls
  std::uint64_t memory_hits = 0;     ///< loops found already loaded in memory
  std::uint64_t disk_hits = 0;       ///< loops loaded from the disk cache
  std::uint64_t disk_misses = 0;     ///< disk lookups that found nothing usable
  std::uint64_t compiles = 0;        ///< NVRTC or host-compiler runs
  double compile_seconds = 0.0;      ///< time spent in them
  double disk_read_seconds = 0.0;    ///< time spent reading and checking disk-cache hits
  double load_seconds = 0.0;         ///< time spent loading modules and shared objects
};

class Engine {
 public:
  Engine();
  explicit Engine(EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// The process-wide engine (options from the environment).
  static Engine& global();

  /// Registers a helper that ufuncs (and other helpers) may call by `name`. Its source is
  /// pasted, once, into the kernels of the ufuncs that use it. Redefining a name throws.
  void define_device_function(const std::string& name, const std::string& source,
                              const VectorizeOptions& origin = {});

  /// Registers a ufunc. `source` defines a function called `name`; each signature is one loop.
  /// Throws SignatureError for a bad signature and DefinitionError for a duplicate name or
  /// signatures with different input counts. Compilation happens at first use.
  Ufunc vectorize(const std::string& name, const std::vector<std::string>& signatures,
                  const std::string& source, const VectorizeOptions& options = {});

  /// Composes registered ufuncs into one ufunc that runs as one kernel, e.g.
  /// `fuse("fgh", "h(g(f(x, y), z))")`: its inputs are the expression's names (x, y, z, in
  /// order of first appearance); numbers in the expression are weak scalars. Each call resolves
  /// types stage by stage as separate calls would and gives their result (bit for bit on
  /// integers, the same rounding on floats), with the intermediates kept in registers. A stage
  /// may be a fused ufunc. `options`: the default target and the origin for messages. Throws
  /// DefinitionError (a malformed expression, with its column; an unknown ufunc, with the
  /// closest name; stages that never compose). See README, "Fusion".
  Ufunc fuse(const std::string& name, const std::string& expression,
             const VectorizeOptions& options = {});

  /// The partial derivative of the registered ufunc `ufunc` with respect to input `wrt`, as an
  /// ordinary ufunc (registered under DerivativeOptions::name, cached, precompilable), computed
  /// by forward mode: the ufunc's template function instantiated with jitvec::dual<float> or
  /// jitvec::dual<double>. Its loops are the ufunc's loops whose `wrt` input and result are
  /// float32 or float64. E.g.
  ///     auto d = engine.derivative("gaussian_pdf", "x");   // or 0; d(x, mean, sigma)
  /// Throws DefinitionError (naming the ufunc, the input and what to write instead) when the
  /// function is not a template, the input is out of range, unknown, declared with a plain type
  /// or never floating point, or the ufunc has several results or is fused. Asking again for
  /// the same derivative under the same name returns it. See README, "Derivatives".
  Ufunc derivative(const std::string& ufunc, const DerivativeInput& wrt,
                   const DerivativeOptions& options = {});
  /// As derivative(), with two outputs: the ufunc's value, then the derivative (one pass).
  Ufunc value_and_derivative(const std::string& ufunc, const DerivativeInput& wrt,
                             const DerivativeOptions& options = {});

  /// Reads helpers, ufuncs, fusions and derivatives from a TOML definition file (see README);
  /// returns the ufuncs it defined. Errors name the file, line and entry.
  std::vector<Ufunc> load_definitions(const std::filesystem::path& file);

  /// Registers a generalized ufunc (jitvec/gufunc.hpp): `signatures` list every operand's
  /// type ("void(float32[:], float32[:], float32)"), `layout` is NumPy's ("(n),(n)->()"), and
  /// `source` defines a void function called `name` taking one jitvec::View per operand.
  /// Throws SignatureError for a bad layout or signature, DefinitionError for a duplicate name
  /// or a signature that does not fit the layout. Compilation happens at first use.
  Gufunc guvectorize(const std::string& name, const std::vector<std::string>& signatures,
                     const std::string& layout, const std::string& source,
                     const VectorizeOptions& options = {});
  /// A gufunc defined earlier; throws DefinitionError if none has that name.
  Gufunc gufunc(const std::string& name) const;
  std::vector<std::string> gufunc_names() const;

  /// A ufunc defined earlier; throws DefinitionError if none has that name.
  Ufunc ufunc(const std::string& name) const;
  std::vector<std::string> ufunc_names() const;

  EngineStats stats() const;
  const EngineOptions& options() const;

  /// The threads a `parallel` call uses, from 1 to max_threads() (Numba's set_num_threads):
  /// for Dask workers or a process that shares its cores. Throws ArgumentError outside that
  /// range. Takes effect for the calls that start after it, in every thread.
  void set_num_threads(int threads);
  int num_threads() const;
  /// The pool's size: EngineOptions::threads, else JITVEC_NUM_THREADS, else one per core.
  int max_threads() const;

  /// Implementation access for the library's own layers (CLI, tests).
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  // Shared with the Ufuncs this engine made, which keep it alive (see jitvec/ufunc.hpp).
  std::shared_ptr<Impl> impl_;
};

}  // namespace jitvec
