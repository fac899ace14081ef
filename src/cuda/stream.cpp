#include "cuda/stream.hpp"

#include <exception>
#include <utility>

#include "core/log.hpp"
#include "cuda/context.hpp"
#include "cuda/driver.hpp"
#include "cuda/memory.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::cuda {
namespace {

// Runs `destroy_call` in `device`'s primary context; logs a failure unless the driver has
// already shut down (static destruction at exit). Never throws.
template <class DestroyCall>
void destroy_quietly(const char* call, int device, DestroyCall destroy_call) noexcept {
  try {
    ContextGuard guard(device);
    const CUresult result = destroy_call();
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED) {
      jitvec::detail::log().error("{} on CUDA device {} failed: {}", call, device,
                                  error_text(result));
    }
  } catch (const CudaError& error) {
    if (error.code() != CUDA_ERROR_DEINITIALIZED) {
      jitvec::detail::log().error("{} on CUDA device {}: {}", call, device, error.what());
    }
  } catch (const std::exception& error) {
    jitvec::detail::log().error("{} on CUDA device {}: {}", call, device, error.what());
  } catch (...) {  // nothing more can be done from a destructor
  }
}

}  // namespace

OwnedStream::OwnedStream(int device) : device_(device) {
  ContextGuard guard(device);
  check(driver().streamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
}

OwnedStream::OwnedStream(OwnedStream&& other) noexcept
    : device_(other.device_), stream_(std::exchange(other.stream_, nullptr)) {}

OwnedStream& OwnedStream::operator=(OwnedStream&& other) noexcept {
  if (this != &other) {
    destroy();
    device_ = other.device_;
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

OwnedStream::~OwnedStream() { destroy(); }

void OwnedStream::destroy() noexcept {
  if (stream_ == nullptr) return;
  const CUstream stream = std::exchange(stream_, nullptr);
  release_recycled(device_, &stream);  // blocks kept for this stream go back before it dies
  destroy_quietly("cuStreamDestroy", device_, [&] { return driver().streamDestroy(stream); });
}

void OwnedStream::synchronize() const {
  ContextGuard guard(device_);
  check(driver().streamSynchronize(stream_), "cuStreamSynchronize");
}

Event::Event(int device, EventTiming timing) : device_(device) {
  ContextGuard guard(device);
  const unsigned flags =
      timing == EventTiming::enabled ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING;
  check(driver().eventCreate(&event_, flags), "cuEventCreate");
}

Event::Event(Event&& other) noexcept
    : device_(other.device_), event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    destroy();
    device_ = other.device_;
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

Event::~Event() { destroy(); }

void Event::destroy() noexcept {
  if (event_ == nullptr) return;
  const CUevent event = std::exchange(event_, nullptr);
  destroy_quietly("cuEventDestroy", device_, [&] { return driver().eventDestroy(event); });
}

void Event::record(CUstream stream) {
  ContextGuard guard(device_);
  check(driver().eventRecord(event_, stream), "cuEventRecord");
}

void Event::synchronize() const {
  ContextGuard guard(device_);
  check(driver().eventSynchronize(event_), "cuEventSynchronize");
}

float Event::elapsed_ms(const Event& start, const Event& end) {
  ContextGuard guard(start.device_);
  float milliseconds = 0.0f;
  check(driver().eventElapsedTime(&milliseconds, start.event_, end.event_), "cuEventElapsedTime");
  return milliseconds;
}

void wait_for_event(CUstream stream, const Event& event) {
  ContextGuard guard(event.device());
  check(driver().streamWaitEvent(stream, event.get(), 0), "cuStreamWaitEvent");
}

}  // namespace jitvec::cuda
