// src/kernels/nd_vector.hpp: the kernel for N-d spaces whose outputs are stored in rows of
// whole 16-byte vectors, whatever the inputs' layouts: broadcasts in 3 or more dimensions
// ((B,1,L) + (1,C,1)), permutations that keep the last axis, padded rows, short rows.
//   jitvec_nd_vec  the space is cut into vectors of VEC elements along its innermost dimension
//                  (the row length is a multiple of VEC); thread t of block b takes vectors
//                  b * BLOCK * UNROLL + u * BLOCK + t for u < UNROLL, so a warp's stores are
//                  one contiguous stretch. The block's vectors lie in a run of rows; when the
//                  run is at most BLOCK rows, thread i finds row i's offsets (one
//                  magic-number division per outer dimension, 32-bit block,
//                  launch/strided_params, whose innermost size and element count are given in
//                  vectors) into a shared table, and each vector then costs one division (its
//                  row) and a table read; shorter rows locate each vector alone. All UNROLL
//                  vectors' loads are issued before any arithmetic, and each output is written
//                  with one 16-byte store a vector. Each input is read by the form its stride
//                  along the row allows: stride 0 (broadcast along the row) one element
//                  splatted, stride 1 from a vector boundary one vector load, anything else
//                  (bit k of lane_mask: stepped, transposed or misaligned) VEC element loads.
// Why not the row kernels (rows.hpp): their blocks walk rows one after another, so short rows
// leave threads idle and each thread has one row's loads in flight (bench/NOTES.md, "Session
// 5: N-d layouts").
#pragma once

#include <cstdint>
#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/kernel_choice.hpp"
#include "kernels/operand_code.hpp"
#include "launch/iteration_space.hpp"

namespace jitvec::kernels {

std::string nd_vec_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern);

/// Outputs in rows of whole vectors with 32-bit offsets, where the N-d vector kernel beats the
/// row kernels: 3 or more dimensions, rows shorter than a row block, or every array input
/// broadcast along some dimension (an outer product).
bool nd_vec_fits(const ChoiceQuery& query, KernelChoice& choice);

/// Vectors each thread of jitvec_nd_vec takes: 16 elements a thread.
int nd_vector_unroll(const ContigVectorShape& shape);

/// Whether jitvec_nd_vec can run the space with vectors of `vec` elements: 32-bit offsets,
/// rows a multiple of `vec`, every output running along the rows from vector boundaries. On
/// success `gather_mask` has the bits of the inputs read element by element.
bool nd_vector_applies(const launch::IterationSpace& space, const CallOperands& operands, int vec,
                       std::uint32_t& gather_mask);

LaunchGeometry nd_vector_geometry(const launch::IterationSpace& space, const ContigVectorShape& shape);

}  // namespace jitvec::kernels
