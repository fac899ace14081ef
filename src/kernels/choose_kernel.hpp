// src/kernels/choose_kernel.hpp: which kernel of a loop module runs a call, and how.
//
// choose_kernel() is the whole launch decision as plain data, with no GPU: it looks at the
// iteration space (launch/iteration_space), the operands' addresses, element sizes and scalar
// mask, and what the module has (LoopTraits), and returns the kernel kind, its grid, block,
// dynamic shared memory, shape block (hence the index width) and lane mask. In order:
// (Every output counts as an array operand: each must be aligned for the vector kernels.)
//   one flat run, every array operand 16-byte aligned   -> jitvec_contig_vec
//   one flat run, misaligned                             -> jitvec_contig (one wave, grid-stride)
//   a transposed input, any dims (tiled.hpp)             -> jitvec_tiled
//   outputs in rows of whole vectors, 32-bit offsets,
//     3+ dims, rows shorter than a row block, or every
//     input broadcast along some dimension (outer)       -> jitvec_nd_vec (nd_vector.hpp)
//   any dims, rows >= kRowsMinColumns, vectorizable      -> jitvec_rows_vec
//   any dims, rows >= kRowsMinColumns                    -> jitvec_rows
//   short rows, every offset < 2^31                      -> jitvec_strided32
//   short rows, larger                                   -> jitvec_strided64
// The GPU launcher then only packs the arguments (kernel_abi.hpp) and launches once; the
// choice is pinned by unit tests over a table of layouts.
#pragma once

#include <cstdint>

#include "codegen/loop_spec.hpp"
#include "kernels/contiguous.hpp"
#include "kernels/kernel_abi.hpp"
#include "launch/iteration_space.hpp"
#include "launch/strided_params.hpp"

namespace jitvec::kernels {

/// What the choice needs to know of a loop module.
struct LoopTraits {
  ContigVectorShape vector;
  bool has_tiled = false;

  static LoopTraits of(const codegen::LoopSpec& spec);
};

struct KernelChoice {
  KernelKind kind = KernelKind::contig_vec;
  LaunchGeometry geometry;
  ShapeBlock shape = ShapeBlock::count;
  std::uint32_t lane_mask = 0;
  /// How the launcher lays the space out in the kernel's shape block.
  launch::BlockLayout block;
  /// A grid-stride kernel: grid_x is the blocks the data needs; the launcher caps it at the
  /// blocks that fill the device once (a device property, so not decided here).
  bool one_wave = false;
};

KernelChoice choose_kernel(const launch::IterationSpace& space, const CallOperands& operands,
                           const LoopTraits& loop);

/// The choice for a flat run of `n` elements (what the host pipeline launches per chunk).
KernelChoice choose_flat_kernel(std::int64_t n, const CallOperands& operands, const LoopTraits& loop);

/// "jitvec_rows_vec grid 4x1024x1 block 256 shared 0 lanes 0x1": for tests and logs.
std::string describe(const KernelChoice& choice);

}  // namespace jitvec::kernels
