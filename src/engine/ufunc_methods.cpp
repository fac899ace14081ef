// src/engine/ufunc_methods.cpp: the methods of a two-input ufunc that H4 owns: outer and at.
//
// outer(a, b) is the ordinary call on views: `a` gets b.ndim trailing dimensions of size 1
// (stride 0), b broadcasts over a's dimensions by NumPy's leading-dimension rule, so the result
// has shape a.shape + b.shape and nothing is materialized. at() is engine/ufunc_at.hpp's.
#include <fmt/format.h>

#include <vector>

#include "engine/engine_impl.hpp"
#include "engine/ufunc_at.hpp"
#include "jitvec/ufunc.hpp"

namespace jitvec {
namespace {

// A signature's number of results, whichever way Signature holds them (one `result`, or
// `results` for ufuncs of several outputs).
template <class S> auto result_count(const S& s, int) -> decltype(s.results.size()) {
  return s.results.size();
}
template <class S> std::size_t result_count(const S&, long) { return 1; }

detail::UfuncImpl& binary_ufunc(const std::shared_ptr<detail::UfuncImpl>& impl,
                                const char* method) {
  if (!impl) {
    throw Error(fmt::format("Ufunc::{}: this Ufunc is empty: get one from Engine::vectorize or "
                            "Engine::ufunc",
                            method));
  }
  const std::size_t nin = impl->signatures.front().args.size();
  if (nin != 2) {
    throw ArgumentError(fmt::format(
        "ufunc '{}' takes {} input{}: {}() is defined only for ufuncs of two inputs and one "
        "output (as NumPy's binary ufuncs)",
        impl->name, nin, nin == 1 ? "" : "s", method));
  }
  const std::size_t nout = result_count(impl->signatures.front(), 0);
  if (nout != 1) {
    throw ArgumentError(fmt::format(
        "ufunc '{}' returns {} results: {}() is defined only for ufuncs of two inputs and one "
        "output (as NumPy's binary ufuncs)",
        impl->name, nout, method));
  }
  return *impl;
}

// The positions of the operand arguments (arrays and scalars) among `args`.
std::vector<std::size_t> operand_positions(const Arg* args, std::size_t count) {
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < count; ++i) {
    if (args[i].kind() == Arg::Kind::array || args[i].kind() == Arg::Kind::scalar) {
      positions.push_back(i);
    }
  }
  return positions;
}

// `a` with `extra` trailing dimensions of size 1 and stride 0: a view of the same memory (its
// lifetime is the caller's array's, which outlives the call).
Array with_trailing_dims(const Array& a, int extra) {
  Shape shape = a.shape();
  Strides strides = a.strides();
  shape.insert(shape.end(), extra, 1);
  strides.insert(strides.end(), extra, 0);
  return Array::wrap(a.data(), a.dtype(), std::move(shape), std::move(strides), a.memory(),
                     a.device());
}

}  // namespace

Array Ufunc::outer_call(const Arg* args, std::size_t count) const {
  const detail::UfuncImpl& ufunc = binary_ufunc(impl_, "outer");
  const std::vector<std::size_t> operands = operand_positions(args, count);
  if (operands.size() != 2) {
    throw ArgumentError(fmt::format(
        "ufunc '{}': outer() takes two operands (a, b) and options; it was given {} operands",
        ufunc.name, operands.size()));
  }
  std::vector<Arg> call_args(args, args + count);
  const Arg& a = args[operands[0]];
  const Arg& b = args[operands[1]];
  if (a.kind() == Arg::Kind::array && b.kind() == Arg::Kind::array && b.array().ndim() > 0) {
    call_args[operands[0]] = Arg(with_trailing_dims(a.array(), b.array().ndim()));
  }
  return call(call_args.data(), call_args.size());
}

void Ufunc::at_call(const Arg* args, std::size_t count) const {
  engine::run_at(binary_ufunc(impl_, "at"), args, count);
}

}  // namespace jitvec
