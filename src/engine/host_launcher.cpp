#include "engine/host_launcher.hpp"

#include <fmt/format.h>

#include "cpu/host_fault.hpp"
#include "engine/engine_impl.hpp"
#include "kernels/kernel_abi.hpp"

namespace jitvec::engine {
namespace {

// Below this many elements a chunk is not worth a thread.
constexpr std::int64_t kMinChunk = 1 << 15;
constexpr std::int64_t kPageBytes = 4096;

// Pieces of the parallel target that start on a page of the output (when it is contiguous, the
// iteration space runs in its memory order), so no two threads write one page or cache line.
cpu::ChunkGrain page_grain(const Array& out) {
  const auto size = static_cast<std::int64_t>(dtype_size(out.dtype()));
  const auto address = reinterpret_cast<std::uintptr_t>(out.data());
  if (!out.is_contiguous() || size <= 0 || kPageBytes % size != 0 || address % size != 0) return {};
  return {kPageBytes / size, static_cast<std::int64_t>(address % kPageBytes) / size};
}

}  // namespace

Array run_on_host(detail::UfuncImpl& ufunc, const CallPlan& plan) {
  Array result;
  run_on_host(ufunc, plan, &result);
  return result;
}

void run_on_host(detail::UfuncImpl& ufunc, const CallPlan& plan, Array* results) {
  for (int k = 0; k < plan.nin; ++k) {
    if (plan.inputs[k] && plan.inputs[k]->is_device()) {
      throw TargetError(fmt::format(
          "ufunc '{}': argument {} is in device memory (cuda:{}), but target {} runs on the host; "
          "copy it with to_host() or call with target(Target::cuda)",
          ufunc.name, k + 1, plan.inputs[k]->device(), target_name(plan.target)));
    }
  }
  std::array<const Array*, launch::kMaxOperands> outs{};
  void* out_pointers[launch::kMaxOperands];
  for (int j = 0; j < plan.nout; ++j) {
    if (plan.outs[j] && plan.outs[j]->is_device()) {
      throw TargetError(fmt::format("ufunc '{}': {} is in device memory, but target {} runs on "
                                    "the host",
                                    ufunc.name, out_name(plan, j), target_name(plan.target)));
    }
    results[j] = plan.outs[j] ? *plan.outs[j] : new_output(plan, j, Memory::host);
    outs[j] = &results[j];
    out_pointers[j] = results[j].data();
  }
  if (plan.numel == 0) return;

  auto loop = ufunc.engine.host_loop(ufunc, plan.spec);
  const launch::IterationSpace space = iteration_space(plan, plan.inputs.data(), outs.data());

  void* pointers[launch::kMaxOperands];
  for (int k = 0; k < plan.nin; ++k) pointers[k] = plan.inputs[k] ? plan.inputs[k]->data() : nullptr;
  kernels::KernelArgs args;
  args.pack(loop->layout, pointers, plan.scalars.data(), out_pointers, plan.scalar_mask, 0);
  if (space.contiguous) {
    args.set_count(loop->layout, space.numel);
  } else {
    args.set_space(loop->layout, space, kernels::ShapeBlock::strided64);
  }
  const kernels::HostEntry entry = loop->entry(space.contiguous, plan.scalar_mask);
  const void* image = args.image();
  // An integer division fault in the loop is an Error, not the end of the process.
  auto run = [entry, image, &ufunc, &plan](std::int64_t begin, std::int64_t end) {
    cpu::call_host_entry(entry, image, begin, end, ufunc.name, target_name(plan.target));
  };
  if (plan.target == Target::parallel) {
    ufunc.engine.thread_pool().parallel_for(0, space.numel, kMinChunk, page_grain(results[0]), run);
  } else {
    run(0, space.numel);
  }
}

}  // namespace jitvec::engine
