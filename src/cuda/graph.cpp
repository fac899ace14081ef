#include "cuda/graph.hpp"

#include <fmt/format.h>

#include <exception>
#include <utility>

#include "core/log.hpp"
#include "cuda/context.hpp"
#include "cuda/driver.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::cuda {
namespace {

// Destroys `graph` (null is ignored); a failure is only logged: nothing depends on it.
void destroy_graph(CUgraph graph) noexcept {
  if (graph == nullptr) return;
  const CUresult result = driver().graphDestroy(graph);
  if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED) {
    jitvec::detail::log().error("cuGraphDestroy failed: {}", error_text(result));
  }
}

}  // namespace

CapturedGraph::CapturedGraph(CapturedGraph&& other) noexcept
    : exec_(std::exchange(other.exec_, nullptr)), nodes_(other.nodes_), device_(other.device_) {}

CapturedGraph& CapturedGraph::operator=(CapturedGraph&& other) noexcept {
  if (this != &other) {
    destroy();
    exec_ = std::exchange(other.exec_, nullptr);
    nodes_ = other.nodes_;
    device_ = other.device_;
  }
  return *this;
}

CapturedGraph::~CapturedGraph() { destroy(); }

void CapturedGraph::destroy() noexcept {
  if (exec_ == nullptr) return;
  const CUgraphExec exec = std::exchange(exec_, nullptr);
  try {
    ContextGuard guard(device_);
    const CUresult result = driver().graphExecDestroy(exec);
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED) {
      jitvec::detail::log().error("cuGraphExecDestroy on CUDA device {} failed: {}", device_,
                                  error_text(result));
    }
  } catch (const CudaError& error) {
    if (error.code() != CUDA_ERROR_DEINITIALIZED) {
      jitvec::detail::log().error("cuGraphExecDestroy on CUDA device {}: {}", device_, error.what());
    }
  } catch (const std::exception& error) {
    jitvec::detail::log().error("cuGraphExecDestroy on CUDA device {}: {}", device_, error.what());
  } catch (...) {  // nothing more can be done from a destructor
  }
}

void CapturedGraph::launch(CUstream stream) const {
  check(driver().graphLaunch(exec_, stream), "cuGraphLaunch");
}

void begin_capture(CUstream stream) {
  check(driver().streamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        "cuStreamBeginCapture");
}

CapturedGraph end_capture(CUstream stream, int device) {
  CUgraph graph = nullptr;
  const CUresult ended = driver().streamEndCapture(stream, &graph);
  if (ended == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) {
    destroy_graph(graph);
    throw_error(ended,
                "cuStreamEndCapture (the driver invalidated the capture: something inside it "
                "synchronized with the capturing stream, copied synchronously or used a stream "
                "outside the capture)");
  }
  if (ended != CUDA_SUCCESS) {
    destroy_graph(graph);
    throw_error(ended, "cuStreamEndCapture");
  }
  struct DestroyAtExit {
    CUgraph graph;
    ~DestroyAtExit() { destroy_graph(graph); }  // the instantiated graph is independent of it
  } owner{graph};
  CapturedGraph captured;
  captured.device_ = device;
  check(driver().graphGetNodes(graph, nullptr, &captured.nodes_), "cuGraphGetNodes");
  check(driver().graphInstantiateWithFlags(&captured.exec_, graph, 0),
        "cuGraphInstantiateWithFlags");
  check(driver().graphUpload(captured.exec_, stream), "cuGraphUpload");
  return captured;
}

void abandon_capture(CUstream stream) noexcept {
  try {
    CUgraph graph = nullptr;
    const CUresult result = driver().streamEndCapture(stream, &graph);
    destroy_graph(graph);
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) {
      jitvec::detail::log().error("cuStreamEndCapture of an abandoned capture failed: {}",
                                  error_text(result));
    }
  } catch (...) {  // called while another exception is on its way; it is the one that matters
  }
}

bool is_capturing(CUstream stream) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  check(driver().streamIsCapturing(stream, &status), "cuStreamIsCapturing");
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

}  // namespace jitvec::cuda
