// src/kernels/rows.hpp: the kernels for iteration spaces whose innermost dimension is long
// (a "row", at least kRowsMinColumns elements) and that are not one flat run: broadcasts in any
// number of dimensions ((B,1,L) + (1,C,1)), stepped views (x[::2], x[::3, :]), permutations
// that keep the innermost axis, row-padded arrays. Sizes and strides are the 64-bit block's
// (launch/strided_params: dimension 0 is the innermost, the columns; 1..ndim-1 the rows).
// Each block takes a run of consecutive rows (blockIdx.y) and a stretch of columns
// (blockIdx.x). It finds its first row's offsets with one division per outer dimension, then
// steps from row to row by adding each operand's dimension-1 stride, dividing again only when
// dimension 1 wraps; along the row an element is a multiply and an add per operand.
//   jitvec_rows      any strides along the row (stepped or permuted inputs, strided out=):
//                    kRowsUnroll elements a thread, all loads issued before any arithmetic.
//   jitvec_rows_vec  16-byte vectors (contig_vector_shape), when every array operand runs
//                    along the row (stride 1, each row starting on a vector boundary) or is
//                    constant along it (stride 0: read once a row; its bit is set in
//                    lane_mask). Each row's last columns % VEC elements are done one a thread
//                    by the block of the row's first columns.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/kernel_choice.hpp"
#include "kernels/operand_code.hpp"
#include "launch/iteration_space.hpp"

namespace jitvec::kernels {

/// Elements each thread of jitvec_rows handles along its row.
inline constexpr int kRowsUnroll = 4;
/// Rows shorter than this leave most of a row kernel's threads idle: jitvec_strided32 instead.
inline constexpr std::int64_t kRowsMinColumns = 256;
/// Most blocks along the rows (the grid's y dimension); each takes a run of rows.
inline constexpr std::int64_t kRowsMaxRowBlocks = 65535;

std::string rows_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern);
std::string rows_vec_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern);

/// Rows of at least kRowsMinColumns elements whose operands all run along them in whole
/// vectors (or are constant along them).
bool rows_vec_fits(const ChoiceQuery& query, KernelChoice& choice);
/// Rows of at least kRowsMinColumns elements, any strides.
bool rows_fits(const ChoiceQuery& query, KernelChoice& choice);

/// Whether the space's rows are long enough for the row kernels.
bool rows_apply(const launch::IterationSpace& space);
/// Whether the space suits jitvec_rows_vec with vectors of `vec` elements; if so, the inputs
/// constant along the row are the bits of `column_mask`.
bool rows_vectorizable(const launch::IterationSpace& space, const CallOperands& operands, int vec,
                       std::uint32_t& column_mask);
/// Whether operand `op` runs along the space's rows from vector boundaries (stride 1 along the
/// innermost dimension, every outer stride a multiple of `vec`, its address aligned to `vec`
/// elements): 16-byte loads or stores serve it. Shared by the row and N-d vector kernels.
bool runs_along_rows(const launch::IterationSpace& space, const CallOperands& operands, int op, int vec);

LaunchGeometry rows_geometry(const launch::IterationSpace& space);
LaunchGeometry rows_vec_geometry(const launch::IterationSpace& space, const ContigVectorShape& shape);

}  // namespace jitvec::kernels
