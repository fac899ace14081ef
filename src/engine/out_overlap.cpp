#include "engine/out_overlap.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/strided_copy.hpp"
#include "engine/cuda_launcher.hpp"
#include "engine/engine_impl.hpp"

namespace jitvec::engine {
namespace {

struct ByteRange {
  std::uintptr_t begin, end;  // [begin, end)
};

ByteRange byte_range(const Array& a) {
  const detail::Extent extent = detail::memory_extent(a);
  const std::uintptr_t low = reinterpret_cast<std::uintptr_t>(a.data()) - extent.offset_before;
  return ByteRange{low, low + extent.bytes};
}

bool same_memory(const Array& a, const Array& b) {
  return a.memory() == b.memory() && (a.memory() == Memory::host || a.device() == b.device());
}

// A C-contiguous copy of device array `in` on its device, ordered on `stream`.
Array device_copy(Engine::Impl& engine, const Array& in, Stream stream) {
  if (in.is_contiguous()) return in.to_device(in.device(), stream);  // device-to-device
  detail::UfuncImpl& copy = engine.copy_ufunc();
  Array fresh = Array::empty(in.dtype(), in.shape(), Memory::device, in.device(), stream);
  const Arg args[] = {Arg(in), Arg(out(fresh)), Arg(on(stream)), Arg(target(Target::cuda))};
  const CallPlan plan = make_call_plan(copy, Target::cuda, args, std::size(args));
  run_on_gpu(copy, plan);
  return fresh;
}

Array host_copy(const Array& in) {
  Array fresh = Array::empty(in.dtype(), in.shape(), Memory::host);
  detail::copy_strided_to_contiguous(in, fresh.data());
  return fresh;
}

}  // namespace

bool is_exact_alias(const Array& a, const Array& b) {
  return a.data() == b.data() && a.dtype() == b.dtype() && a.shape() == b.shape() &&
         a.strides() == b.strides() && same_memory(a, b);
}

bool may_overlap(const Array& a, const Array& b) {
  if (a.size() == 0 || b.size() == 0 || !same_memory(a, b)) return false;
  const ByteRange ra = byte_range(a), rb = byte_range(b);
  return ra.begin < rb.end && rb.begin < ra.end;
}

void check_outputs_apart(const std::string& ufunc_name, const CallPlan& plan) {
  for (int a = 0; a < plan.nout && plan.outs[0]; ++a) {
    for (int b = a + 1; b < plan.nout; ++b) {
      if (!may_overlap(*plan.outs[a], *plan.outs[b])) continue;
      throw ArgumentError(fmt::format(
          "ufunc '{}': {} and {} share memory (their byte ranges overlap); each output needs "
          "its own memory",
          ufunc_name, out_name(plan, a), out_name(plan, b)));
    }
  }
}

void buffer_overlapping_inputs(Engine::Impl& engine, CallPlan& plan, OverlapBuffers& buffers) {
  if (!plan.outs[0] || plan.numel == 0) return;
  // Input k needs a copy when it overlaps an output other than by being exactly that output.
  auto needs_copy = [&](const Array& in) {
    for (int j = 0; j < plan.nout; ++j) {
      if (!is_exact_alias(in, *plan.outs[j]) && may_overlap(in, *plan.outs[j])) return true;
    }
    return false;
  };
  for (int k = 0; k < plan.nin; ++k) {
    const Array* in = plan.inputs[k];
    if (!in || !needs_copy(*in)) continue;
    if (in->is_device()) {
      if (plan.target != Target::cuda) continue;
      plan.inputs[k] = &buffers.copies.emplace(k, device_copy(engine, *in, plan.stream));
    } else {
      plan.inputs[k] = &buffers.copies.emplace(k, host_copy(*in));
    }
  }
}

}  // namespace jitvec::engine
