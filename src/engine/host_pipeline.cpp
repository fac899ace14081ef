#include "engine/host_pipeline.hpp"

#include <algorithm>
#include <cstring>

#include "cuda/context.hpp"
#include "cuda/memory.hpp"
#include "engine/cuda_launcher.hpp"
#include "engine/engine_impl.hpp"

namespace jitvec::engine {
namespace {

// Below this many elements the plain path's three steps cost less than chunking.
constexpr std::int64_t kPipelineMinElements = std::int64_t{1} << 22;
// Bytes of the widest operand in one chunk: large enough that each copy runs at full speed,
// small enough that the first chunk's copy-in and the last chunk's copy-out are short.
constexpr std::size_t kChunkBytes = std::size_t{16} << 20;
constexpr std::size_t kAlign = 256;

std::size_t round_up(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// memcpy split over the pool's threads: one thread does not saturate host memory.
void parallel_copy(cpu::ThreadPool& pool, void* dst, const void* src, std::size_t bytes) {
  pool.parallel_for(0, static_cast<std::int64_t>(bytes), std::int64_t{1} << 20,
                    [&](std::int64_t begin, std::int64_t end) {
                      std::memcpy(static_cast<char*>(dst) + begin,
                                  static_cast<const char*>(src) + begin,
                                  static_cast<std::size_t>(end - begin));
                    });
}

}  // namespace

PipelineStaging::~PipelineStaging() { release(); }

void PipelineStaging::release() noexcept {
  if (bytes_ == 0) return;
  try {
    cuda::ContextGuard guard(device_);
    for (Slot& slot : slots_) {
      if (slot.stream) slot.stream->synchronize();
      cuda::free_pinned(slot.pinned);
      cuda::free_async(slot.device, nullptr);
      slot = Slot{};
    }
  } catch (...) {  // at process exit the driver may be gone; the memory goes with the process
  }
  bytes_ = 0;
}

PipelineStaging::Slot* PipelineStaging::slots(std::size_t bytes) {
  if (bytes <= bytes_) return slots_;
  release();
  cuda::ContextGuard guard(device_);
  for (Slot& slot : slots_) {
    slot.pinned = static_cast<unsigned char*>(cuda::alloc_pinned(bytes));
    slot.device = static_cast<unsigned char*>(cuda::alloc_async(device_, bytes, nullptr));
    slot.stream = std::make_unique<cuda::OwnedStream>(device_);
    slot.done = std::make_unique<cuda::Event>(device_);
  }
  cuda::synchronize(nullptr);  // the allocations are ordered on the null stream
  bytes_ = bytes;
  return slots_;
}

bool pipeline_applies(const CallPlan& plan) {
  if (plan.numel < kPipelineMinElements) return false;
  for (int j = 0; j < plan.nout; ++j) {
    const Array* out = plan.outs[j];
    if (out && (out->is_device() || !out->is_contiguous())) return false;
  }
  for (int k = 0; k < plan.nin; ++k) {
    const Array* in = plan.inputs[k];
    if (in && (in->is_device() || !in->is_contiguous() || in->shape() != plan.shape)) return false;
  }
  return true;
}

void run_pipelined(detail::UfuncImpl& ufunc, const CallPlan& plan, const CudaLoop& loop,
                   int device, Array* results) {
  const int nout = plan.nout;
  for (int j = 0; j < nout; ++j) {
    results[j] = plan.outs[j] ? *plan.outs[j] : new_output(plan, j, Memory::host);
  }
  const std::int64_t n = plan.numel;

  // One chunk's layout inside a slot: each array input's region, then each output's.
  std::size_t widest = 1;
  for (int j = 0; j < nout; ++j) widest = std::max(widest, dtype_size(plan.spec.outputs[j]));
  for (int k = 0; k < plan.nin; ++k) {
    if (plan.inputs[k]) widest = std::max(widest, dtype_size(plan.spec.inputs[k]));
  }
  const std::int64_t chunk = static_cast<std::int64_t>(kChunkBytes / widest);
  std::size_t offsets[launch::kMaxOperands + 1] = {};
  std::size_t slot_bytes = 0;
  for (int k = 0; k < plan.nin; ++k) {
    offsets[k] = slot_bytes;
    if (plan.inputs[k]) slot_bytes += round_up(chunk * dtype_size(plan.spec.inputs[k]));
  }
  std::size_t out_sizes[launch::kMaxOperands] = {};
  std::size_t out_offsets[launch::kMaxOperands] = {};
  for (int j = 0; j < nout; ++j) {
    out_sizes[j] = dtype_size(plan.spec.outputs[j]);
    out_offsets[j] = slot_bytes;
    slot_bytes += round_up(chunk * out_sizes[j]);
  }

  PipelineStaging& staging = ufunc.engine.staging(device);
  std::lock_guard<std::mutex> lock(staging.mutex());
  PipelineStaging::Slot* slots = staging.slots(slot_bytes);
  cpu::ThreadPool& pool = ufunc.engine.thread_pool();

  // Work queued on the caller's stream before this call comes first.
  cuda::Event caller_ready(device);
  caller_ready.record(plan.stream.handle());
  for (int s = 0; s < PipelineStaging::kSlots; ++s) cuda::wait_for_event(slots[s].stream->get(), caller_ready);

  const std::int64_t chunks = (n + chunk - 1) / chunk;
  auto count_of = [&](std::int64_t c) { return std::min(chunk, n - c * chunk); };
  auto drain = [&](std::int64_t c) {  // chunk c's results: pinned -> the outputs
    PipelineStaging::Slot& slot = slots[c % PipelineStaging::kSlots];
    slot.done->synchronize();
    for (int j = 0; j < nout; ++j) {
      parallel_copy(pool, static_cast<char*>(results[j].data()) + c * chunk * out_sizes[j],
                    slot.pinned + out_offsets[j], static_cast<std::size_t>(count_of(c)) * out_sizes[j]);
    }
  };
  for (std::int64_t c = 0; c < chunks; ++c) {
    if (c >= PipelineStaging::kSlots) drain(c - PipelineStaging::kSlots);
    PipelineStaging::Slot& slot = slots[c % PipelineStaging::kSlots];
    CUstream stream = slot.stream->get();
    const std::int64_t count = count_of(c);
    void* device_inputs[launch::kMaxOperands];
    for (int k = 0; k < plan.nin; ++k) {
      device_inputs[k] = nullptr;
      if (!plan.inputs[k]) continue;
      const std::size_t size = dtype_size(plan.spec.inputs[k]);
      const std::size_t bytes = static_cast<std::size_t>(count) * size;
      parallel_copy(pool, slot.pinned + offsets[k],
                    static_cast<const char*>(plan.inputs[k]->data()) + c * chunk * size, bytes);
      cuda::copy_host_to_device(slot.device + offsets[k], slot.pinned + offsets[k], bytes, stream);
      device_inputs[k] = slot.device + offsets[k];
    }
    void* device_outputs[launch::kMaxOperands];
    for (int j = 0; j < nout; ++j) device_outputs[j] = slot.device + out_offsets[j];
    launch_contiguous(loop, plan, device_inputs, device_outputs, count, stream);
    for (int j = 0; j < nout; ++j) {
      cuda::copy_device_to_host(slot.pinned + out_offsets[j], slot.device + out_offsets[j],
                                static_cast<std::size_t>(count) * out_sizes[j], stream);
    }
    slot.done->record(stream);
  }
  for (std::int64_t c = std::max<std::int64_t>(0, chunks - PipelineStaging::kSlots); c < chunks; ++c) {
    drain(c);
  }
}

}  // namespace jitvec::engine
