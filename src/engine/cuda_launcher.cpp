#include "engine/cuda_launcher.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/strided_copy.hpp"
#include "cuda/context.hpp"
#include "cuda/launch.hpp"
#include "cuda/memory.hpp"
#include "engine/engine_impl.hpp"
#include "engine/host_pipeline.hpp"
#include "kernels/choose_kernel.hpp"
#include "kernels/kernel_abi.hpp"

namespace jitvec::engine {
namespace {

int choose_device(const detail::UfuncImpl& ufunc, const CallPlan& plan) {
  int device = -1;
  // `what()` names the argument; it is only called for the error (formatting a name on every
  // call cost a sixth of a call's host time: bench/NOTES.md, "Dispatch, issue 13").
  auto consider = [&](const Array* a, auto what) {
    if (!a || !a->is_device()) return;
    if (device >= 0 && a->device() != device) {
      throw ArgumentError(fmt::format("ufunc '{}': {} is on cuda:{} but another argument is on "
                                      "cuda:{}; move them to one device",
                                      ufunc.name, what(), a->device(), device));
    }
    device = a->device();
  };
  for (int k = 0; k < plan.nin; ++k) {
    consider(plan.inputs[k], [k] { return fmt::format("argument {}", k + 1); });
  }
  consider(plan.out, [] { return std::string("out="); });
  return device < 0 ? 0 : device;
}

// The operands of a call as kernels::choose_kernel sees them.
kernels::CallOperands call_operands(const CallPlan& plan, void* const* inputs, const void* out) {
  kernels::CallOperands ops;
  ops.inputs = plan.nin;
  ops.scalar_mask = plan.scalar_mask;
  for (int k = 0; k < plan.nin; ++k) {
    ops.addresses[k] = reinterpret_cast<std::uintptr_t>(inputs[k]);
    ops.element_bytes[k] = static_cast<std::uint8_t>(dtype_size(plan.spec.inputs[k]));
  }
  ops.addresses[plan.nin] = reinterpret_cast<std::uintptr_t>(out);
  ops.element_bytes[plan.nin] = static_cast<std::uint8_t>(dtype_size(plan.spec.out_storage));
  return ops;
}

// One launch: the chosen kernel with the packed arguments.
void launch_choice(const CudaLoop& loop, const CallPlan& plan, const kernels::KernelChoice& choice,
                   kernels::KernelArgs& args, CUstream stream) {
  static_assert(sizeof(ScalarSlot) == 16, "KernelArgs::pack reads 16 bytes per scalar");
  args.set_lane_mask(loop.layout, choice.lane_mask);
  kernels::LaunchGeometry g = choice.geometry;
  if (choice.one_wave) g.grid_x = std::min(g.grid_x, loop.one_wave());
  cuda::launch(loop.kernel(choice.kind, plan.scalar_mask), g.grid_x, g.grid_y, g.grid_z, g.block,
               g.shared_bytes, stream, args.kernel_params());
}

void launch_loop(const CudaLoop& loop, const CallPlan& plan, const Array* const* inputs,
                 const Array& out) {
  void* pointers[launch::kMaxOperands];
  for (int k = 0; k < plan.nin; ++k) pointers[k] = inputs[k] ? inputs[k]->data() : nullptr;
  kernels::KernelArgs args;
  args.pack(loop.layout, pointers, plan.scalars.data(), out.data(), plan.scalar_mask, 0);
  const kernels::CallOperands ops = call_operands(plan, pointers, out.data());
  const launch::IterationSpace space = iteration_space(plan, inputs, out);
  const kernels::KernelChoice choice = kernels::choose_kernel(space, ops, loop.traits);
  if (choice.shape == kernels::ShapeBlock::count) {
    args.set_count(loop.layout, space.numel);
  } else {
    args.set_space(loop.layout, space, choice.shape);
  }
  launch_choice(loop, plan, choice, args, plan.stream.handle());
}

}  // namespace

void launch_contiguous(const CudaLoop& loop, const CallPlan& plan, void* const* inputs,
                       void* out, long long n, CUstream stream) {
  kernels::KernelArgs args;
  args.pack(loop.layout, inputs, plan.scalars.data(), out, plan.scalar_mask, 0);
  args.set_count(loop.layout, n);
  const kernels::KernelChoice choice =
      kernels::choose_flat_kernel(n, call_operands(plan, inputs, out), loop.traits);
  launch_choice(loop, plan, choice, args, stream);
}

Array run_on_gpu(detail::UfuncImpl& ufunc, const CallPlan& plan) {
  const int device = choose_device(ufunc, plan);
  cuda::ContextGuard guard(device);
  const Stream stream = plan.stream;
  if (pipeline_applies(plan)) {
    return run_pipelined(ufunc, plan, *ufunc.engine.cuda_loop(ufunc, plan.spec, device), device);
  }

  // Inputs: host arrays are copied to the device (packed in their own shape).
  std::array<std::optional<Array>, launch::kMaxOperands> moved;  // no Array made unless needed
  std::array<const Array*, launch::kMaxOperands> inputs{};
  bool any_device_input = false;
  for (int k = 0; k < plan.nin; ++k) {
    const Array* in = plan.inputs[k];
    if (in && !in->is_device() && plan.numel > 0) {
      moved[k] = in->to_device(device, stream);
      inputs[k] = &*moved[k];
    } else {
      inputs[k] = in;
    }
    any_device_input = any_device_input || (in && in->is_device());
  }

  // Output: out= if it is on the device; else a new device array.
  const bool result_on_host = plan.out ? !plan.out->is_device() : !any_device_input;
  Array device_out = plan.out && plan.out->is_device()
                         ? *plan.out
                         : Array::empty(plan.spec.out_storage, plan.shape, Memory::device, device,
                                        stream);
  if (plan.numel > 0) launch_loop(*ufunc.engine.cuda_loop(ufunc, plan.spec, device), plan, inputs.data(), device_out);
  if (!result_on_host) return device_out;

  Array host = device_out.to_host(stream);  // synchronizes
  if (!plan.out) return host;
  detail::copy_contiguous_to_strided(host.data(), *plan.out);
  return *plan.out;
}

}  // namespace jitvec::engine
