// src/kernels/kernel_choice.hpp: the words of the launch decision, shared by the kernel
// families and the table that lists them (kernel_kinds.hpp).
//
// A loop module's kernels are *variants*: a kind (contig_vec, rows, tiled, ...; one table row
// each) and, for the kinds whose policy says so, a copy per fixed scalar pattern (bit k: input
// k is a scalar, fixed when the kernel is generated, so the compiler can hoist work on scalars
// out of the element code). A variant's name ("jitvec_contig_vec_s6") is what the module
// exports, what the disk cache's key names, and what a launch resolves.
//
// Each family decides, for its own kinds, whether a call's iteration space can take the kind
// and with which launch (a `fits` predicate filling a KernelChoice); choose_kernel.hpp asks the
// rows in the table's order. Nothing here needs a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/kernel_abi.hpp"
#include "launch/iteration_space.hpp"
#include "launch/strided_params.hpp"

namespace jitvec::kernels {

/// The kernel kinds, in the order choose_kernel() considers them (kernel_kinds.hpp's table).
enum class KernelKind : std::uint8_t {
  contig_vec,  // contiguous.hpp
  contig,      // contiguous.hpp
  tiled,       // tiled.hpp
  nd_vec,      // nd_vector.hpp
  rows_vec,    // rows.hpp
  rows,        // rows.hpp
  strided32,   // strided.hpp
  strided64,   // strided.hpp
};
inline constexpr int kKernelKinds = 8;

/// One kernel of a module: its kind, and the scalar pattern fixed in its copy (none: the
/// run-time kernel, which reads scalar_mask).
struct KernelVariant {
  KernelKind kind = KernelKind::contig_vec;
  std::optional<std::uint32_t> fixed_scalars;

  friend bool operator==(const KernelVariant& a, const KernelVariant& b) {
    return a.kind == b.kind && a.fixed_scalars == b.fixed_scalars;
  }
  friend bool operator!=(const KernelVariant& a, const KernelVariant& b) { return !(a == b); }
};

/// The kind's name ("jitvec_rows"), from the table.
const char* kind_name(KernelKind kind);
/// The variant's name: the kind's, or "<kind>_s<mask>" for a fixed scalar pattern.
std::string kernel_name(const KernelVariant& variant);
inline std::string kernel_name(KernelKind kind, std::optional<std::uint32_t> fixed_scalars = std::nullopt) {
  return kernel_name(KernelVariant{kind, fixed_scalars});
}

/// The scalar patterns for which kinds whose policy allows it also get a fixed copy: every
/// input an array (0), and the first input an array with every other a scalar, as in
/// f(x, parameters...). Calls with other patterns use the run-time kernels (why the copies
/// matter: bench/NOTES.md, "scalar patterns").
std::vector<std::uint32_t> specialized_scalar_masks(const codegen::LoopSpec& spec);

/// jitvec_contig_vec's shape for a spec (also the row and N-d vector kernels'): elements per
/// vector load (16 bytes of the widest operand, outputs included) and vectors per thread (at
/// least 8 elements a thread).
struct ContigVectorShape {
  int vec;
  int unroll;
  int elements_per_block() const { return kCudaBlock * vec * unroll; }
};
ContigVectorShape contig_vector_shape(const codegen::LoopSpec& spec);

/// What the choice needs to know of a loop.
struct LoopTraits {
  ContigVectorShape vector;
  /// The loop can have jitvec_tiled (it has inputs).
  bool has_tiled = false;

  static LoopTraits of(const codegen::LoopSpec& spec);
};

/// How one call is launched: which kind, its grid, and what the launcher packs.
struct KernelChoice {
  KernelKind kind = KernelKind::contig_vec;
  LaunchGeometry geometry;
  ShapeBlock shape = ShapeBlock::count;
  std::uint32_t lane_mask = 0;
  /// How the launcher lays the space out in the kernel's shape block.
  launch::BlockLayout block;
  /// A grid-stride kernel: grid_x is the blocks the data needs; the launcher caps it at the
  /// blocks that fill the device once (a device property, so not decided here).
  bool one_wave = false;
};

/// A call as the kinds' predicates see it.
struct ChoiceQuery {
  const launch::IterationSpace& space;
  const CallOperands& operands;
  const LoopTraits& loop;
};

}  // namespace jitvec::kernels
