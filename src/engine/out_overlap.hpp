// src/engine/out_overlap.hpp: inputs that share memory with out=, copied first as NumPy does.
//
// A ufunc writes out= while it reads its inputs. When out= shares memory with an input in any
// way other than being exactly the same view, an element can be read after another element's
// result has overwritten it: f(X, out=X.T), f(A[0:8], out=A[1:9]), a reversed view, an input
// broadcast over out='s memory. NumPy's ufuncs check every input against out= and copy the
// inputs that may overlap before the loop runs; jitvec does the same, on every target.
//   - Detection is NumPy's first, conservative check (solve_may_share_memory with max_work=1):
//     the byte extents (lowest to highest byte touched) of the two views intersect, in the same
//     memory (host memory, or one device's). Views that interleave without sharing an element
//     (A[0::2] and A[1::2]) count as overlapping: one copy too many, never a wrong answer.
//   - Several outputs: each input is checked against every out=; outputs that may overlap each
//     other are an error naming both (check_outputs_apart; NumPy leaves that case undefined).
//   - An exact alias (same data pointer, shape, strides and dtype: f(X, out=X)) reads each
//     element before writing that same element, in the same thread, whatever the kernel: it
//     stays the in-place fast path, with no copy.
//   - Buffering: an overlapping input is replaced, for this call, by a fresh C-contiguous copy
//     in its own memory. Host arrays are gathered by core/strided_copy. Device arrays stay on
//     the device, stream-ordered on the call's stream: a contiguous one by a device-to-device
//     copy, a strided one by running the engine's internal identity ufunc
//     (Engine::Impl::copy_ufunc) through the ordinary GPU path. Those loops already handle
//     every stride and dtype, so the copy needs no kernel of its own, and it is compiled and
//     cached like any loop (once per dtype).
#pragma once

#include <array>
#include <optional>
#include <string>

#include "engine/array_slots.hpp"
#include "engine/call_plan.hpp"
#include "jitvec/engine.hpp"

namespace jitvec::engine {

/// Same data pointer, shape, strides, dtype and memory.
bool is_exact_alias(const Array& a, const Array& b);

/// Whether the byte extents of `a` and `b` intersect in the same memory (empty arrays never
/// overlap anything).
bool may_overlap(const Array& a, const Array& b);

/// The copies that replace overlapping inputs during one call; they must outlive the launch
/// (device copies are freed stream-ordered, so dropping them after an asynchronous launch is
/// safe).
struct OverlapBuffers {
  ArraySlots<launch::kMaxOperands> copies;  // slot k: input k's copy (none made: no cost)
};

/// Throws ArgumentError naming both when two out= arrays of `plan` may overlap (the same
/// conservative check): each output of a ufunc of several outputs needs its own memory.
void check_outputs_apart(const std::string& ufunc_name, const CallPlan& plan);

/// Points each input of `plan` that may overlap an out= array (and is not an exact alias of
/// it) at a copy held in `buffers`. Device inputs of calls that run on the host are left alone
/// (the host launcher rejects them).
void buffer_overlapping_inputs(Engine::Impl& engine, CallPlan& plan, OverlapBuffers& buffers);

}  // namespace jitvec::engine
