// src/kernels/host_loops.hpp: the loops of the cpu and parallel targets.
//
// Two entry points (kernel_abi.hpp: kHostFlatSymbol, kHostStridedSymbol), each over a range
// [begin, end) of the iteration space so the parallel target can split it over threads, each
// taking the same argument image as the GPU kernels:
//   jitvec_cpu_contig   one flat run: blocks of about 1 KiB of the widest operand, prefetching
//                       the array inputs' cache lines two blocks ahead so memory traffic
//                       overlaps the arithmetic (bench/NOTES.md, "CPU targets");
//   jitvec_cpu_strided  any strides (the 64-bit block): walks the innermost dimension in runs,
//                       a unit-stride run written as a plain loop the compiler vectorizes.
#pragma once

#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/kernel_abi.hpp"

namespace jitvec::kernels {

/// The host entry points, in the order a module lists them.
inline constexpr const char* kHostEntries[] = {kHostFlatSymbol, kHostStridedSymbol};

/// The text of the host entry `symbol` (one of kHostEntries).
std::string host_entry_text(const codegen::LoopSpec& spec, const std::string& symbol);

}  // namespace jitvec::kernels
