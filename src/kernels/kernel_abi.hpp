// src/kernels/kernel_abi.hpp: the one calling convention of every generated loop.
//
// Every kernel of a loop module, and every host entry point, takes the same arguments, in
// this order (the layout of the C struct `jitvec_args_<shape>`):
//   for each input k:   const S_k* in<k>;   L_k s<k>;   the array (S_k: its storage type), and
//                                                        the scalar (L_k: the loop's type); bit
//                                                        k of scalar_mask says which is used
//   O_j* out<j>;        each output j (O_j: its storage type); named `out` when the loop has
//                       one output (out0, out1, ... with several)
//   unsigned scalar_mask, lane_mask;                     lane_mask: a kernel's own per-input
//                                                        bits (tiled inputs, broadcast columns)
//   the shape block:    long long n                      flat kernels (ShapeBlock::count)
//                       jitvec_strided32_params p        32-bit N-d indexing
//                       jitvec_strided64_params p        64-bit N-d indexing
// ArgLayout computes the offsets once per LoopSpec (natural alignment, as C and the CUDA
// parameter space lay them out); KernelArgs packs one call's values into that image. A GPU
// kernel declares the fields as its parameters (so its pointers keep `__restrict__`) and is
// launched with kernelParams pointing into the image; a host entry reads the image as its
// struct. The host source declares the structs with static_asserts of every offset and size
// written from the same ArgLayout that packs, and a unit test reads each compiled GPU kernel's
// parameter offsets back from its PTX, so the compiled side and the packing side cannot drift.
//
// The kernel kinds themselves (names, choice, text) are the table of kernel_kinds.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "launch/iteration_space.hpp"
#include "launch/strided_params.hpp"

namespace jitvec::kernels {

/// Threads per block of every GPU kernel.
inline constexpr int kCudaBlock = 256;

/// The shape block a kernel takes after the operands.
enum class ShapeBlock : std::uint8_t { count, strided32, strided64 };

/// Host entry points of a CPU loop module: `void <symbol>(const jitvec_args_<shape>* args,
/// long long begin, long long end)` over [begin, end) of the iteration space.
inline constexpr const char* kHostFlatSymbol = "jitvec_cpu_contig";
inline constexpr const char* kHostStridedSymbol = "jitvec_cpu_strided";
using HostEntry = void (*)(const void* args, long long begin, long long end);

/// Where each argument lies in the argument image of a LoopSpec.
struct ArgLayout {
  int inputs = 0;
  int outputs = 1;
  std::array<std::uint16_t, launch::kMaxOperands> pointer_offset{};
  std::array<std::uint16_t, launch::kMaxOperands> scalar_offset{};
  std::array<std::uint8_t, launch::kMaxOperands> scalar_size{};
  /// Output j's pointer.
  std::array<std::uint16_t, launch::kMaxOperands> out_offset{};
  std::uint16_t scalar_mask_offset = 0;
  std::uint16_t lane_mask_offset = 0;
  /// Offset of the shape block (8-byte aligned for every kind).
  std::uint16_t shape_offset = 0;

  /// Parameters of a kernel: two per input, one per output, the two masks, the shape block.
  int parameter_count() const { return 2 * inputs + outputs + 3; }
  /// Bytes of the argument image with `shape`'s block.
  std::size_t size(ShapeBlock shape) const;
};
ArgLayout arg_layout(const codegen::LoopSpec& spec);

/// Largest argument image: kMaxOperands - 1 inputs with 16-byte scalars (complex128, aligned
/// to 8) and the 64-bit block, plus 16 bytes that the last scalar's fixed-size copy may write.
inline constexpr std::size_t kMaxArgBytes = 24 * launch::kMaxOperands + 32 + launch::kMaxStridedParamsBytes;

/// Output j's suffix in the generated code: "" for a loop of one output (`out`, `r`), else j
/// (`out0`, `out1`, ...), so a one-output module reads as it always did.
std::string output_suffix(const codegen::LoopSpec& spec, int j);

/// The parameter list of a GPU kernel taking `shape`: "const float* __restrict__ in0, ...".
std::string kernel_parameters(const codegen::LoopSpec& spec, ShapeBlock shape);
/// The first lines of a host entry taking `shape`: the signature and the fields bound to locals
/// of the kernels' parameter names (so one loop body reads the same on both targets).
std::string host_entry_opening(const codegen::LoopSpec& spec, ShapeBlock shape, const char* symbol);
/// The shape blocks' declarations (`struct jitvec_strided32_params` and the 64-bit one).
std::string shape_block_declarations(const codegen::LoopSpec& spec);
/// `struct jitvec_args_<shape>` for every shape, as host entries read the image, each followed
/// by static_asserts of every offset and of its size as arg_layout() computes them. (The GPU
/// kernels take the fields as parameters; NVRTC has no offsetof, so their offsets are checked
/// by reading each kernel's parameters back from its PTX: tests/unit/test_kernel_abi.cpp.)
std::string argument_structs(const codegen::LoopSpec& spec);

/// What the choice of a kernel needs to know of one call's operands.
struct CallOperands {
  int inputs = 0;
  std::uint32_t scalar_mask = 0;
  int outputs = 1;
  /// Inputs' data addresses (0 for scalars), then the outputs'; entries past the outputs are
  /// not set (the choice is on the path of every call: nothing is filled that is not read).
  std::array<std::uintptr_t, launch::kMaxOperands + 1> addresses;
  /// Bytes per element as stored: inputs, then the outputs.
  std::array<std::uint8_t, launch::kMaxOperands + 1> element_bytes;

  bool is_scalar(int k) const { return (scalar_mask >> k) & 1u; }
  /// Operand index of output j.
  int output(int j = 0) const { return inputs + j; }
};

/// A grid, a block and dynamic shared memory: how one kernel is launched.
struct LaunchGeometry {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block = kCudaBlock;
  std::size_t shared_bytes = 0;
};

/// Blocks of `per_block` elements that cover `n`.
inline unsigned blocks_for(std::int64_t n, std::int64_t per_block) {
  return static_cast<unsigned>((n + per_block - 1) / per_block);
}

/// One call's arguments, packed as ArgLayout says; used by the GPU launcher and the host
/// launcher alike. Fixed-size storage: packing allocates nothing.
class KernelArgs {
 public:
  /// `inputs[k]`: input k's data (null for a scalar); `scalars`: 16 bytes per input holding its
  /// scalar value in the loop's type (read for every input; zero for arrays); `outs[j]`:
  /// output j's data.
  void pack(const ArgLayout& layout, const void* const* inputs, const void* scalars,
            void* const* outs, std::uint32_t scalar_mask, std::uint32_t lane_mask);
  void set_lane_mask(const ArgLayout& layout, std::uint32_t lane_mask);
  /// The shape block: the element count (flat kernels) or the iteration space's block.
  void set_count(const ArgLayout& layout, long long n);
  void set_space(const ArgLayout& layout, const launch::IterationSpace& space, ShapeBlock shape,
                 const launch::BlockLayout& block = {});

  /// For cuLaunchKernel: one pointer into the image per kernel parameter.
  void** kernel_params() { return params_; }
  /// For host entries: the image, read as jitvec_args_<shape>.
  const void* image() const { return image_; }

 private:
  alignas(16) unsigned char image_[kMaxArgBytes];
  void* params_[2 * launch::kMaxOperands + 4];
};

}  // namespace jitvec::kernels
