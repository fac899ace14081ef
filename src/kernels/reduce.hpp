// src/kernels/reduce.hpp: the reduction kernel family (Ufunc::reduce) and the argument block it
// shares with the scan family (scan.hpp).
//
// A reduction is planned (engine/reduction.cpp) as outputs x length: each output element folds
// `length` input elements with the user's binary function, the combiner `jitvec_apply(T, T)`
// of the accumulator type T. The output dimensions and the reduced dimensions are each merged
// as far as strides allow and passed innermost first in ReductionParams (at most
// launch::kMaxDims of each). The reduced elements of an output are cut into fixed chunks; one
// *pass* folds every (output, chunk) pair into a partial (T) or, in the final pass, into the
// output. Passes repeat over the partials until one chunk per output remains. Two kinds:
//   rows  the reduced axis is the fast one: a block of kCudaBlock threads folds one chunk of
//         kCudaBlock * VEC * kReduceItems elements (VEC = 16 bytes of the pass's input type).
//         Element e of a chunk goes to slot e mod (kCudaBlock * VEC): thread e / VEC mod
//         kCudaBlock, lane e mod VEC; each slot folds its elements in order; then each thread
//         folds its VEC lanes in a halving tree (lane v with lane v + s, s = VEC/2 ... 1), then
//         the block folds its threads in a halving tree (thread t with t + s, s = 128 ... 1).
//         Empty slots are skipped (they are always a suffix), so no identity is needed.
//   cols  the output axis is the fast one: thread o folds its chunk of kReduceColChunk
//         reduced elements sequentially; adjacent threads read adjacent outputs (coalesced).
// Partials are written [output][chunk] (rows) or [chunk][output] (cols); the next pass reads
// them as the same kind of reduction. The final pass folds `init` in front when has_init is
// set (ReduceOptions::initial, or the identity for an empty reduction) and converts to the
// output's storage type. The host entries (same names, jitvec_cpu_ prefix) follow the same
// slots and trees exactly, so for a given plan cuda, cpu and parallel fold in the same order:
// the result is the same from run to run on every target (no atomics, no order that depends
// on timing or on the device), and identical across targets when the function is exact
// arithmetic the compilers agree on (+ on floats is).
#pragma once

#include <cstdint>
#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/kernel_abi.hpp"
#include "launch/iteration_space.hpp"

namespace jitvec::kernels {

/// Vectors each thread of the rows kernel loads per chunk.
inline constexpr int kReduceItems = 16;
/// Reduced elements per chunk of the cols kernel.
inline constexpr std::int64_t kReduceColChunk = 256;
/// A reduced axis shorter than this takes the cols kernel even when it is the fast axis.
inline constexpr std::int64_t kReduceRowsMinLength = 256;

/// The argument block of every reduction and scan kernel and host entry, passed by value.
/// Every field is 8 bytes (no padding); reduction_params_declaration() writes the same struct
/// for generated code with a static_assert of its size. Dimensions are innermost first.
struct ReductionParams {
  const void* in = nullptr;   // the input (storage S), or the partials (T) of the pass before
  void* out = nullptr;        // the output (storage O), or this pass's partials (T)
  void* work = nullptr;       // scan: the tiles' status words and values
  long long outputs = 0;      // output elements (scan: lines)
  long long length = 0;       // reduced elements per output (scan: the axis length)
  long long chunk = 0;        // elements per chunk (scan: per tile)
  long long chunks = 0;       // chunks per output (scan: tiles per line)
  long long out_ndim = 0;
  long long red_ndim = 0;
  long long final_pass = 0;   // 1: write results to `out`; 0: partials
  long long has_init = 0;
  unsigned long long init_bits[2] = {};  // the init value in T, its bytes (T: at most 16)
  long long axis_out_stride = 0;         // scan: the output's stride along the axis
  long long vectorized = 0;              // rows/scan: 16-byte vectors may be used
  long long out_sizes[launch::kMaxDims] = {};
  long long out_in_strides[launch::kMaxDims] = {};   // in elements of the pass's input
  long long out_out_strides[launch::kMaxDims] = {};  // in elements of the output
  long long red_sizes[launch::kMaxDims] = {};
  long long red_strides[launch::kMaxDims] = {};
};
static_assert(sizeof(ReductionParams) == 15 * 8 + 5 * 8 * launch::kMaxDims,
              "ReductionParams must have no padding: the generated struct mirrors it");

/// The struct above as C++ text for generated code, with a static_assert of its size.
std::string reduction_params_declaration();

/// What a reduction pass runs.
enum class ReduceKind : std::uint8_t { rows, cols };
inline constexpr const char* kReduceRowsKernel = "jitvec_reduce_rows";      // input S
inline constexpr const char* kReduceRowsPartialKernel = "jitvec_reduce_rows_t";  // input T
inline constexpr const char* kReduceColsKernel = "jitvec_reduce_cols";
inline constexpr const char* kReduceColsPartialKernel = "jitvec_reduce_cols_t";
/// Host entries: void <name>(const ReductionParams*, long long begin, long long end) over
/// the pass's items [begin, end) (items: reduction_items()).
inline constexpr const char* kHostReduceRows = "jitvec_cpu_reduce_rows";
inline constexpr const char* kHostReduceRowsPartial = "jitvec_cpu_reduce_rows_t";
inline constexpr const char* kHostReduceCols = "jitvec_cpu_reduce_cols";
inline constexpr const char* kHostReduceColsPartial = "jitvec_cpu_reduce_cols_t";
using ReductionEntry = void (*)(const ReductionParams* params, long long begin, long long end);

/// Elements per 16-byte vector of `t`.
inline int vector_elements(DType t) { return static_cast<int>(16 / dtype_size(t)); }
/// The rows kernel's chunk for input type `t`: kCudaBlock * VEC * kReduceItems.
inline std::int64_t rows_chunk(DType t) {
  return static_cast<std::int64_t>(kCudaBlock) * vector_elements(t) * kReduceItems;
}
/// Work items of a pass (blocks on the GPU, loop iterations on the host): rows: outputs x
/// chunks; cols: chunks x ceil(outputs / kCudaBlock).
std::int64_t reduction_items(ReduceKind kind, const ReductionParams& p);

/// The reduction kernels (GPU) or host entries of a reduction module. `spec`: loop T(T, T),
/// inputs {S, T}, out_storage O. The text uses the combiner jitvec_apply, the typedefs
/// jitvec_in_t/jitvec_acc_t/jitvec_out_t and the helpers of reduction_common().
std::string reduce_kernels(const codegen::LoopSpec& spec);
std::string reduce_host_entries(const codegen::LoopSpec& spec);

/// What reduce and scan texts share on one target: the typedefs, the params struct, the
/// offset and init helpers. `qualifiers`: "__device__ __forceinline__" or "static inline".
std::string reduction_common(const codegen::LoopSpec& spec, const char* qualifiers);

}  // namespace jitvec::kernels
