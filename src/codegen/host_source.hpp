// src/codegen/host_source.hpp: the host C++ source of one compiled CPU loop module.
//
// generate_host_source() writes, for one LoopSpec: the host prelude (src/cpu/host_prelude,
// which maps CUDA's qualifiers and math API onto the host), the helpers and the user's
// function under #line directives, and two extern "C" loops over a range [begin, end) of the
// iteration space, so the parallel target can split the range over threads:
//   void jitvec_cpu_contig(void* const* operands, long long begin, long long end);
//   void jitvec_cpu_strided(void* const* operands, const void* params, long long begin,
//                           long long end);
// operands[k] is input k's data pointer for an array or a pointer to its value (in the loop's
// type) for a scalar; operands[nin] is the output. `params` is the 64-bit strided parameter
// block (src/launch/strided_params.hpp). The strided loop walks the innermost dimension in
// runs, with a unit-stride run written as a plain loop the compiler vectorizes.
#pragma once

#include <string>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "codegen/source_parts.hpp"

namespace jitvec::codegen {

inline constexpr const char* kHostContigSymbol = "jitvec_cpu_contig";
inline constexpr const char* kHostStridedSymbol = "jitvec_cpu_strided";

std::string generate_host_source(const UfuncSource& ufunc,
                                 const std::vector<const HelperSource*>& helpers,
                                 const LoopSpec& spec);

}  // namespace jitvec::codegen
