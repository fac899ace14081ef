// src/kernels/host_loops.hpp: the loops of the cpu and parallel targets.
//
// Entry points (kernel_abi.hpp: kHostFlatSymbol, kHostStridedSymbol), each over a range
// [begin, end) of the iteration space so the parallel target can split it over threads, each
// taking the same argument image as the GPU kernels:
//   jitvec_cpu_contig   one flat run: blocks of about 1 KiB of the widest operand, prefetching
//                       the array inputs' cache lines two blocks ahead so memory traffic
//                       overlaps the arithmetic (bench/NOTES.md, "CPU targets"); it reads
//                       which inputs are scalars at run time;
//   jitvec_cpu_contig_s<mask>  the same loop with the scalar pattern fixed, for the patterns
//                       of specialized_scalar_masks() (every input an array; the first an
//                       array and the rest scalars), as the GPU's copies: one loop for the
//                       compiler to vectorize instead of one per pattern, which also halves
//                       the compile (bench/NOTES.md, "Session 9");
//   jitvec_cpu_strided  any strides (the 64-bit block): walks the innermost dimension in runs,
//                       a unit-stride run written as a plain loop the compiler vectorizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "kernels/kernel_abi.hpp"

namespace jitvec::kernels {

/// The host entry points of a loop, in the order a module lists them: the run-time flat
/// entry, its fixed-pattern copies, the strided entry.
std::vector<std::string> host_entry_symbols(const codegen::LoopSpec& spec);

/// The flat entry a call with `scalar_mask` runs: a fixed-pattern copy when the loop has one.
std::string host_flat_symbol(const codegen::LoopSpec& spec, std::uint32_t scalar_mask);

/// The text of the host entry `symbol` (one of host_entry_symbols(spec)).
std::string host_entry_text(const codegen::LoopSpec& spec, const std::string& symbol);

}  // namespace jitvec::kernels
