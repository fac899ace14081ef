// src/engine/reduce_where.hpp: Ufunc::reduce's where= mask (NumPy's `f.reduce(x, where=m)`).
//
// The reduction kernels (kernels/reduce.hpp) fold every element of x in a fixed order and never
// skip one, so where= is a pre-pass in front of the ordinary reduce, not a kernel of its own:
//   1. checks: the mask is a bool array that broadcasts to x's shape (NumPy's broadcast_to
//      rule: never wider than x), in memory the target can reach (as x); the ufunc declares an
//      identity (VectorizeOptions::identity), and that value converts exactly to x's dtype;
//   2. s = mask ? x : identity, x's shape and dtype, made by the engine's internal select ufunc
//      (where_select_ufunc: one loop T(bool, T, T) per dtype, compiled and cached like any
//      loop) on the call's target and stream: on x's device for cuda (host operands are moved
//      there by the ordinary call), on the host for cpu and parallel;
//   3. the ordinary reduce of s with the same options (axes, keepdims, initial, dtype=, out=):
//      same kernels, same order; for cuda with a host x and no out=, the result is brought back
//      to the host, as a call without where= returns it.
// Why the identity: f(a, identity) == a, so a masked element changes no result, and an output
// with no selected element is the identity (initial folded in front when given), as NumPy says.
// `initial` cannot stand in for a missing identity: it would be folded in once per masked
// element (2 * initial for a sum), so a ufunc without an identity is an error even with initial.
// Unlike NumPy, a zero sum may lose its sign (-0.0 + 0 is +0.0), and NaN payloads may differ.
// s is laid out as the reduce without where= would read x: in x's memory order (dimensions by
// decreasing |stride|, a reduced dimension inside a kept one of equal stride), or C order for a
// host x on cuda (the call copies it so: Array::to_device), so the reduce picks the same kind
// (kernels/reduce.hpp: the order depends only on the kind and the logical shape): a mask that
// is all true gives the same bits as no mask.
// Cost: the pre-pass reads x and the mask and writes s, and the reduce reads s again: for
// float32 and a full-size mask, 4 + 1 + 4 + 4 = 13 bytes an element against 4 without where=
// (a broadcast mask reads less), plus s's allocation of x's size.
#pragma once

#include <vector>

#include "jitvec/signature.hpp"
#include "jitvec/ufunc.hpp"

namespace jitvec::detail {
class UfuncImpl;
}

namespace jitvec::engine {

/// The select ufunc's name and source (a template: `keep ? x : identity`).
inline constexpr const char* kWhereSelectName = "jitvec_where_select";
inline constexpr const char* kWhereSelectSource =
    "template <typename T> __device__ T jitvec_where_select(bool keep, T x, T identity) {\n"
    "  return keep ? x : identity;\n}";
/// Its loops T(bool, T, T), one per dtype, ordered so that each dtype's first safe cast is to
/// itself (the mask is bool, which casts to any; the identity is a scalar: it takes the loop's
/// type).
std::vector<Signature> where_select_signatures();
/// The select loop for arrays of type `t`: t(bool, t, t).
Signature where_select_signature(DType t);
/// PrecompileJob::method of the select loop that reduce(where=) on arrays of the job's loop
/// type T (a loop T(T, T) of a ufunc whose definition lists "reduce") runs first.
inline constexpr const char* kWhereSelectMethod = "where= select";

/// reduce() with options.where set: the pre-pass, then reduce() of the selected elements with
/// the other options. Throws ArgumentError, BroadcastError or TargetError naming the ufunc,
/// reduce() and what was wrong.
Array reduce_where(const detail::UfuncImpl& ufunc, const Array& x, const ReduceOptions& options);

}  // namespace jitvec::engine
