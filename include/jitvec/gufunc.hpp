// jitvec/gufunc.hpp: generalized ufuncs (NumPy's gufuncs, Numba's @guvectorize).
//
// A generalized ufunc applies a function to sub-arrays: its layout, NumPy's signature string,
// names each operand's core dimensions, and every other (leading) dimension is a loop
// dimension, broadcast as for ufuncs:
//
//     auto dot = engine.guvectorize("dot", {"void(float32[:], float32[:], float32[:])"},
//                                   "(n),(n)->()", R"(
//     __device__ void dot(jitvec::View<const float, 1> a, jitvec::View<const float, 1> b,
//                         jitvec::View<float, 0> out) {
//       float s = 0;
//       for (long long i = 0; i < a.size(); ++i) s += a[i] * b[i];
//       out() = s;
//     })");
//     jitvec::Array d = dot(a, b);            // a, b: (rows, 16) -> d: (rows,)
//
// Types: each signature lists every operand, inputs then outputs, as Numba writes them: a
// dtype, optionally followed by one ':' per core dimension ("float32[:, :]"); a "()" operand
// is a plain dtype, or "[:]" as Numba writes its outputs. The function returns void and takes
// one jitvec::View<T, N> per operand (src/kernels/gufunc_views.hpp: a pointer, N extents and N
// strides in elements; v[i], v(i, j), v.size(d); a 0-d view is v(), *v or v[0]); T is the
// operand's type, const for inputs. It may be a template. It runs once per loop element, on one
// GPU thread (cuda) or in a host loop (cpu, parallel: the loop space split over threads).
//
// A call takes the inputs (Arrays, std::vectors, and C++ scalars for "()" inputs) and the
// options of a ufunc call: out() once per output (all outputs or none), on(), target(). The
// loop is the first signature to which every array input casts safely (scalars are weak, as for
// ufuncs); inputs of another dtype are cast into a temporary first. Core dimensions are checked
// (a dimension with two sizes is a BroadcastError naming both operands); outputs are allocated
// C-contiguous with shape loop shape + core dimensions, or written into out=, whose dtype must
// be the loop's exactly. Inputs that share memory with an out= are copied first. Results are
// where a ufunc call's would be (device for device inputs on cuda).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "jitvec/ufunc.hpp"

namespace jitvec {

namespace detail {
class GufuncImpl;
}

class Gufunc {
 public:
  Gufunc() = default;
  explicit Gufunc(std::shared_ptr<detail::GufuncImpl> impl) : impl_(std::move(impl)) {}

  /// Calls a gufunc of one output and returns it; see the header comment.
  template <class... A> Array operator()(const A&... args) const {
    const Arg packed[] = {Arg(args)...};
    return call_single(packed, sizeof...(A));
  }
  /// Calls a gufunc of any number of outputs and returns them in order.
  template <class... A> std::vector<Array> outputs(const A&... args) const {
    const Arg packed[] = {Arg(args)...};
    return call(packed, sizeof...(A));
  }
  /// The non-template entry points behind the two above.
  std::vector<Array> call(const Arg* args, std::size_t count) const;
  Array call_single(const Arg* args, std::size_t count) const;

  const std::string& name() const;
  /// The layout in canonical form, "(m,n),(n)->(m)".
  std::string layout() const;
  /// The signatures as given.
  const std::vector<std::string>& signatures() const;
  int nin() const;
  int nout() const;
  /// Compiles and loads the module for `signature` on `target` now, so the first call does not.
  void precompile(std::size_t signature_index, Target target) const;

  explicit operator bool() const noexcept { return static_cast<bool>(impl_); }

 private:
  std::shared_ptr<detail::GufuncImpl> impl_;
};

}  // namespace jitvec
