// python/src/capture.hpp: graph capture from Python (jitvec.capture, jitvec.Graph).
//
// jitvec.capture(body, stream=, device=) runs `body()` once with the stream capturing
// (jitvec::capture, include/jitvec/graph.hpp) and returns a Graph whose replay() queues every
// recorded call with one driver call. While the body runs on this thread, a ufunc call that
// names no stream= runs on the capture's stream and orders nothing against the arrays'
// libraries' streams (the capture's order is the body's order), and the Python objects whose
// memory the calls read or write are kept: the Graph holds them for as long as it can replay,
// so dropping a CuPy array or a torch tensor after the capture cannot leave a replay writing
// freed memory. The rules of a capture are the C++ ones (device arrays, out= on every call).
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <vector>

namespace jitvec_py {

/// A capture in progress on this thread: its stream and the objects its calls used.
struct CaptureState {
  std::uintptr_t stream = 0;
  std::vector<nanobind::object> used;
};

/// The capture running on this thread, or null.
CaptureState* active_capture() noexcept;

/// Defines jitvec._jitvec.capture and jitvec._jitvec.Graph.
void register_capture(nanobind::module_& m);

}  // namespace jitvec_py
