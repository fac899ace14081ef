// src/engine/host_pipeline.hpp: large host arrays through the GPU, copies overlapped.
//
// A call on the cuda target with host arrays in and a host result would otherwise copy every
// input to the device, run, and copy the result back, one after the other, from pageable
// memory. run_pipelined() instead cuts the (contiguous, unbroadcast) call into chunks and, on
// a few streams at once, moves each chunk through pinned staging buffers:
//   host input --(CPU threads)--> pinned --(H2D)--> device --kernel--> device --(D2H)-->
//   pinned --(CPU threads)--> host output,
// so host-to-device copies, kernels, device-to-host copies and the CPU's staging copies of
// different chunks overlap. The staging buffers and streams are made once per device and
// reused (PipelineStaging); one call uses them at a time.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "cuda/stream.hpp"
#include "engine/call_plan.hpp"

namespace jitvec::detail {
class UfuncImpl;
}

namespace jitvec::engine {

class CudaLoop;

/// Pinned and device buffers plus streams for one device, grown on demand.
class PipelineStaging {
 public:
  explicit PipelineStaging(int device) : device_(device) {}
  ~PipelineStaging();
  PipelineStaging(const PipelineStaging&) = delete;
  PipelineStaging& operator=(const PipelineStaging&) = delete;

  static constexpr int kSlots = 3;
  struct Slot {
    unsigned char* pinned = nullptr;   // staging for every operand of one chunk
    unsigned char* device = nullptr;   // the same layout on the device
    std::unique_ptr<cuda::OwnedStream> stream;
    std::unique_ptr<cuda::Event> done;
  };
  /// Makes sure each slot holds `bytes` per buffer; returns the slots.
  Slot* slots(std::size_t bytes);
  std::mutex& mutex() { return mutex_; }

 private:
  void release() noexcept;
  int device_;
  std::size_t bytes_ = 0;
  Slot slots_[kSlots];
  std::mutex mutex_;
};

/// Whether run_pipelined() serves this call (host arrays in and out, contiguous, the same
/// shape, large enough to gain from overlapping).
bool pipeline_applies(const CallPlan& plan);

/// Runs the call in chunks; `results[j]` receives host output j (out= when given). Every
/// output of a chunk comes from the one launch of that chunk.
void run_pipelined(detail::UfuncImpl& ufunc, const CallPlan& plan, const CudaLoop& loop,
                   int device, Array* results);

}  // namespace jitvec::engine
