#include "kernels/choose_kernel.hpp"

#include <fmt/format.h>

#include "jitvec/errors.hpp"
#include "kernels/kernel_kinds.hpp"

namespace jitvec::kernels {

KernelChoice choose_kernel(const launch::IterationSpace& space, const CallOperands& operands,
                           const LoopTraits& loop) {
  const ChoiceQuery query{space, operands, loop};
  for (const KernelKindRow& row : kernel_kinds()) {
    if (row.flat != space.contiguous) continue;
    KernelChoice choice;
    if (row.fits(query, choice)) {
      choice.kind = row.kind;
      choice.shape = row.shape;
      return choice;
    }
  }
  // Unreachable: jitvec_contig takes every flat run, jitvec_strided64 every other space.
  throw Error(fmt::format("no kernel kind fits an iteration space of {} dimensions", space.ndim()));
}

KernelChoice choose_kind(KernelKind kind, const launch::IterationSpace& space,
                         const CallOperands& operands, const LoopTraits& loop) {
  const KernelKindRow& row = kind_row(kind);
  KernelChoice choice;
  if (row.flat != space.contiguous || !row.fits(ChoiceQuery{space, operands, loop}, choice)) {
    throw Error(fmt::format("{} does not fit this call's iteration space", row.name));
  }
  choice.kind = row.kind;
  choice.shape = row.shape;
  return choice;
}

KernelChoice choose_flat_kernel(std::int64_t n, const CallOperands& operands, const LoopTraits& loop) {
  launch::IterationSpace flat;
  flat.numel = n;
  flat.contiguous = true;
  return choose_kernel(flat, operands, loop);
}

void pack_shape(KernelArgs& args, const ArgLayout& layout, const launch::IterationSpace& space,
                const KernelChoice& choice) {
  if (choice.shape == ShapeBlock::count) {
    args.set_count(layout, space.numel);
  } else {
    args.set_space(layout, space, choice.shape, choice.block);
  }
}

std::string describe(const KernelChoice& choice) {
  return fmt::format("{} grid {}x{}x{} block {} shared {} lanes {:#x}{}", kind_name(choice.kind),
                     choice.geometry.grid_x, choice.geometry.grid_y, choice.geometry.grid_z,
                     choice.geometry.block, choice.geometry.shared_bytes, choice.lane_mask,
                     choice.one_wave ? " one-wave" : "");
}

}  // namespace jitvec::kernels
