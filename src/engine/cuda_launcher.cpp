#include "engine/cuda_launcher.hpp"

#include <fmt/format.h>

#include <optional>

#include "core/strided_copy.hpp"
#include "cuda/context.hpp"
#include "cuda/launch.hpp"
#include "cuda/memory.hpp"
#include "engine/engine_impl.hpp"
#include "engine/host_pipeline.hpp"

namespace jitvec::engine {
namespace {

int choose_device(const detail::UfuncImpl& ufunc, const CallPlan& plan) {
  int device = -1;
  auto consider = [&](const Array* a, const std::string& what) {
    if (!a || !a->is_device()) return;
    if (device >= 0 && a->device() != device) {
      throw ArgumentError(fmt::format("ufunc '{}': {} is on cuda:{} but another argument is on "
                                      "cuda:{}; move them to one device",
                                      ufunc.name, what, a->device(), device));
    }
    device = a->device();
  };
  for (int k = 0; k < plan.nin; ++k) consider(plan.inputs[k], fmt::format("argument {}", k + 1));
  consider(plan.out, "out=");
  return device < 0 ? 0 : device;
}

// Rows shorter than this leave most of jitvec_rows2d's threads idle: strided32 instead.
constexpr std::int64_t kRowsKernelMinColumns = 256;

unsigned blocks_for(std::int64_t n, std::int64_t per_block) {
  return static_cast<unsigned>((n + per_block - 1) / per_block);
}

// Inputs whose fastest dimension is the rows of a 2-D space (a transposed input): they go
// through jitvec_tiled2d's shared-memory tiles. 0 when the space is not such a case.
std::uint32_t transposed_inputs(const launch::IterationSpace& space, const CallPlan& plan) {
  if (space.ndim() != 2 || space.sizes[0] < 32 || space.sizes[1] < 32 ||
      (space.sizes[1] + 63) / 64 > 65535) {
    return 0;
  }
  std::uint32_t mask = 0;
  for (int k = 0; k < plan.nin; ++k) {
    if ((plan.scalar_mask >> k) & 1u) continue;
    const std::int64_t row_stride = space.strides[k][0], column_stride = space.strides[k][1];
    if (std::llabs(row_stride) == 1 && std::llabs(column_stride) > 1 &&
        __builtin_popcount(mask) < codegen::kMaxTiledInputs) {
      mask |= 1u << k;
    }
  }
  return mask;
}

// Whether jitvec_rows2d_vec serves a 2-D space (sizes and strides outermost first: [0] is the
// row, [1] the column): every array operand either runs along the row (column stride 1) with
// each row starting on a vector boundary, or is constant along it (column stride 0; its bit is
// set in `column_mask`); the output runs along the row.
bool rows_vectorizable(const launch::IterationSpace& space, const CallPlan& plan,
                       void* const* pointers, const void* out, int vec, std::uint32_t& column_mask) {
  column_mask = 0;
  auto runs_along_row = [&](int op, const void* pointer, DType dtype) {
    const std::size_t vector_bytes = static_cast<std::size_t>(vec) * dtype_size(dtype);
    return space.strides[op][1] == 1 && space.strides[op][0] % vec == 0 &&
           reinterpret_cast<std::uintptr_t>(pointer) % vector_bytes == 0;
  };
  if (!runs_along_row(plan.nin, out, plan.spec.out_storage)) return false;
  for (int k = 0; k < plan.nin; ++k) {
    if ((plan.scalar_mask >> k) & 1u) continue;
    if (space.strides[k][1] == 0) {
      column_mask |= 1u << k;
    } else if (!runs_along_row(k, pointers[k], plan.spec.inputs[k])) {
      return false;
    }
  }
  return true;
}

}  // namespace

void launch_contiguous(const CudaLoop& loop, const CallPlan& plan, void* const* inputs,
                       void* out, long long n, CUstream stream) {
  void* pointers[launch::kMaxOperands];
  void* params[2 * launch::kMaxOperands + 3];
  for (int k = 0; k < plan.nin; ++k) {
    pointers[k] = inputs[k];
    params[2 * k] = &pointers[k];
    params[2 * k + 1] = const_cast<ScalarSlot*>(&plan.scalars[k]);
  }
  unsigned mask = plan.scalar_mask;
  params[2 * plan.nin] = &out;
  params[2 * plan.nin + 1] = &mask;
  params[2 * plan.nin + 2] = &n;
  const codegen::ContigVectorShape vs = loop.vector_shape;
  bool aligned = reinterpret_cast<std::uintptr_t>(out) % (vs.vec * dtype_size(plan.spec.out_storage)) == 0;
  for (int k = 0; k < plan.nin && aligned; ++k) {
    if (!((plan.scalar_mask >> k) & 1u)) {
      aligned = reinterpret_cast<std::uintptr_t>(pointers[k]) % (vs.vec * dtype_size(plan.spec.inputs[k])) == 0;
    }
  }
  if (aligned) {
    cuda::launch(loop.kernel(KernelKind::contig_vec, plan.scalar_mask),
                 blocks_for(n, vs.elements_per_block()), 1, 1, codegen::kCudaBlock, 0, stream,
                 params);
  } else {
    const unsigned grid = std::min<unsigned>(blocks_for(n, codegen::kCudaBlock), loop.contig_wave());
    cuda::launch(loop.kernel(KernelKind::contig, plan.scalar_mask), grid, 1, 1, codegen::kCudaBlock,
                 0, stream, params);
  }
}

namespace {

void launch_loop(const CudaLoop& loop, const CallPlan& plan, const Array* const* inputs,
                 const Array& out) {
  const launch::IterationSpace space = iteration_space(plan, inputs, out);
  CUstream stream = plan.stream.handle();
  void* pointers[launch::kMaxOperands];
  for (int k = 0; k < plan.nin; ++k) pointers[k] = inputs[k] ? inputs[k]->data() : nullptr;
  if (space.contiguous) {
    launch_contiguous(loop, plan, pointers, out.data(), space.numel, stream);
    return;
  }
  // Kernel parameters: (in_k, s_k) for each input, out, scalar_mask, the block, [tiled mask].
  void* params[2 * launch::kMaxOperands + 4];
  for (int k = 0; k < plan.nin; ++k) {
    params[2 * k] = &pointers[k];
    params[2 * k + 1] = const_cast<ScalarSlot*>(&plan.scalars[k]);
  }
  void* out_pointer = out.data();
  unsigned mask = plan.scalar_mask;
  launch::StridedParamsBuffer block;
  params[2 * plan.nin] = &out_pointer;
  params[2 * plan.nin + 1] = &mask;
  params[2 * plan.nin + 2] = block.bytes;
  const std::int64_t n = space.numel;
  if (std::uint32_t tiled = loop.has_tiled() ? transposed_inputs(space, plan) : 0) {
    launch::fill_strided_params(space, launch::IndexWidth::bits64, block);
    params[2 * plan.nin + 3] = &tiled;
    cuda::launch(loop.kernel(KernelKind::tiled2d, plan.scalar_mask), blocks_for(space.sizes[0], 64),
                 blocks_for(space.sizes[1], 64), 1, codegen::kCudaBlock,
                 codegen::tiled_shared_bytes(plan.spec, tiled), stream, params);
  } else if (std::uint32_t column_mask = 0;
             space.ndim() == 2 && space.sizes[1] >= kRowsKernelMinColumns &&
             rows_vectorizable(space, plan, pointers, out_pointer, loop.vector_shape.vec,
                               column_mask)) {
    launch::fill_strided_params(space, launch::IndexWidth::bits64, block);
    params[2 * plan.nin + 3] = &column_mask;
    const codegen::ContigVectorShape vs = loop.vector_shape;
    const std::int64_t vectors = space.sizes[1] / vs.vec;  // space: rows, then columns
    const unsigned rows = static_cast<unsigned>(std::min<std::int64_t>(space.sizes[0], 65535));
    cuda::launch(loop.kernel(KernelKind::rows2d_vec, plan.scalar_mask),
                 std::max(1u, blocks_for(vectors, codegen::kCudaBlock * vs.unroll)), rows, 1,
                 codegen::kCudaBlock, 0, stream, params);
  } else if (space.ndim() == 2 && space.sizes[1] >= kRowsKernelMinColumns) {
    launch::fill_strided_params(space, launch::IndexWidth::bits64, block);
    const unsigned rows = static_cast<unsigned>(std::min<std::int64_t>(space.sizes[0], 65535));
    cuda::launch(loop.kernel(KernelKind::rows2d, plan.scalar_mask), blocks_for(space.sizes[1], codegen::kCudaBlock * codegen::kRowsUnroll),
                 rows, 1, codegen::kCudaBlock, 0, stream, params);
  } else if (space.fits_32bit) {
    launch::fill_strided_params(space, launch::IndexWidth::bits32, block);
    cuda::launch(loop.kernel(KernelKind::strided32, plan.scalar_mask), blocks_for(n, codegen::kCudaBlock * codegen::kStridedUnroll), 1,
                 1, codegen::kCudaBlock, 0, stream, params);
  } else {
    launch::fill_strided_params(space, launch::IndexWidth::bits64, block);
    cuda::launch(loop.kernel(KernelKind::strided64, plan.scalar_mask), blocks_for(n, codegen::kCudaBlock), 1, 1, codegen::kCudaBlock, 0,
                 stream, params);
  }
}

}  // namespace

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
