// bench/gpu_ceilings.hpp: the hardware references each GPU case is measured against, taken in
// the same run as the cases.
//
//   * DeviceCopyCeiling: cuMemcpyDtoDAsync moving the same bytes as a case (a copy of B bytes
//     reads B and writes B, so a case moving T bytes in all is compared with a copy of T/2),
//     from random data, timed with events; measured once per byte count and remembered.
//   * measure_pinned_copies(): host-to-device and device-to-host copies of page-locked memory
//     (1 GiB by default), the ceiling of calls on host arrays.
//   * bare_launch_us(): the host cost of one cuLaunchKernel of an empty kernel (compiled with
//     NVRTC, loaded as a cubin), the floor under the host cost of any ufunc call.
// Each returns a Record with system "ceiling" for the JSON output, and the figure the cases
// divide by.
#pragma once

#include <cuda.h>

#include <memory>

#include <cstddef>
#include <jitvec/array.hpp>
#include <map>

#include "gpu_timing.hpp"
#include "results.hpp"

namespace bench {

class DeviceCopyCeiling {
 public:
  /// Copies come from `random_source` (a device array of random values, kept alive by the
  /// caller), so a copy can move at most its size in bytes.
  DeviceCopyCeiling(const jitvec::Array& random_source, CUstream stream, Repetitions large,
                    Repetitions small);

  /// The copy that reads `total_bytes / 2` and writes as many, measured at the first request
  /// for that byte count.
  const Record& measure(double total_bytes);
  /// measure(), capped at the largest copy the source allows: for byte counts past it (a
  /// case whose operands together exceed the source), whose bandwidth no longer depends on
  /// the size at these gigabytes.
  const Record& measure_capped(double total_bytes);
  /// Every copy measured so far, in order of size.
  std::vector<Record> records() const;

 private:
  jitvec::Array source_;
  jitvec::Array destination_;
  CUstream stream_;
  Repetitions large_;
  Repetitions small_;
  EventTimer timer_;
  std::map<std::size_t, Record> measured_;
};

struct PinnedCopies {
  Record host_to_device;
  Record device_to_host;
  /// The two copies one after the other: (bytes in + bytes out) / (time in + time out).
  double round_trip_gbps = 0.0;
};

/// Times `bytes` of random pinned host memory copied to the device and back.
PinnedCopies measure_pinned_copies(int device, CUstream stream, std::size_t bytes,
                                   Repetitions reps);

/// An empty kernel, compiled by NVRTC and loaded: launch() is one bare cuLaunchKernel of it
/// (<<<1, 32>>>, no parameters) on `stream`, the floor for the host cost of any launch.
/// launch_with_parameters() launches an empty kernel that takes the parameter list of jitvec's
/// loop for float32 gaussian_pdf (three inputs: pointer and scalar each, the output, the two
/// masks, the count: ten parameters), one pointer per parameter as jitvec passes them: what
/// the driver charges for the parameters alone (a diagnostic beside the dispatch rows; the
/// target compares with launch()).
class BareLaunch {
 public:
  BareLaunch(int device, CUstream stream);
  void launch() const;
  void launch_with_parameters() const;
  bool from_ptx() const;

 private:
  struct Loaded;
  std::shared_ptr<const Loaded> loaded_;
  CUstream stream_;
};

/// The host cost of one bare launch, as a Record (time_ms is the per-launch cost in
/// milliseconds).
Record measure_bare_launch(const BareLaunch& bare, CUstream stream, int batches,
                           int calls_per_batch);

}  // namespace bench
