// jitvec/ufunc.hpp: calling a vectorized function.
//
// A Ufunc is a handle to a function registered with Engine::vectorize. Calling it maps the
// scalar function over its arguments with NumPy's broadcasting rules:
//
//     jitvec::Array y = gaussian_pdf(x, 0.0f, 1.0f);                 // arrays and scalars
//     gaussian_pdf(x, mean, sigma, jitvec::out(y), jitvec::on(stream)); // into y, on a stream
//     gaussian_pdf(host_vec, 0.0, 1.0, jitvec::target(jitvec::Target::cpu));
//
// Arguments are Arrays (host or device), std::vectors (borrowed as 1-d host arrays) or C++
// arithmetic scalars. Scalars are "weak" as in NumPy 2: they take the type of the loop chosen
// for the arrays, and a scalar whose value would change in that type is an error. Options are
// passed as tagged arguments in any position: out(), on() for a stream, target().
// The variadic operator() only packs its arguments; the work happens in Ufunc::call.
//
// out= may share memory with an input: an exact alias (the same view: f(x, out(x))) is
// computed in place; any other overlap (f(x, out(x.transpose())), shifted slices, reversed
// views) is detected, conservatively by byte extents as NumPy's ufuncs do, and the
// overlapping inputs are copied first, so the result is what it would be without the overlap.
//
// Several outputs: a ufunc whose signature returns a tuple ("(float32, float32)(float32,
// float32)", jitvec/signature.hpp) computes every output in one pass (one kernel launch, or
// one host loop). Its function returns the results through reference parameters after its
// inputs, in the loop's result types, on every target:
//
//     void polar_to_cartesian(float r, float theta, float& x, float& y) {
//       x = r * cosf(theta);
//       y = r * sinf(theta);
//     }
//     std::vector<jitvec::Array> xy = polar_to_cartesian.outputs(r, theta);   // {x, y}
//     polar_to_cartesian.outputs(r, theta, jitvec::out(x), jitvec::out(y));   // into x and y
//
// (References, not a returned struct: the same text compiles on the GPU and the host with no
// type to declare, and it reads like CUDA's own sincosf(x, &s, &c).) outputs() returns every
// output in order; operator() returns one Array, so on a ufunc of several outputs it throws
// ArgumentError pointing at outputs(). out() is given once per output, in order, all of them
// or none; each out= may have its own dtype (same_kind cast from its result) and strides. Two
// out= arrays that share memory are an error naming both; an out= that is exactly an input
// is computed in place; other overlaps with inputs are copied first, as for one output.
//
// Lifetime: a Ufunc handle (and every copy of it) keeps alive what its calls need from the
// Engine that made it: the helpers it may call, the compiled loops, the disk cache, the
// counters, the thread pool. Calling it after its Engine is destroyed works as before; only
// the Engine's registry (Engine::ufunc by name) goes with the Engine.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "jitvec/array.hpp"
#include "jitvec/scalar.hpp"
#include "jitvec/signature.hpp"

namespace jitvec {

/// Where a ufunc runs: the GPU, or host code compiled from the same source (one thread, or
/// split over the cores).
enum class Target : std::uint8_t { cuda, cpu, parallel };
std::string_view target_name(Target t);
/// "cuda", "cpu", "parallel"; nullopt for anything else.
std::optional<Target> parse_target(std::string_view name);

struct OutOption { Array array; };
/// out= naming the caller's Array, which outlives the call it is passed to (no copy).
struct OutRef { const Array* array; };
struct StreamOption { Stream stream; };
struct TargetOption { Target target; };
/// Write the result into `a` (exact broadcast shape; dtype same-kind castable from the loop's).
/// A ufunc of several outputs takes one out() per output, in order.
/// An lvalue is referred to (copying an Array's shape and strides cost a tenth of a call); a
/// temporary is kept in the option.
inline OutRef out(const Array& a) { return OutRef{&a}; }
inline OutOption out(Array&& a) { return OutOption{std::move(a)}; }
/// Run on `s` (device targets); the call returns without synchronizing for device outputs.
inline StreamOption on(Stream s) { return StreamOption{s}; }
/// Run this call on `t` instead of the ufunc's default target.
inline TargetOption target(Target t) { return TargetOption{t}; }
struct LoopOption {
  std::size_t signature_index;
  Casting casting;
};
/// Run the loop of signatures()[i] instead of the first one the arrays cast to safely (NumPy's
/// dtype= and signature=): each array input must cast to the loop's type by `casting`
/// (converted as it is read), each scalar must fit it. For map calls and outer().
inline LoopOption loop(std::size_t signature_index, Casting casting = Casting::same_kind) {
  return LoopOption{signature_index, casting};
}

/// One argument of a ufunc call, type-erased. Built implicitly by Ufunc::operator(). An Array
/// (or out=) given as an lvalue is referred to, not copied, so a call copies no shapes: such
/// an Arg is valid while that Array is, which a call's own arguments always are. One made from
/// a temporary Array (or OutOption) holds it, as does one made from a std::vector (a 1-d host
/// Array borrowing the vector's data).
class Arg {
 public:
  enum class Kind : std::uint8_t { array, scalar, out, stream, target, loop };

  Arg(const Array& a) : kind_(Kind::array), array_(&a) {}  // NOLINT: implicit on purpose
  Arg(Array&& a) : kind_(Kind::array), owned_(std::move(a)) {}  // NOLINT
  template <class T>
  Arg(const std::vector<T>& v) : kind_(Kind::array), owned_(from_vector(v)) {}  // NOLINT
  /// A scalar: any C++ arithmetic type, std::complex<float/double> (weak complex scalars),
  /// jitvec::half and jitvec::bfloat16 (weak float scalars), or a jitvec::Scalar.
  template <class T, std::enable_if_t<detail::is_scalar_type_v<T>, int> = 0>
  Arg(T value) : kind_(Kind::scalar), scalar_(Scalar(value).value()) {}  // NOLINT
  Arg(const Scalar& value) : kind_(Kind::scalar), scalar_(value.value()) {}  // NOLINT
  Arg(const OutOption& o) : kind_(Kind::out), array_(&o.array) {}  // NOLINT
  Arg(OutOption&& o) : kind_(Kind::out), owned_(std::move(o.array)) {}  // NOLINT
  Arg(OutRef o) : kind_(Kind::out), array_(o.array) {}  // NOLINT
  Arg(StreamOption s) : kind_(Kind::stream), stream_(s.stream) {}  // NOLINT
  Arg(TargetOption t) : kind_(Kind::target), target_(t.target) {}  // NOLINT
  Arg(LoopOption l) : kind_(Kind::loop), loop_(l) {}  // NOLINT

  Kind kind() const noexcept { return kind_; }
  /// The array of an array or out= argument.
  const Array& array() const noexcept { return owned_ ? *owned_ : *array_; }
  const ScalarValue& scalar() const noexcept { return scalar_; }
  Stream stream() const noexcept { return stream_; }
  Target target_value() const noexcept { return target_; }
  const LoopOption& loop_value() const noexcept { return loop_; }

 private:
  Kind kind_;
  const Array* array_ = nullptr;  // the caller's Array (lvalue array and out= arguments)
  std::optional<Array> owned_;    // a temporary's Array, or a std::vector's borrowing Array
  ScalarValue scalar_;
  Stream stream_;
  Target target_ = Target::cuda;
  LoopOption loop_{0, Casting::same_kind};
};

/// Options of Ufunc::reduce, as NumPy's `ufunc.reduce` keywords (src/engine/reduction.cpp).
struct ReduceOptions {
  /// The axes to reduce (negative counts from the end); nullopt: every axis. An empty list
  /// reduces none (each result is the element itself, with `initial` folded in).
  std::optional<std::vector<int>> axes;
  /// Keep the reduced axes as size 1.
  bool keepdims = false;
  /// Folded in front of every result; the result of an empty reduction. Held exactly as given
  /// (`o.initial = std::int64_t(1) << 53 | 1`, `std::uint64_t(-1)`, `std::complex<double>(0.5,
  /// -0.25)`, `0.5`, `true`: jitvec/scalar.hpp) and converted once into the accumulator type: an
  /// integer must be exact in it, a float may round but not overflow, a complex goes only into a
  /// complex accumulator, a bool accumulator takes bools, 0 and 1; anything else is an
  /// ArgumentError naming the value, its dtype and the accumulator's (NumPy casts 0.5 into an
  /// int64 accumulator as 0; jitvec refuses it). Without it an empty reduction takes the
  /// ufunc's identity (VectorizeOptions::identity, by the same rule), and one that has none is
  /// an ArgumentError, as in NumPy.
  std::optional<Scalar> initial;
  /// The accumulator's dtype: the loop T(T, T) of this T is used (sum int8 into int64).
  /// Default: the first loop T(T, T) to which the input casts safely.
  std::optional<DType> dtype;
  /// Write the result here (the result's exact shape; dtype same_kind from the loop's).
  std::optional<Array> out;
  /// NumPy's where=: a bool array broadcast to x's shape (never wider); only the elements
  /// where it is true take part, and a result with none is `initial`, else the identity. The
  /// ufunc must declare an identity (VectorizeOptions::identity), exact in x's dtype, even
  /// when `initial` is given (NumPy accepts initial alone): masked elements are replaced by
  /// it in a pre-pass, then the ordinary reduction runs in its usual order (an all-true mask
  /// gives the same bits as none). Not at memory speed: the pre-pass reads x and the mask and
  /// writes a temporary of x's size that the reduction reads (float32: 13 bytes an element,
  /// against 4). src/engine/reduce_where.hpp.
  std::optional<Array> where;
  Stream stream;
  std::optional<Target> target;
};

/// Options of Ufunc::accumulate.
struct AccumulateOptions {
  std::optional<DType> dtype;
  std::optional<Array> out;
  Stream stream;
  std::optional<Target> target;
};

namespace detail {
class UfuncImpl;
}
struct AccuracyOptions;  // jitvec/accuracy.hpp
struct AccuracyReport;

class Ufunc {
 public:
  Ufunc() = default;
  explicit Ufunc(std::shared_ptr<detail::UfuncImpl> impl) : impl_(std::move(impl)) {}

  /// Maps the function over the arguments; see the header comment.
  template <class... A> Array operator()(const A&... args) const {
    static_assert(sizeof...(A) > 0, "a ufunc takes at least one argument");
    const Arg packed[] = {Arg(args)...};
    return call(packed, sizeof...(A));
  }
  /// The non-template entry point behind operator().
  Array call(const Arg* args, std::size_t count) const;

  /// Maps the function over the arguments and returns every output, in the signature's order
  /// (one Array for a ufunc of one output): `auto xy = polar_to_cartesian.outputs(r, theta);`.
  template <class... A> std::vector<Array> outputs(const A&... args) const {
    static_assert(sizeof...(A) > 0, "a ufunc takes at least one argument");
    const Arg packed[] = {Arg(args)...};
    return call_outputs(packed, sizeof...(A));
  }
  /// The non-template entry point behind outputs().
  std::vector<Array> call_outputs(const Arg* args, std::size_t count) const;

  /// NumPy's `f.outer(a, b)`: f(a[i...], b[j...]) for every pair, of shape a.shape + b.shape,
  /// with the options of a call (out(), on(), target()). Nothing is materialized: `a` enters
  /// the ordinary call as a view with zero strides over b's dimensions. Only for ufuncs of two
  /// inputs (else ArgumentError naming the ufunc and the method). Source: src/engine/ufunc_methods.cpp.
  template <class... A> Array outer(const A&... args) const {
    const Arg packed[] = {Arg(args)...};
    return outer_call(packed, sizeof...(A));
  }
  Array outer_call(const Arg* args, std::size_t count) const;

  /// NumPy's `f.at(a, indices, b)`: a[indices[j]] = f(a[indices[j]], b[j]) for each j in order,
  /// in place and unbuffered (a repeated index is updated every time: an add.at histogram
  /// counts every hit). `indices`: a 1-d integer array of positions along a's first axis
  /// (negative counts from the end), all checked before anything is written; `b` broadcasts to
  /// (len(indices),) + a.shape[1:] or is a scalar. Options: on(), target(); no out=. Exact and
  /// deterministic for any function on every target (src/engine/ufunc_at.hpp says how). Only
  /// for ufuncs of two inputs.
  template <class... A> void at(const A&... args) const {
    const Arg packed[] = {Arg(args)...};
    at_call(packed, sizeof...(A));
  }
  void at_call(const Arg* args, std::size_t count) const;

  /// NumPy's `f.reduce(x, axis=..., keepdims=..., initial=..., dtype=..., out=...)` for a
  /// ufunc of two inputs and one output (else ArgumentError naming the ufunc and the method).
  /// The fold order is fixed (README, "Reductions"): the same result from run to run on a
  /// target; `f` is taken to be associative and commutative, as NumPy's reorderable ufuncs.
  Array reduce(const Array& x, const ReduceOptions& options = {}) const;
  /// NumPy's `f.accumulate(x, axis)`: the inclusive scan along `axis` (negative counts from
  /// the end), any strides; the result has x's shape and the loop's dtype. `f` is taken to be
  /// associative.
  Array accumulate(const Array& x, int axis = 0, const AccumulateOptions& options = {}) const;

  const std::string& name() const;
  const std::vector<Signature>& signatures() const;
  /// Number of inputs (every signature has the same number).
  int nin() const;
  /// Number of outputs (every signature has the same number).
  int nout() const;
  /// The index into signatures() of the loop a call with these arguments would run (NumPy's
  /// resolve_dtypes): its types only, nothing compiled, shapes and out= not checked. Throws
  /// what the call would for its types (ArgumentError: no loop fits, or a scalar does not).
  std::size_t loop_for(const Arg* args, std::size_t count) const;
  /// The target used when a call names none.
  Target default_target() const;
  /// Compiles and loads the loop for `signature` on `target` now, so the first call does not.
  void precompile(std::size_t signature_index, Target target) const;
  /// Measures each float loop against the same source in a wider type (include
  /// jitvec/accuracy.hpp, which says how): one report per loop and output. Throws
  /// DefinitionError when the source cannot be called with the wider types, ArgumentError for
  /// bad options, TargetError for the cuda target without a GPU. Source: src/engine/accuracy.cpp.
  std::vector<AccuracyReport> accuracy(const AccuracyOptions& options) const;
  /// The inputs' names: the parameters' names in the source, or positions ("0", "1") where it
  /// gives none (codegen/parameter_names.hpp); accuracy ranges use them.
  std::vector<std::string> input_names() const;

  explicit operator bool() const noexcept { return static_cast<bool>(impl_); }

 private:
  std::shared_ptr<detail::UfuncImpl> impl_;
};

}  // namespace jitvec
