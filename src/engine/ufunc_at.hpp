// src/engine/ufunc_at.hpp: Ufunc::at, NumPy's ufunc.at, on every target.
//
// f.at(a, indices, b, options...) updates `a` in place: for j = 0, 1, ... in order,
// a[indices[j]] = f(a[indices[j]], b[j]), unbuffered (an index given several times is updated
// several times). `indices` is a 1-d integer array (any integer dtype, host or device, or a
// std::vector) of positions along a's FIRST axis, so a[indices[j]] is a row a[i, ...] (a single
// element for a 1-d `a`); negative positions count from the end as in NumPy. `b` broadcasts to
// (len(indices),) + a.shape[1:] (a scalar adds the same value at every hit). Every index is
// checked (and normalized) on the host before anything is written: one out of range is an
// IndexError-like ArgumentError naming it, its position and the axis size, and `a` is left as
// it was. The loop is chosen from a's and b's dtypes as for a call, and its result must cast to
// a's dtype (same_kind).
//
// How: the positions are sorted stably by index into segments (one per distinct index, its
// positions in call order); the kernel (kernels/ufunc_at.hpp) gives one thread to each
// (segment, element of a row), which applies its updates in order. It is correct for any user
// function (no atomics), deterministic, and equal to NumPy's sequential loop bit for bit.
// cuda: the sorted segments are copied to the device (stream-ordered on the call's stream; a
// host `a` is copied to the device and back, synchronously); cpu: one pass in index order;
// parallel: the (segment, element) range split over the thread pool, so by distinct index.
// A `b` that shares memory with `a` is read from a copy.
#pragma once

#include <cstddef>

#include "jitvec/ufunc.hpp"

namespace jitvec::detail {
class UfuncImpl;
}

namespace jitvec::engine {

void run_at(detail::UfuncImpl& ufunc, const Arg* args, std::size_t count);

}  // namespace jitvec::engine
