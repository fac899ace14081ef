// src/engine/graph_capture.hpp: the engine's side of jitvec::capture (jitvec/graph.hpp).
//
// While capture() runs its body, this thread has an ActiveCapture: the capturing stream and
// device, the arrays the recorded calls use, and how many calls there were. Ufunc::call asks
// active_capture() (a thread-local read, nothing more, when no capture is active) and hands
// each planned call to join_capture(), which applies the capture's rules before anything is
// launched: the call runs on the capturing stream, on the GPU, with every array (out= included)
// in device memory on the capture's device; it holds those arrays for the Graph. Device
// allocations on the capturing stream are refused by refuse_allocation_in_capture(), called by
// Array's allocator, so nothing from the per-stream block cache ends up baked into a graph.
// GraphImpl is what a Graph shares: the instantiated graph, the held arrays, and an event
// recorded after each replay, which its destructor waits for before it lets the arrays go.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <mutex>
#include <vector>

#include "cuda/graph.hpp"
#include "cuda/stream.hpp"
#include "engine/call_plan.hpp"
#include "jitvec/array.hpp"

namespace jitvec::detail {
class UfuncImpl;
}

namespace jitvec::engine {

struct ActiveCapture {
  CUstream stream = nullptr;
  int device = 0;
  std::vector<Array> held;  // every array a recorded call uses
  std::size_t calls = 0;
};

/// This thread's capture, or null outside jitvec::capture's body.
ActiveCapture* active_capture() noexcept;

/// Makes `capture` this thread's active capture for the scope.
class CaptureScope {
 public:
  explicit CaptureScope(ActiveCapture& capture);
  ~CaptureScope();
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;
};

/// Checks a planned call against the capture's rules (throws ArgumentError or TargetError
/// naming the ufunc and the argument), puts it on the capturing stream when it names none, and
/// holds its arrays.
void join_capture(const detail::UfuncImpl& ufunc, CallPlan& plan, ActiveCapture& capture);

/// Throws ArgumentError when this thread is capturing and `bytes` of device memory are asked
/// for on the capturing stream (or the null stream, which would synchronize with it).
void refuse_allocation_in_capture(CUstream stream, std::size_t bytes);

}  // namespace jitvec::engine

namespace jitvec::detail {

class GraphImpl {
 public:
  GraphImpl(cuda::CapturedGraph graph, engine::ActiveCapture&& captured);
  /// Waits for the last replay, then releases the graph and the held arrays.
  ~GraphImpl();
  GraphImpl(const GraphImpl&) = delete;
  GraphImpl& operator=(const GraphImpl&) = delete;

  void replay(CUstream stream);

  const CUstream stream;
  const int device;
  const std::size_t calls;
  std::size_t nodes() const noexcept { return graph_.nodes(); }

 private:
  // Declared first, destroyed last: the arrays outlive the graph that uses them.
  std::vector<Array> held_;
  cuda::CapturedGraph graph_;
  cuda::Event last_replay_;
  bool replayed_ = false;
  std::mutex mutex_;
};

}  // namespace jitvec::detail
