// src/kernels/tiled.hpp: the kernel for 2-D iteration spaces with a transposed input (its
// fastest dimension is the output's slow one).
//   jitvec_tiled2d  each block moves a 64x64 tile of each such input through shared memory,
//                   reading it along its own fast dimension (256-byte runs), so every global
//                   access is coalesced; 16 elements a thread keep enough loads in flight.
//                   Other operands are read and written directly. Bit k of lane_mask says
//                   input k goes through shared memory; the tiled inputs' tiles follow one
//                   another in dynamic shared memory, each 64 x 65 elements of its own type.
//                   blockIdx.x walks the row tiles, so blocks running together read
//                   neighbouring stretches of the transposed input. Each thread steps one
//                   pointer per operand by a fixed stride instead of recomputing offsets.
//                   Tiles wholly inside the space skip the bounds checks and issue all 16
//                   loads of a thread before writing any to shared memory; edge tiles take
//                   checked loops that are not unrolled, so the module stays small (measured
//                   alternatives: bench/NOTES.md). Also compiled for the fixed scalar patterns;
//                   with one array input, that input is the tiled one.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/kernel_abi.hpp"
#include "launch/iteration_space.hpp"

namespace jitvec::kernels {

/// Inputs one jitvec_tiled2d launch moves through shared memory at most (4 slots: 130 KiB).
inline constexpr int kMaxTiledInputs = 4;
/// Dynamic shared memory of one tiled input at most: a 64 x 65 tile of 8-byte elements.
inline constexpr int kTiledSlotBytes = 64 * 65 * 8;

/// Whether `spec`'s module has jitvec_tiled2d (every loop with inputs has).
bool has_tiled_kernel(const codegen::LoopSpec& spec);
std::string tiled_kernels(const codegen::LoopSpec& spec);

/// The inputs of a 2-D space that are transposed (the bits of the mask), at most
/// kMaxTiledInputs; 0 when the space is not 2-D or too small for tiles.
std::uint32_t transposed_inputs(const launch::IterationSpace& space, const CallOperands& operands);
LaunchGeometry tiled_geometry(const launch::IterationSpace& space, const CallOperands& operands,
                              std::uint32_t tiled_mask);

}  // namespace jitvec::kernels
