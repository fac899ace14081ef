// src/codegen/cuda_source.hpp: the CUDA C++ source of one compiled loop module.
//
// generate_cuda_source() writes, for one LoopSpec: a small prelude (fixed-width integer
// typedefs, an aligned vector type; no #include, to keep NVRTC fast), the helpers and the
// user's function under #line directives, and the kernels below, which share one parameter list
// (for each input `const S* __restrict__ in<k>` and `const L s<k>`, the output pointer, and
// `scalar_mask`: bit k set means input k is the scalar s<k>; see loop_spec.hpp):
//   jitvec_contig_vec  every operand contiguous and aligned: each thread moves VEC elements per
//                      16-byte vector load, UNROLL vectors per thread, tail in scalar code
//                      (also as jitvec_contig_vec_s<mask>, see specialized_scalar_masks());
//   jitvec_contig      every operand contiguous, any alignment: grid-stride, 1 element a step;
//   jitvec_strided32   any strides, every offset < 2^31: magic-number division, 4 elements a
//                      thread with all loads issued before any compute;
//   jitvec_strided64   64-bit offsets and plain division, one element a thread, for arrays
//                      past 2^31 elements (kept small: 64-bit division code is slow to compile).
//   jitvec_rows2d      2-D spaces (broadcast rows/columns): a row per blockIdx.y, no division;
//   jitvec_rows2d_vec  the same with 16-byte loads, when every operand runs along the row
//                      from vector-aligned row starts or is constant along it;
//   jitvec_tiled2d     2-D spaces with a transposed input: 64x64 tiles of it go through
//                      (dynamic) shared memory so its reads are coalesced too; at most
//                      kMaxTiledInputs inputs are tiled in one call (also as
//                      jitvec_tiled2d_s<mask>).
// The loop over dimensions is not unrolled: unrolling it 16 times quadrupled NVRTC's time.
// The launcher picks one per call (src/engine/cuda_launcher).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "codegen/source_parts.hpp"

namespace jitvec::codegen {

/// Threads per block of every kernel.
inline constexpr int kCudaBlock = 256;
/// Elements each thread of jitvec_rows2d handles along its row.
inline constexpr int kRowsUnroll = 4;
/// Elements each thread of jitvec_strided32 handles.
inline constexpr int kStridedUnroll = 4;

/// Vector shape of jitvec_contig_vec for a spec: elements per vector load and vectors per
/// thread. Every array operand's pointer must be aligned to vec * dtype_size bytes.
struct ContigVectorShape {
  int vec;
  int unroll;
  int elements_per_block() const { return kCudaBlock * vec * unroll; }
};
ContigVectorShape contig_vector_shape(const LoopSpec& spec);

/// Dynamic shared memory of one tiled input in jitvec_tiled2d at most: a 64x65 tile of 8-byte
/// elements (a tile holds 64 x 65 elements of its input's type).
inline constexpr int kTiledSlotBytes = 64 * 65 * 8;
/// Dynamic shared memory of a jitvec_tiled2d launch whose tiled inputs are the bits of `mask`.
std::size_t tiled_shared_bytes(const LoopSpec& spec, std::uint32_t tiled_mask);

/// The scalar patterns (bit k: input k is a scalar) for which jitvec_contig_vec and
/// jitvec_tiled2d are also compiled with the pattern fixed: every input an array (0), and the
/// first input an array with every other a scalar, as in f(x, parameters...). There no
/// per-element select on scalar_mask remains, so the compiler hoists work that depends on
/// scalars only (a divisor's reciprocal) out of the element code: on the H200, float64
/// gaussian_pdf and polar_distance were 0.81 and 0.78 of the copy ceiling with the run-time
/// mask (bench/NOTES.md). Other patterns use the run-time kernels.
std::vector<std::uint32_t> specialized_scalar_masks(const LoopSpec& spec);
/// "jitvec_contig_vec", or "jitvec_contig_vec_s<mask>" for a specialized pattern.
std::string contig_vec_kernel_name(std::optional<std::uint32_t> known_scalars);
/// "jitvec_tiled2d", or "jitvec_tiled2d_s<mask>".
std::string tiled_kernel_name(std::optional<std::uint32_t> known_scalars);
/// Inputs one jitvec_tiled2d launch moves through shared memory (4 slots: 130 KiB).
inline constexpr int kMaxTiledInputs = 4;
/// Whether the module of `spec` has jitvec_tiled2d.
bool has_tiled_kernel(const LoopSpec& spec);

std::string generate_cuda_source(const UfuncSource& ufunc,
                                 const std::vector<const HelperSource*>& helpers,
                                 const LoopSpec& spec);

}  // namespace jitvec::codegen
