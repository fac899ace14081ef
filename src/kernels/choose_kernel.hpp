// src/kernels/choose_kernel.hpp: which kernel of a loop module runs a call, and how.
//
// choose_kernel() is the whole launch decision as plain data, with no GPU: it asks the rows of
// the kernel table (kernel_kinds.hpp) in order, the flat kinds for one flat run and the others
// for an N-d space, whether the call's iteration space (launch/iteration_space), the operands'
// addresses, element sizes and scalar mask fit, and returns the first kind that does with its
// grid, block, dynamic shared memory, shape block (hence the index width) and lane mask:
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
// The GPU launcher then only packs the arguments (pack_shape) and launches the chosen kernel
// once; the choice is pinned by unit tests over a table of layouts.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/kernel_abi.hpp"
#include "kernels/kernel_choice.hpp"
#include "launch/iteration_space.hpp"

namespace jitvec::kernels {

KernelChoice choose_kernel(const launch::IterationSpace& space, const CallOperands& operands,
                           const LoopTraits& loop);

/// The choice of kind `kind` for the call, which its row must fit (jitvec_contig fits every
/// flat run and jitvec_strided64 every space: the stand-ins of engine/cuda_loop.hpp).
KernelChoice choose_kind(KernelKind kind, const launch::IterationSpace& space,
                         const CallOperands& operands, const LoopTraits& loop);

/// The choice for a flat run of `n` elements (what the host pipeline launches per chunk).
KernelChoice choose_flat_kernel(std::int64_t n, const CallOperands& operands, const LoopTraits& loop);

/// Writes the choice's shape block into `args`: the element count of a flat kernel, or the
/// space in the kernel's index width and block layout.
void pack_shape(KernelArgs& args, const ArgLayout& layout, const launch::IterationSpace& space,
                const KernelChoice& choice);

/// "jitvec_rows_vec grid 4x1024x1 block 256 shared 0 lanes 0x1": for tests and logs.
std::string describe(const KernelChoice& choice);

}  // namespace jitvec::kernels
