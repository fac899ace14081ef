// src/kernels/rows.hpp: the kernels for 2-D iteration spaces without a transposed input:
// broadcast rows or columns, row-padded arrays. Sizes and strides are the space's (launch/
// iteration_space): dimension 0 the rows, dimension 1 the columns, the output's fastest.
//   jitvec_rows2d      a row per blockIdx.y step, kRowsUnroll elements a thread along it;
//                      offsets are a multiply and an add per operand, no division.
//   jitvec_rows2d_vec  the same with 16-byte vectors (contig_vector_shape), when every array
//                      operand runs along the row (column stride 1, each row starting on a
//                      vector boundary) or is constant along it (column stride 0: a broadcast
//                      column, read once a row; its bit is set in lane_mask). Each row's last
//                      columns % VEC elements are done one a thread by the row's first block.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/contiguous.hpp"
#include "kernels/kernel_abi.hpp"
#include "launch/iteration_space.hpp"

namespace jitvec::kernels {

/// Elements each thread of jitvec_rows2d handles along its row.
inline constexpr int kRowsUnroll = 4;
/// Rows shorter than this leave most of a row kernel's threads idle: jitvec_strided32 instead.
inline constexpr std::int64_t kRowsMinColumns = 256;

std::string rows_kernels(const codegen::LoopSpec& spec);

/// Whether a 2-D space suits jitvec_rows2d_vec with vectors of `vec` elements; if so, the
/// inputs constant along the row are the bits of `column_mask`.
bool rows_vectorizable(const launch::IterationSpace& space, const CallOperands& operands, int vec,
                       std::uint32_t& column_mask);

LaunchGeometry rows_geometry(const launch::IterationSpace& space);
LaunchGeometry rows_vec_geometry(const launch::IterationSpace& space, const ContigVectorShape& shape);

}  // namespace jitvec::kernels
