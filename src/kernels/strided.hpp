// src/kernels/strided.hpp: the kernels for any N-d iteration space (launch/iteration_space),
// any strides, the fallback of every other family.
//   jitvec_strided32  every offset < 2^31: the 32-bit block's magic-number divisors turn the
//                     index into coordinates with a multiply-high and a shift per dimension;
//                     kStridedUnroll elements a thread, all loads issued before any compute.
//   jitvec_strided64  64-bit offsets and plain division, one element a thread, for arrays
//                     past 2^31 elements (kept small: 64-bit division is slow to compile).
// The loop over dimensions is not unrolled, to keep NVRTC fast (bench/NOTES.md).
#pragma once

#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/kernel_choice.hpp"
#include "kernels/operand_code.hpp"

namespace jitvec::kernels {

/// Elements each thread of jitvec_strided32 handles.
inline constexpr int kStridedUnroll = 4;

std::string strided32_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern);
std::string strided64_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern);

/// Every offset of the space below 2^31.
bool strided32_fits(const ChoiceQuery& query, KernelChoice& choice);
/// Any space: the last resort.
bool strided64_fits(const ChoiceQuery& query, KernelChoice& choice);

}  // namespace jitvec::kernels
