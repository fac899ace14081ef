// src/kernels/kernel_kinds.hpp: the kernel kinds of a loop module, one table row each.
//
// A row says everything the rest of jitvec needs to know of a kind: its name, the shape block
// it takes (hence its index width), whether it runs one flat run or an N-d space, its
// scalar-pattern policy (which fixed-pattern copies it gets), whether it needs more than the
// default dynamic shared memory, the predicate that says whether a call can take it (filling
// the launch geometry), and the function that writes its text for a LoopSpec. The rows are in
// the order choose_kernel() asks them; module_source walks them to write a module's kernels.
//
// Adding a kind: write its family file (the text and the `fits` predicate), add its enum value
// (kernel_choice.hpp) and its row here; choose_kernel, module_source, the loaded loops
// (engine/cuda_loop) and the precompiler follow the table. tests/golden/ then shows the new
// kernel's text as a file of its own, and tests/unit/test_choose_kernel.cpp pins which layouts
// take it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/loop_spec.hpp"
#include "kernels/kernel_abi.hpp"
#include "kernels/kernel_choice.hpp"
#include "kernels/operand_code.hpp"

namespace jitvec::kernels {

/// Which fixed scalar patterns (specialized_scalar_masks()) a kind gets a copy for.
struct PatternCopies {
  bool all_arrays = false;        // mask 0
  bool first_array_only = false;  // every input but the first a scalar
};

struct KernelKindRow {
  KernelKind kind;
  const char* name;
  ShapeBlock shape;
  /// Runs one flat run (space.contiguous); the other kinds run N-d spaces.
  bool flat;
  PatternCopies copies;
  /// Takes dynamic shared memory past the default 48 KiB (its limit is raised when loaded).
  bool large_shared;
  /// Whether the call can take this kind; if so fills the choice's geometry, lane mask and
  /// block layout (the kind, shape and flat fields are the table's).
  bool (*fits)(const ChoiceQuery& query, KernelChoice& choice);
  /// The kernel's text for `spec` with `pattern` (run-time, or a fixed mask).
  std::string (*text)(const codegen::LoopSpec& spec, const ScalarPattern& pattern);
};

/// The table, in choice order; row i is KernelKind(i).
const std::array<KernelKindRow, kKernelKinds>& kernel_kinds();
inline const KernelKindRow& kind_row(KernelKind kind) { return kernel_kinds()[static_cast<int>(kind)]; }

/// Whether `kind` has a copy with the fixed pattern `mask` in `spec`'s module.
bool has_pattern_copy(const codegen::LoopSpec& spec, KernelKind kind, std::uint32_t mask);

/// The variant a call of `kind` with `scalar_mask` runs: the fixed copy when the module has
/// one for that pattern, else the run-time kernel.
KernelVariant variant_for(const codegen::LoopSpec& spec, KernelKind kind, std::uint32_t scalar_mask);

/// Every kernel `spec`'s module can hold, in table order: each kind's run-time kernel, then
/// its fixed-pattern copies. A loop with no inputs has no tiled kernel.
std::vector<KernelVariant> module_variants(const codegen::LoopSpec& spec);

/// The kernel that stands in for `kind` while its own compiles (engine/cuda_loop.hpp): one
/// element a thread, the user's function inlined once, so it compiles fastest and computes each
/// element as every kernel does. jitvec_contig for the flat kinds, jitvec_strided64 for the
/// others, each with the call's scalar pattern fixed when it is one of the specialized ones (a
/// run-time pattern makes NVRTC write a loop per combination of scalars).
KernelVariant stand_in_for(const codegen::LoopSpec& spec, KernelKind kind, std::uint32_t scalar_mask);
/// The stand-ins a module may need beyond module_variants(): the fixed-pattern copies of
/// jitvec_contig and jitvec_strided64 (built only as stand-ins, never part of a whole module).
std::vector<KernelVariant> stand_in_variants(const codegen::LoopSpec& spec);

/// A variant's kernel text.
std::string variant_text(const codegen::LoopSpec& spec, const KernelVariant& variant);

}  // namespace jitvec::kernels
