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
#include "kernels/kernel_choice.hpp"
#include "kernels/operand_code.hpp"

namespace jitvec::kernels {

std::string contig_vec_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern);
std::string contig_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern);

/// A flat run whose array operands (outputs included) are all 16-byte aligned.
bool contig_vec_fits(const ChoiceQuery& query, KernelChoice& choice);
/// Any flat run: one wave of grid-stride blocks.
bool contig_fits(const ChoiceQuery& query, KernelChoice& choice);

}  // namespace jitvec::kernels
