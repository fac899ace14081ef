// src/kernels/tiled.hpp: the kernel for iteration spaces with a transposed input (its fastest
// dimension is one of the output's slow ones), in any number of dimensions.
//   jitvec_tiled    each block moves a 64x64 tile of each such input through shared memory,
//                   reading it along its own fast dimension (256-byte runs), so every global
//                   access is coalesced; 16 elements a thread keep enough loads in flight.
//                   Other operands are read and written directly. Bit k of lane_mask says
//                   input k goes through shared memory; the tiled inputs' tiles follow one
//                   another in dynamic shared memory, each 64 x 65 elements of its own type.
//                   The tile's axes are the output's innermost dimension (the block's
//                   dimension 0) and the input's fast one (launched as the block's dimension
//                   1, launch/strided_params BlockLayout::second); blockIdx.z is the batch
//                   (the other dimensions: one division per dimension past the third).
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
#include "kernels/kernel_choice.hpp"
#include "kernels/operand_code.hpp"
#include "launch/iteration_space.hpp"

namespace jitvec::kernels {

/// Inputs one jitvec_tiled launch moves through shared memory at most (4 slots: 130 KiB).
inline constexpr int kMaxTiledInputs = 4;
/// Dynamic shared memory of one tiled input at most: a 64 x 65 tile of 8-byte elements.
inline constexpr int kTiledSlotBytes = 64 * 65 * 8;

/// Whether `spec`'s module can have jitvec_tiled (every loop with inputs can).
bool has_tiled_kernel(const codegen::LoopSpec& spec);
std::string tiled_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern);

/// An N-d space with a transposed array input (transposed_inputs() finds one).
bool tiled_fits(const ChoiceQuery& query, KernelChoice& choice);

/// The inputs a tiled launch moves through shared memory (the bits of `mask`, at most
/// kMaxTiledInputs): those read with a stride > 1 along the space's innermost dimension and
/// with stride 1 along dimension `second` (outermost first; the same for every tiled input).
/// Tiles span the innermost dimension and `second`; the other dimensions are a batch. `mask`
/// is 0 when no input is transposed, the dimensions are shorter than 32, or the grid would
/// need more than 65535 column tiles or batches.
struct TiledInputs {
  std::uint32_t mask = 0;
  int second = -1;
};
TiledInputs transposed_inputs(const launch::IterationSpace& space, const CallOperands& operands);
/// Row tiles x column tiles x batches; each tiled input's tile in dynamic shared memory.
LaunchGeometry tiled_geometry(const launch::IterationSpace& space, const CallOperands& operands,
                              const TiledInputs& tiled);

}  // namespace jitvec::kernels
