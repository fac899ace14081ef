// src/cuda/graph.hpp: stream capture into a CUDA graph, and the instantiated graph.
//
// begin_capture() puts a stream in capture mode (CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: only
// this thread's potentially unsafe driver calls, such as a synchronous copy, invalidate the
// capture; other threads keep working eagerly). Work queued on the stream is then recorded, not
// run, until end_capture() turns it into an instantiated, launchable CapturedGraph, or
// abandon_capture() throws it away (when the code being captured failed). CapturedGraph is a
// move-only owner of a CUgraphExec: launch() runs the whole graph on a stream with one driver
// call; its destructor never throws and tolerates the driver having shut down at exit.
// A capture the driver invalidated (an unsafe call, a synchronisation with a stream outside it)
// ends in a CudaError that says so. is_capturing() asks the driver whether a stream is being
// captured, whoever started the capture.
#pragma once

#include <cuda.h>

#include <cstddef>

namespace jitvec::cuda {

class CapturedGraph {
 public:
  CapturedGraph() = default;
  CapturedGraph(CapturedGraph&& other) noexcept;
  CapturedGraph& operator=(CapturedGraph&& other) noexcept;
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  ~CapturedGraph();

  /// Runs the graph on `stream` (a stream of the device it was captured on), ordered after the
  /// work queued there and after this graph's previous launches.
  void launch(CUstream stream) const;
  /// Number of nodes (kernel launches, copies...) the capture recorded.
  std::size_t nodes() const noexcept { return nodes_; }
  int device() const noexcept { return device_; }

 private:
  friend CapturedGraph end_capture(CUstream stream, int device);
  void destroy() noexcept;

  CUgraphExec exec_ = nullptr;
  std::size_t nodes_ = 0;
  int device_ = -1;
};

/// Starts recording the work queued on `stream` (not the legacy default stream), in the
/// current context.
void begin_capture(CUstream stream);
/// Ends the capture begun on `stream` by this thread and instantiates the graph; the graph is
/// uploaded to `device` on `stream`, so the first launch costs no more than the next.
CapturedGraph end_capture(CUstream stream, int device);
/// Ends the capture begun on `stream` and discards what it recorded. Never throws.
void abandon_capture(CUstream stream) noexcept;
/// Whether work queued on `stream` now would be recorded into a graph (a capture is active or
/// was invalidated but not yet ended).
bool is_capturing(CUstream stream);

}  // namespace jitvec::cuda
