#include "engine/cuda_launcher.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/strided_copy.hpp"
#include "cuda/context.hpp"
#include "cuda/graph.hpp"
#include "cuda/launch.hpp"
#include "cuda/memory.hpp"
#include "engine/array_slots.hpp"
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
  for (int j = 0; j < plan.nout; ++j) consider(plan.outs[j], [&plan, j] { return out_name(plan, j); });
  return device < 0 ? 0 : device;
}

// The operands of a call as kernels::choose_kernel sees them (the loop's spec is the plan's).
kernels::CallOperands call_operands(const CudaLoop& loop, const CallPlan& plan, void* const* inputs,
                                    void* const* outs) {
  kernels::CallOperands ops;
  ops.inputs = plan.nin;
  ops.outputs = plan.nout;
  ops.scalar_mask = plan.scalar_mask;
  for (int k = 0; k < plan.nin; ++k) ops.addresses[k] = reinterpret_cast<std::uintptr_t>(inputs[k]);
  for (int j = 0; j < plan.nout; ++j) {
    ops.addresses[plan.nin + j] = reinterpret_cast<std::uintptr_t>(outs[j]);
  }
  ops.element_bytes = loop.element_bytes;
  return ops;
}

// One launch of the chosen kernel with the packed arguments (the shape block included).
void launch_choice(const CudaLoop& loop, const kernels::KernelChoice& choice, CUfunction function, kernels::KernelArgs& args, CUstream stream,
                   cuda::ContextGuard* guard) {
  static_assert(sizeof(ScalarSlot) == 16, "KernelArgs::pack reads 16 bytes per scalar");
  args.set_lane_mask(loop.layout, choice.lane_mask);
  kernels::LaunchGeometry g = choice.geometry;
  if (choice.one_wave) g.grid_x = std::min(g.grid_x, loop.one_wave(function));
  if (cuda::launch_with_buffer()) {  // an experiment switch (cuda/launch.hpp)
    cuda::launch_buffer(function, g.grid_x, g.grid_y, g.grid_z, g.block, g.shared_bytes, stream,
                        args.image(), loop.layout.size(choice.shape), guard);
    return;
  }
  cuda::launch(function, g.grid_x, g.grid_y, g.grid_z, g.block, g.shared_bytes, stream,
               args.kernel_params(), guard);
}

// Chooses the kernel for `space`, packs its shape block and launches it. A kernel the loop has
// not loaded yet is built now (kernels compile on demand, engine/cuda_loop.hpp), in the context
// the driver says is current (a guard that trusted the thread's memory is verified first), or
// stood in for while it compiles (not on a stream being captured): the stand-in kind is then
// what is launched.
void choose_and_launch(const CudaLoop& loop, const CallPlan& plan, const launch::IterationSpace& space,
                       const kernels::CallOperands& ops, kernels::KernelArgs& args, CUstream stream,
                       cuda::ContextGuard* guard) {
  kernels::KernelChoice choice = kernels::choose_kernel(space, ops, loop.traits);
  CUfunction function = loop.loaded_kernel(choice.kind, plan.scalar_mask);
  if (!function) {
    if (guard && guard->trusted_cache()) guard->verify();
    // A launch being captured into a graph runs its own kernel: a graph keeps what it captured
    // for every replay.
    const bool may_stand_in = !cuda::is_capturing(stream);
    const CudaLoop::CallKernel first = loop.kernel_for_call(choice.kind, plan.scalar_mask, may_stand_in);
    function = first.function;
    if (first.stand_in) {
      choice = kernels::choose_kind(space.contiguous ? kernels::KernelKind::contig : kernels::KernelKind::strided64,
                                    space, ops, loop.traits);
    }
  }
  kernels::pack_shape(args, loop.layout, space, choice);
  launch_choice(loop, choice, function, args, stream, guard);
}

void launch_loop(const CudaLoop& loop, const CallPlan& plan, const Array* const* inputs,
                 const Array* const* outs, cuda::ContextGuard& guard) {
  void* pointers[launch::kMaxOperands];
  void* out_pointers[launch::kMaxOperands];
  for (int k = 0; k < plan.nin; ++k) pointers[k] = inputs[k] ? inputs[k]->data() : nullptr;
  for (int j = 0; j < plan.nout; ++j) out_pointers[j] = outs[j]->data();
  kernels::KernelArgs args;
  args.pack(loop.layout, pointers, plan.scalars.data(), out_pointers, plan.scalar_mask, 0);
  const kernels::CallOperands ops = call_operands(loop, plan, pointers, out_pointers);
  const launch::IterationSpace space = iteration_space(plan, inputs, outs);
  choose_and_launch(loop, plan, space, ops, args, plan.stream.handle(), &guard);
}

// The loaded loop of the call on `device`: the one its cached resolution remembers (no
// lookup, no reference count), else through the loop table, remembered for the next call.
const CudaLoop& loop_for(detail::UfuncImpl& ufunc, const CallPlan& plan, int device,
                         std::shared_ptr<const CudaLoop>& held) {
  if (plan.resolution) {
    if (const CudaLoop* warm = plan.resolution->cuda_loop(device)) {
      ufunc.engine.memory_hits++;
      return *warm;
    }
  }
  held = ufunc.engine.cuda_loop(ufunc, plan.spec, device);
  if (plan.resolution) plan.resolution->remember(device, held.get());
  return *held;
}

}  // namespace

void launch_contiguous(const CudaLoop& loop, const CallPlan& plan, void* const* inputs,
                       void* const* outs, long long n, CUstream stream) {
  kernels::KernelArgs args;
  args.pack(loop.layout, inputs, plan.scalars.data(), outs, plan.scalar_mask, 0);
  launch::IterationSpace flat;
  flat.numel = n;
  flat.contiguous = true;
  choose_and_launch(loop, plan, flat, call_operands(loop, plan, inputs, outs), args, stream, nullptr);
}

Array run_on_gpu(detail::UfuncImpl& ufunc, const CallPlan& plan) {
  Array result;
  run_on_gpu(ufunc, plan, &result);
  return result;
}

void run_on_gpu(detail::UfuncImpl& ufunc, const CallPlan& plan, Array* results) {
  const int device = choose_device(ufunc, plan);
  // A loop this ufunc has launched on `device` before: the thread's memory of its current
  // context is trusted, and a launch refused for its context asks the driver and launches again
  // (cuda/context.hpp). So a warm call's one driver call is its launch.
  const bool warm = plan.resolution && plan.resolution->cuda_loop(device);
  cuda::ContextGuard guard(device, warm ? cuda::ContextGuard::Trust::thread_cache
                                        : cuda::ContextGuard::Trust::driver);
  const Stream stream = plan.stream;
  if (pipeline_applies(plan)) {
    guard.verify();
    run_pipelined(ufunc, plan, *ufunc.engine.cuda_loop(ufunc, plan.spec, device), device, results);
    return;
  }

  // Inputs: host arrays are copied to the device (packed in their own shape).
  // Arrays made for the call: slot k for input k moved to the device, kMaxOperands + j for
  // output j allocated (engine/array_slots.hpp: nothing made, nothing cleared, unless needed).
  ArraySlots<2 * launch::kMaxOperands> made;
  std::array<const Array*, launch::kMaxOperands> inputs;  // [0, nin) set below
  bool any_device_input = false;
  for (int k = 0; k < plan.nin; ++k) {
    const Array* in = plan.inputs[k];
    if (in && !in->is_device() && plan.numel > 0) {
      inputs[k] = &made.emplace(k, in->to_device(device, stream));
    } else {
      inputs[k] = in;
    }
    any_device_input = any_device_input || (in && in->is_device());
  }

  // Outputs: out= if it is on the device; else a new device array (copied back below when the
  // result belongs in host memory).
  std::array<const Array*, launch::kMaxOperands> outs;  // [0, nout) set below
  for (int j = 0; j < plan.nout; ++j) {
    const Array* out = plan.outs[j];
    if (out && out->is_device()) {
      outs[j] = out;
    } else {
      outs[j] = &made.emplace(launch::kMaxOperands + j,
                              new_output(plan, j, Memory::device, device, stream));
    }
  }
  if (plan.numel > 0) {
    std::shared_ptr<const CudaLoop> held;
    launch_loop(loop_for(ufunc, plan, device, held), plan, inputs.data(), outs.data(), guard);
  }
  for (int j = 0; j < plan.nout; ++j) {
    const Array* out = plan.outs[j];
    const bool result_on_host = out ? !out->is_device() : !any_device_input;
    if (!result_on_host) {
      if (made.has(launch::kMaxOperands + j)) {
        results[j] = std::move(made[launch::kMaxOperands + j]);  // no copy of shape and strides
      } else {
        results[j] = *outs[j];
      }
    } else if (!out) {
      results[j] = outs[j]->to_host(stream);  // synchronizes
    } else {
      Array host = outs[j]->to_host(stream);  // synchronizes
      detail::copy_contiguous_to_strided(host.data(), *out);
      results[j] = *out;
    }
  }
}

}  // namespace jitvec::engine
