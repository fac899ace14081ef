#include "capture.hpp"

#include <nanobind/stl/string.h>

#include <jitvec/jitvec.hpp>

#include <fmt/format.h>

#include "arguments.hpp"

namespace nb = nanobind;

namespace jitvec_py {
namespace {

thread_local CaptureState* current = nullptr;

// A recorded graph and what its calls read and write (kept alive for its replays).
struct PyGraph {
  jitvec::Graph graph;
  std::vector<nb::object> used;
};

std::uintptr_t stream_argument(nb::handle stream) {
  if (stream.is_none()) {
    throw jitvec::ArgumentError(
        "jitvec.capture: stream= is needed, a stream you created (a CuPy or PyTorch stream, or a "
        "CUstream handle as an int), not the null stream: CUDA cannot capture the legacy default stream");
  }
  return stream_of(stream);
}

PyGraph capture(nb::callable body, nb::handle stream, int device) {
  if (current != nullptr) throw jitvec::ArgumentError("jitvec.capture: a capture is already running on this thread");
  const std::uintptr_t handle = stream_argument(stream);
  CaptureState state;
  state.stream = handle;
  current = &state;
  struct Reset {
    ~Reset() { current = nullptr; }
  } reset;
  PyGraph result;
  result.graph = jitvec::capture(reinterpret_cast<CUstream_st*>(handle), [&] { body(); }, device);
  result.used = std::move(state.used);
  return result;
}

}  // namespace

CaptureState* active_capture() noexcept { return current; }

void register_capture(nb::module_& m) {
  nb::class_<PyGraph>(m, "Graph",
                      "GPU ufunc calls recorded by jitvec.capture, replayed as one CUDA graph: "
                      "the same arrays (their addresses) every time, on their contents at replay.")
      .def("replay", [](const PyGraph& g, nb::handle stream) {
        if (stream.is_none()) {
          nb::gil_scoped_release release;
          g.graph.replay();
        } else {
          const std::uintptr_t handle = stream_of(stream);
          nb::gil_scoped_release release;
          g.graph.replay(reinterpret_cast<CUstream_st*>(handle));
        }
      }, nb::arg("stream").none() = nb::none(),
         "Queues the recorded calls on the capture's stream, or on stream= (of the same device), "
         "and returns without waiting.")
      .def_prop_ro("calls", [](const PyGraph& g) { return g.graph.calls(); }, "The ufunc calls recorded.")
      .def_prop_ro("nodes", [](const PyGraph& g) { return g.graph.nodes(); },
                   "The CUDA graph's kernel nodes (one per call that had elements).")
      .def_prop_ro("stream", [](const PyGraph& g) {
        return reinterpret_cast<std::uintptr_t>(g.graph.stream().handle());
      }, "The capture's stream (a CUstream handle).")
      .def_prop_ro("device", [](const PyGraph& g) { return g.graph.device(); })
      .def("__repr__", [](const PyGraph& g) {
        return fmt::format("<jitvec.Graph: {} calls, {} nodes, device {}>", g.graph.calls(), g.graph.nodes(),
                           g.graph.device());
      });
  m.def("capture", &capture, nb::arg("body"), nb::kw_only(), nb::arg("stream").none() = nb::none(),
        nb::arg("device") = 0,
        "Runs body() once with `stream` capturing and returns the recorded GPU ufunc calls as a "
        "jitvec.Graph. Inside body, calls without stream= run on the capture's stream; every call "
        "needs device arrays and out= (jitvec allocates nothing during a capture). Raises "
        "TargetError where no GPU is usable.");
}

}  // namespace jitvec_py
