#include "kernels/choose_kernel.hpp"

#include <fmt/format.h>

#include "kernels/nd_vector.hpp"
#include "kernels/rows.hpp"
#include "kernels/strided.hpp"
#include "kernels/tiled.hpp"

namespace jitvec::kernels {
namespace {

bool vector_aligned(const CallOperands& operands, int vec) {
  auto aligned = [&](int op) {
    return operands.addresses[op] % (static_cast<std::uintptr_t>(vec) * operands.element_bytes[op]) == 0;
  };
  for (int j = 0; j < operands.outputs; ++j) {
    if (!aligned(operands.output(j))) return false;
  }
  for (int k = 0; k < operands.inputs; ++k) {
    if (!operands.is_scalar(k) && !aligned(k)) return false;
  }
  return true;
}

// jitvec_nd_vec over jitvec_rows_vec: in 3 or more dimensions, when a row has fewer vectors
// than a row block's threads take, or when every input is broadcast along some dimension (an
// outer product: the output is nearly all the traffic, so the instructions an element decide,
// and jitvec_nd_vec spends fewer). A 2-D space of long rows reading a whole input keeps the row
// kernel, measured at memory speed (bench/NOTES.md).
bool nd_vector_preferred(const launch::IterationSpace& space, const CallOperands& operands,
                         const ContigVectorShape& shape) {
  if (space.ndim() >= 3 || space.sizes.back() < shape.elements_per_block()) return true;
  for (int k = 0; k < operands.inputs; ++k) {
    if (operands.is_scalar(k)) continue;
    bool broadcast = false;
    for (std::int64_t stride : space.strides[k]) broadcast = broadcast || stride == 0;
    if (!broadcast) return false;
  }
  return true;
}

}  // namespace

LoopTraits LoopTraits::of(const codegen::LoopSpec& spec) {
  return LoopTraits{contig_vector_shape(spec), has_tiled_kernel(spec)};
}

KernelChoice choose_flat_kernel(std::int64_t n, const CallOperands& operands, const LoopTraits& loop) {
  KernelChoice choice;
  choice.shape = ShapeBlock::count;
  if (vector_aligned(operands, loop.vector.vec)) {
    choice.kind = KernelKind::contig_vec;
    choice.geometry.grid_x = blocks_for(n, loop.vector.elements_per_block());
  } else {
    choice.kind = KernelKind::contig;
    choice.geometry.grid_x = blocks_for(n, kCudaBlock);
    choice.one_wave = true;
  }
  return choice;
}

KernelChoice choose_kernel(const launch::IterationSpace& space, const CallOperands& operands,
                           const LoopTraits& loop) {
  if (space.contiguous) return choose_flat_kernel(space.numel, operands, loop);
  KernelChoice choice;
  const TiledInputs tiled = loop.has_tiled ? transposed_inputs(space, operands) : TiledInputs{};
  std::uint32_t lanes = 0;
  if (tiled.mask != 0) {
    choice.kind = KernelKind::tiled;
    choice.lane_mask = tiled.mask;
    choice.geometry = tiled_geometry(space, operands, tiled);
    choice.block.second = tiled.second;
  } else if (nd_vector_preferred(space, operands, loop.vector) &&
             nd_vector_applies(space, operands, loop.vector.vec, lanes)) {
    choice.kind = KernelKind::nd_vec;
    choice.lane_mask = lanes;
    choice.geometry = nd_vector_geometry(space, loop.vector);
    choice.block.vector = loop.vector.vec;
  } else if (rows_apply(space) && rows_vectorizable(space, operands, loop.vector.vec, lanes)) {
    choice.kind = KernelKind::rows_vec;
    choice.lane_mask = lanes;
    choice.geometry = rows_vec_geometry(space, loop.vector);
  } else if (rows_apply(space)) {
    choice.kind = KernelKind::rows;
    choice.geometry = rows_geometry(space);
  } else if (space.fits_32bit) {
    choice.kind = KernelKind::strided32;
    choice.geometry.grid_x = blocks_for(space.numel, kCudaBlock * kStridedUnroll);
  } else {
    choice.kind = KernelKind::strided64;
    choice.geometry.grid_x = blocks_for(space.numel, kCudaBlock);
  }
  choice.shape = traits(choice.kind).shape;
  return choice;
}

std::string describe(const KernelChoice& choice) {
  return fmt::format("{} grid {}x{}x{} block {} shared {} lanes {:#x}{}", traits(choice.kind).name,
                     choice.geometry.grid_x, choice.geometry.grid_y, choice.geometry.grid_z,
                     choice.geometry.block, choice.geometry.shared_bytes, choice.lane_mask,
                     choice.one_wave ? " one-wave" : "");
}

}  // namespace jitvec::kernels
