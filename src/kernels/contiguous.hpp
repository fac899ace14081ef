// src/kernels/contiguous.hpp: the kernels for one flat run of memory (every operand
// contiguous in the same order, or a scalar).
//   jitvec_contig_vec  every array operand aligned for 16-byte vectors: a block moves a tile of
//                      BLOCK * VEC * UNROLL elements, each thread UNROLL vectors of VEC
//                      elements per operand (each output one vector store per unrolled step),
//                      all loads issued before any arithmetic; the last,
//                      partial tile element by element. Also compiled for the fixed scalar
//                      patterns (kernel_abi.hpp).
//   jitvec_contig      any alignment: grid-stride, one element a step, one wave of blocks.
// The host pipeline launches these on each chunk of a large host array.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/kernel_abi.hpp"

namespace jitvec::kernels {

/// jitvec_contig_vec's shape for a spec: elements per vector load (16 bytes of the widest
/// operand, outputs included) and vectors per thread (at least 8 elements a thread).
struct ContigVectorShape {
  int vec;
  int unroll;
  int elements_per_block() const { return kCudaBlock * vec * unroll; }
};
ContigVectorShape contig_vector_shape(const codegen::LoopSpec& spec);

/// The contiguous kernels' source (jitvec_contig_vec, its fixed-pattern copies, jitvec_contig).
std::string contiguous_kernels(const codegen::LoopSpec& spec);

}  // namespace jitvec::kernels
