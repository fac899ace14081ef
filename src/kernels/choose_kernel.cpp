#include "kernels/choose_kernel.hpp"

#include <fmt/format.h>

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
  if (const std::uint32_t tiled = loop.has_tiled ? transposed_inputs(space, operands) : 0) {
    choice.kind = KernelKind::tiled2d;
    choice.lane_mask = tiled;
    choice.geometry = tiled_geometry(space, operands, tiled);
  } else if (std::uint32_t columns = 0;
             rows_apply(space) && rows_vectorizable(space, operands, loop.vector.vec, columns)) {
    choice.kind = KernelKind::rows_vec;
    choice.lane_mask = columns;
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
