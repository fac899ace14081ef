// jitvec/graph.hpp: record a sequence of ufunc calls once, replay it as one CUDA graph.
//
// A simulation step of many calls on small arrays pays a kernel launch (a few microseconds of
// host time) per call. capture() runs `body` once with `stream` in CUDA's capture mode: the
// GPU ufunc calls that this thread makes inside it are recorded, not run, and the result is a
// Graph whose replay() queues all of them with one driver call:
//
//     jitvec::Graph step = jitvec::capture(stream, [&] {
//       f(x, y, jitvec::out(t));        // calls inside run on `stream` unless they name it
//       g(t, 0.5f, jitvec::out(u));
//     });
//     for (int i = 0; i < steps; ++i) {
//       upload(x);                      // any work on `stream` that changes the contents
//       step.replay();                  // f then g again, on the new contents
//     }
//
// What a replay reads and writes is fixed at capture: the same arrays (their addresses), the
// same scalar values (a scalar argument is recorded by value; to vary one, pass it as a device
// array of shape () or (1,)), the same kernels. The arrays' contents may change freely between
// replays: that is the point.
//
// The rules, each enforced with an error that names the call:
// - Every array a captured call uses is in device memory on the capture's device, and every
//   call has out=. jitvec allocates nothing during a capture: a call without out= (or with an
//   out= that overlaps an input so that the input must first be copied), Array::empty or
//   to_device on the capturing stream are refused (ArgumentError), because memory from
//   jitvec's per-stream block cache would be handed to later work while the graph still
//   writes it. Allocate the arrays before capturing.
// - Host arrays and std::vectors are refused: their copies are synchronous, which a graph
//   cannot replay. The cpu and parallel targets are refused (TargetError): they would run
//   once, during the capture, and never on replay.
// - Calls run on `stream`: a call that names no stream (or the null stream) is recorded on
//   it; naming another stream is an error. Captures do not nest.
// - Lifetime: the Graph holds a share of every array its calls use (as a copy of the Array
//   does), so they stay allocated while the Graph exists; an Array::wrap view of memory
//   jitvec does not own stays the caller's to keep alive. Destroying a Graph waits for its
//   last replay to finish, then lets those arrays go.
// - A ufunc whose loop is not compiled yet compiles and loads during the capture (it happens
//   on the host); drivers older than CUDA 12.3 cannot load a kernel inside a capture, so there
//   call Ufunc::precompile, or make the calls once, before capturing.
// If the body throws, the capture is abandoned and the exception propagates. On a machine
// without a usable GPU, capture() throws TargetError saying so.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "jitvec/array.hpp"

namespace jitvec {

namespace detail {
class GraphImpl;
}

/// A recorded sequence of GPU ufunc calls (see the header comment). Copies share one graph.
class Graph {
 public:
  Graph() = default;
  explicit Graph(std::shared_ptr<detail::GraphImpl> impl) : impl_(std::move(impl)) {}

  /// Queues the recorded calls on the stream they were captured on. Returns without waiting.
  void replay() const;
  /// Queues the recorded calls on `stream` (of the same device), after the work queued there
  /// and after this graph's earlier replays.
  void replay(Stream stream) const;

  /// The ufunc calls recorded.
  std::size_t calls() const;
  /// The CUDA graph's nodes (one kernel per call that had elements to compute).
  std::size_t nodes() const;
  /// The stream and device the calls were captured on.
  Stream stream() const;
  int device() const;

  explicit operator bool() const noexcept { return static_cast<bool>(impl_); }

 private:
  std::shared_ptr<detail::GraphImpl> impl_;
};

/// Runs `body` once with `stream` (a stream you created on `device`, not the null stream)
/// capturing, and returns the recorded calls as a Graph.
Graph capture(Stream stream, const std::function<void()>& body, int device = 0);

}  // namespace jitvec
