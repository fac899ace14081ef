#include "engine/graph_capture.hpp"

#include <fmt/format.h>

#include <atomic>
#include <string>
#include <utility>

#include "core/log.hpp"
#include "cuda/context.hpp"
#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "engine/engine_impl.hpp"
#include "jitvec/graph.hpp"

namespace jitvec::engine {
namespace {

thread_local ActiveCapture* current_capture = nullptr;
// Captures active in the process: while there are none, a call does not read the thread-local
// (in a shared library, each read is a __tls_get_addr call).
std::atomic<int> captures_in_process{0};

const void* as_pointer(CUstream stream) { return static_cast<const void*>(stream); }

// Why device work cannot run here, or empty when a GPU is usable.
std::string why_no_gpu() {
  if (cuda::device_count() > 0) return {};
  try {
    cuda::driver();
  } catch (const std::exception& error) {
    return error.what();
  }
  return "the driver reports no CUDA device";
}

}  // namespace

ActiveCapture* active_capture() noexcept {
  return captures_in_process.load(std::memory_order_relaxed) == 0 ? nullptr : current_capture;
}

CaptureScope::CaptureScope(ActiveCapture& capture) {
  current_capture = &capture;
  captures_in_process.fetch_add(1, std::memory_order_relaxed);
}
CaptureScope::~CaptureScope() {
  captures_in_process.fetch_sub(1, std::memory_order_relaxed);
  current_capture = nullptr;
}

void join_capture(const detail::UfuncImpl& ufunc, CallPlan& plan, ActiveCapture& capture) {
  if (plan.target != Target::cuda) {
    throw TargetError(fmt::format(
        "ufunc '{}' was called on target {} inside jitvec::capture: a capture records GPU work "
        "only, and a host call would run once, now, and never on replay; call it outside the "
        "capture, or on Target::cuda",
        ufunc.name, target_name(plan.target)));
  }
  if (plan.stream.handle() == nullptr) {
    plan.stream = Stream(capture.stream);
  } else if (plan.stream.handle() != capture.stream) {
    throw ArgumentError(fmt::format(
        "ufunc '{}' was called on stream {} inside a jitvec::capture of stream {}: calls inside "
        "a capture run on the capturing stream (leave on() out, or pass that stream)",
        ufunc.name, as_pointer(plan.stream.handle()), as_pointer(capture.stream)));
  }
  auto check_array = [&](const Array& a, const std::string& what) {
    if (!a.is_device()) {
      throw ArgumentError(fmt::format(
          "ufunc '{}' inside jitvec::capture: {} is a host array ({}); a captured call takes "
          "device arrays only (host data is copied synchronously, which a graph cannot "
          "replay): copy it with to_device before the capture",
          ufunc.name, what, a.describe()));
    }
    if (a.device() != capture.device) {
      throw ArgumentError(fmt::format(
          "ufunc '{}' inside jitvec::capture: {} is on cuda:{}, but the capture records "
          "cuda:{}",
          ufunc.name, what, a.device(), capture.device));
    }
  };
  for (int k = 0; k < plan.nin; ++k) {
    if (plan.inputs[k]) check_array(*plan.inputs[k], fmt::format("argument {}", k + 1));
  }
  const int nout = plan.nout;  // the call's out= arrays: null where none was given
  const auto& outs = plan.outs;
  for (int j = 0; j < nout; ++j) {
    if (!outs[j]) {
      throw ArgumentError(fmt::format(
          "ufunc '{}' inside jitvec::capture has no out=: a call without out= allocates its "
          "result, and jitvec allocates nothing during a capture (a graph replayed later would "
          "write memory that has since been reused); allocate the result before the capture and "
          "pass it as out=",
          ufunc.name));
    }
    check_array(*outs[j], nout == 1 ? std::string("out=") : fmt::format("out= of output {}", j + 1));
  }
  for (int k = 0; k < plan.nin; ++k) {
    if (plan.inputs[k]) capture.held.push_back(*plan.inputs[k]);
  }
  for (int j = 0; j < nout; ++j) capture.held.push_back(*outs[j]);
  capture.calls++;
}

void refuse_allocation_in_capture(CUstream stream, std::size_t bytes) {
  const ActiveCapture* capture = active_capture();
  if (!capture || (stream != capture->stream && stream != nullptr)) return;
  throw ArgumentError(fmt::format(
      "a device allocation of {} bytes on {} inside jitvec::capture of stream {}: jitvec "
      "allocates nothing during a capture (a ufunc call whose out= overlaps an input needs a "
      "temporary copy of it; Array::empty and to_device allocate); allocate the arrays before "
      "the capture",
      bytes, stream ? fmt::format("stream {}", as_pointer(stream)) : std::string("the null stream"),
      as_pointer(capture->stream)));
}

}  // namespace jitvec::engine

namespace jitvec::detail {

GraphImpl::GraphImpl(cuda::CapturedGraph graph, engine::ActiveCapture&& captured)
    : stream(captured.stream),
      device(captured.device),
      calls(captured.calls),
      held_(std::move(captured.held)),
      graph_(std::move(graph)),
      last_replay_(captured.device) {}

GraphImpl::~GraphImpl() {
  if (!replayed_) return;
  try {
    last_replay_.synchronize();
  } catch (const std::exception& error) {
    jitvec::detail::log().error("a CUDA graph's last replay could not be waited for ({}); "
                                "releasing its arrays anyway",
                                error.what());
  } catch (...) {
  }
}

void GraphImpl::replay(CUstream on) {
  cuda::ContextGuard guard(device);
  std::lock_guard<std::mutex> lock(mutex_);
  graph_.launch(on);
  last_replay_.record(on);
  replayed_ = true;
}

}  // namespace jitvec::detail

namespace jitvec {
namespace {

detail::GraphImpl& checked(const std::shared_ptr<detail::GraphImpl>& impl) {
  if (!impl) throw Error("this Graph is empty: get one from jitvec::capture");
  return *impl;
}

}  // namespace

void Graph::replay() const {
  detail::GraphImpl& graph = checked(impl_);
  graph.replay(graph.stream);
}

void Graph::replay(Stream stream) const {
  detail::GraphImpl& graph = checked(impl_);
  graph.replay(stream.handle());
}

std::size_t Graph::calls() const { return checked(impl_).calls; }
std::size_t Graph::nodes() const { return checked(impl_).nodes(); }
Stream Graph::stream() const { return Stream(checked(impl_).stream); }
int Graph::device() const { return checked(impl_).device; }

Graph capture(Stream stream, const std::function<void()>& body, int device) {
  if (!body) throw ArgumentError("jitvec::capture was given an empty function to capture");
  if (engine::active_capture()) {
    throw ArgumentError(
        "jitvec::capture was called inside another capture's body: captures do not nest");
  }
  if (stream.handle() == nullptr) {
    throw ArgumentError(
        "jitvec::capture needs a stream you created (cuStreamCreate, cudaStreamCreate, a "
        "CuPy or PyTorch stream): the null stream cannot be captured");
  }
  if (const std::string why = engine::why_no_gpu(); !why.empty()) {
    throw TargetError(fmt::format(
        "jitvec::capture records GPU work, and this machine has no usable GPU ({}); run the "
        "calls directly, with target(Target::cpu) or target(Target::parallel)",
        why));
  }
  cuda::ContextGuard guard(device);
  engine::ActiveCapture captured;
  captured.stream = stream.handle();
  captured.device = device;
  cuda::begin_capture(captured.stream);
  try {
    engine::CaptureScope scope(captured);
    body();
  } catch (...) {
    cuda::abandon_capture(captured.stream);
    throw;
  }
  cuda::CapturedGraph graph = cuda::end_capture(captured.stream, device);
  return Graph(std::make_shared<detail::GraphImpl>(std::move(graph), std::move(captured)));
}

}  // namespace jitvec
