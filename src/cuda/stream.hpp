// src/cuda/stream.hpp: streams and events jitvec creates itself.
//
// OwnedStream is a non-blocking stream (no implicit synchronisation with the legacy default
// stream) in a device's primary context, for the launcher's pipelining (copy in, compute, copy
// out on separate streams) and for benchmarks. Event marks a point in a stream: other streams
// can wait for it (wait_for_event), the host can wait for it, and two timing events give the
// time between them. Both are move-only owners whose destructors never throw and tolerate the
// driver having shut down at process exit.
#pragma once

#include <cuda.h>

namespace jitvec::cuda {

class OwnedStream {
 public:
  /// A new non-blocking stream on `device`.
  explicit OwnedStream(int device);
  OwnedStream(OwnedStream&& other) noexcept;
  OwnedStream& operator=(OwnedStream&& other) noexcept;
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  ~OwnedStream();

  CUstream get() const noexcept { return stream_; }
  int device() const noexcept { return device_; }
  /// Waits for everything queued on the stream so far.
  void synchronize() const;

 private:
  void destroy() noexcept;

  int device_ = -1;
  CUstream stream_ = nullptr;
};

enum class EventTiming { disabled, enabled };

class Event {
 public:
  /// A new event on `device`; only events with timing enabled can be given to elapsed_ms()
  /// (they cost more to record).
  explicit Event(int device, EventTiming timing = EventTiming::disabled);
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();

  CUevent get() const noexcept { return event_; }
  int device() const noexcept { return device_; }
  /// Marks the current end of `stream`'s queue (a stream of this event's device).
  void record(CUstream stream);
  /// Waits until the work before the last record() has finished.
  void synchronize() const;
  /// Milliseconds between two recorded, completed timing events of one device.
  static float elapsed_ms(const Event& start, const Event& end);

 private:
  void destroy() noexcept;

  int device_ = -1;
  CUevent event_ = nullptr;
};

/// Makes work queued on `stream` after this call wait until `event`'s last record() is done.
void wait_for_event(CUstream stream, const Event& event);

}  // namespace jitvec::cuda
