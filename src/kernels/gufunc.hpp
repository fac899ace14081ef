// src/kernels/gufunc.hpp: the kernel family of generalized ufuncs (NumPy's gufuncs).
//
// A gufunc has a layout, NumPy's signature string "(m,n),(n)->(m)": per operand (inputs, then
// outputs) its core dimensions, named; every other dimension of an operand is a loop
// dimension, broadcast across operands as for ufuncs. GufuncLayout parses and prints it;
// GufuncSpec is what one compiled module is specialized for (the layout and every operand's
// dtype, arrays of exactly those types: the engine casts other inputs first).
//
// The module (one per GufuncSpec, GPU or host) is the prelude, the views (gufunc_views.hpp),
// the helpers and the user's function under #line, then one kernel:
//   jitvec_gufunc        GPU: a grid-stride loop, one thread per loop-space element
//   jitvec_gufunc_host   host: void(const void* params, long long begin, long long end) over
//                        [begin, end) of the loop space (the parallel target splits it)
// Both take one GufuncParams (declared below for the host side and written from the same
// constants into the generated text, whose host module static_asserts its size): the operands'
// data, the loop space (innermost dimension first, as the strided loops' block) with every
// operand's strides, and each operand's core extents and strides. For each element the body
// computes the operands' offsets (a multiply for a 1-d space, else one division per dimension),
// makes one jitvec::View per operand and calls the user's function with them.
// A "()" input may be a scalar: its value travels in `scalar`, and its view points at a copy.
//
// Staging (jitvec_gufunc_staged, jitvec_gufunc_host_staged): when the loop space is one
// dimension and an operand's core is C-contiguous with its rows adjacent (loop stride = core
// size), as in a batched dot of (rows, 16) arrays, one thread a row would read (or write) 16
// scattered 4-byte words per warp instruction. The staged kernel instead gives each block of
// kGufuncStageBlock loop elements a stage in shared memory: the block copies every staged
// input's rows in, coalesced, the user's function reads its row there (view stride unchanged,
// rows padded to an odd length against bank conflicts), staged outputs are written there and
// copied out, coalesced. The host entry runs the same phases one after the other over a
// buffer, so the CPU tests check the same index arithmetic; its range is in blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/helper_closure.hpp"
#include "codegen/source_parts.hpp"
#include "jitvec/dtype.hpp"
#include "launch/iteration_space.hpp"

namespace jitvec::kernels {

/// Most operands (inputs + outputs) of a gufunc, and most core dimensions of one operand.
inline constexpr int kGufuncMaxOperands = 8;
inline constexpr int kGufuncMaxCoreDims = 4;

inline constexpr const char* kGufuncKernel = "jitvec_gufunc";
inline constexpr const char* kGufuncHostSymbol = "jitvec_gufunc_host";
inline constexpr const char* kGufuncStagedKernel = "jitvec_gufunc_staged";
inline constexpr const char* kGufuncHostStagedSymbol = "jitvec_gufunc_host_staged";
/// Loop elements of one staged block (a GPU block's threads), and the most bytes its stage holds
/// (the default dynamic shared memory limit).
inline constexpr int kGufuncStageBlock = 256;
inline constexpr std::size_t kGufuncStageBytes = 48 * 1024;

/// A layout such as "(m,n),(n)->(m)".
struct GufuncLayout {
  int nin = 0;
  /// Per operand (inputs, then outputs), its core dimensions as indices into `names`.
  std::vector<std::vector<int>> core;
  /// The dimension names in order of first appearance.
  std::vector<std::string> names;

  int nout() const { return static_cast<int>(core.size()) - nin; }
  int operands() const { return static_cast<int>(core.size()); }
  /// Parses NumPy's spelling: operands "(d1,d2,...)" (or "()") separated by commas, "->",
  /// then the outputs; names are C identifiers; spaces are ignored. Throws SignatureError with
  /// the text and the column for a malformed layout, too many operands or core dimensions, or
  /// no output. (An output dimension that no input has is allowed: out= must then give it.)
  static GufuncLayout parse(std::string_view text);
  /// Canonical text: "(m,n),(n)->(m)".
  std::string to_string() const;
};

/// What one gufunc module is specialized for.
struct GufuncSpec {
  GufuncLayout layout;
  /// Every operand's dtype (its loop type), inputs then outputs.
  std::vector<DType> types;

  /// "(n),(n)->() [float32, float32 -> float32]": a key field and the name in messages.
  std::string describe() const;
};

/// The parameter block of both kernels; every field is 8 bytes (no padding anywhere).
struct GufuncParams {
  void* data[kGufuncMaxOperands];
  /// A scalar input's value in its loop type (the low bytes), when data[k] is null.
  unsigned long long scalar[kGufuncMaxOperands];
  long long n;     ///< loop-space elements
  long long ndim;  ///< loop-space dimensions (at least 1)
  long long sizes[launch::kMaxDims];  ///< innermost first
  long long strides[kGufuncMaxOperands][launch::kMaxDims];
  long long core_extent[kGufuncMaxOperands][kGufuncMaxCoreDims];
  long long core_stride[kGufuncMaxOperands][kGufuncMaxCoreDims];
  /// Staged kernels: per operand, its elements per loop element (0: not staged), its row length
  /// in the stage (padded against bank conflicts) and where its rows start (bytes).
  long long stage_elems[kGufuncMaxOperands];
  long long stage_row[kGufuncMaxOperands];
  long long stage_offset[kGufuncMaxOperands];
};
using GufuncHostEntry = void (*)(const void* params, long long begin, long long end);

std::string generate_gufunc_cuda_source(const codegen::UfuncSource& function,
                                        const std::vector<const codegen::HelperSource*>& helpers,
                                        const GufuncSpec& spec);
std::string generate_gufunc_host_source(const codegen::UfuncSource& function,
                                        const std::vector<const codegen::HelperSource*>& helpers,
                                        const GufuncSpec& spec);

}  // namespace jitvec::kernels
