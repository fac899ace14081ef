#include "kernels/kernel_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/contiguous.hpp"
#include "kernels/nd_vector.hpp"
#include "kernels/rows.hpp"
#include "kernels/strided.hpp"
#include "kernels/tiled.hpp"

namespace jitvec::kernels {
namespace {

// jitvec_tiled has no copy for the all-arrays pattern: with no scalar there is no scalar-only
// work to hoist, and a tiled copy is the dearest kernel to compile (bench/NOTES.md, "Session 6:
// compile time").
constexpr std::array<KernelKindRow, kKernelKinds> kTable = {{
    {KernelKind::contig_vec, "jitvec_contig_vec", ShapeBlock::count, true, {true, true}, false,
     contig_vec_fits, contig_vec_text},
    {KernelKind::contig, "jitvec_contig", ShapeBlock::count, true, {}, false, contig_fits, contig_text},
    {KernelKind::tiled, "jitvec_tiled", ShapeBlock::strided64, false, {false, true}, true, tiled_fits,
     tiled_text},
    {KernelKind::nd_vec, "jitvec_nd_vec", ShapeBlock::strided32, false, {}, false, nd_vec_fits, nd_vec_text},
    {KernelKind::rows_vec, "jitvec_rows_vec", ShapeBlock::strided64, false, {}, false, rows_vec_fits,
     rows_vec_text},
    {KernelKind::rows, "jitvec_rows", ShapeBlock::strided64, false, {}, false, rows_fits, rows_text},
    {KernelKind::strided32, "jitvec_strided32", ShapeBlock::strided32, false, {}, false, strided32_fits,
     strided32_text},
    {KernelKind::strided64, "jitvec_strided64", ShapeBlock::strided64, false, {}, false, strided64_fits,
     strided64_text},
}};

constexpr bool rows_in_kind_order() {
  for (int i = 0; i < kKernelKinds; ++i) {
    if (static_cast<int>(kTable[i].kind) != i) return false;
  }
  return true;
}
static_assert(rows_in_kind_order(), "row i of the kernel table is KernelKind(i)");

}  // namespace

const std::array<KernelKindRow, kKernelKinds>& kernel_kinds() { return kTable; }

const char* kind_name(KernelKind kind) { return kind_row(kind).name; }

std::string kernel_name(const KernelVariant& variant) {
  if (!variant.fixed_scalars) return kind_name(variant.kind);
  return fmt::format("{}_s{}", kind_name(variant.kind), *variant.fixed_scalars);
}

std::vector<std::uint32_t> specialized_scalar_masks(const codegen::LoopSpec& spec) {
  const auto nin = static_cast<std::uint32_t>(spec.inputs.size());
  if (nin == 0) return {};
  std::vector<std::uint32_t> masks{0};
  if (nin >= 2) masks.push_back(((1u << nin) - 1u) & ~1u);
  return masks;
}

ContigVectorShape contig_vector_shape(const codegen::LoopSpec& spec) {
  std::size_t widest = 1;
  for (DType out : spec.outputs) widest = std::max(widest, dtype_size(out));
  for (DType in : spec.inputs) widest = std::max(widest, dtype_size(in));
  const int vec = static_cast<int>(16 / widest);
  const int unroll = std::max(1, 8 / vec);
  return ContigVectorShape{vec, unroll};
}

LoopTraits LoopTraits::of(const codegen::LoopSpec& spec) {
  return LoopTraits{contig_vector_shape(spec), has_tiled_kernel(spec)};
}

bool has_pattern_copy(const codegen::LoopSpec& spec, KernelKind kind, std::uint32_t mask) {
  const std::vector<std::uint32_t> masks = specialized_scalar_masks(spec);
  if (std::find(masks.begin(), masks.end(), mask) == masks.end()) return false;
  const PatternCopies& copies = kind_row(kind).copies;
  return mask == 0 ? copies.all_arrays : copies.first_array_only;
}

KernelVariant variant_for(const codegen::LoopSpec& spec, KernelKind kind, std::uint32_t scalar_mask) {
  if (has_pattern_copy(spec, kind, scalar_mask)) return KernelVariant{kind, scalar_mask};
  return KernelVariant{kind, std::nullopt};
}

std::vector<KernelVariant> module_variants(const codegen::LoopSpec& spec) {
  std::vector<KernelVariant> variants;
  const std::vector<std::uint32_t> masks = specialized_scalar_masks(spec);
  for (const KernelKindRow& row : kTable) {
    if (row.kind == KernelKind::tiled && !has_tiled_kernel(spec)) continue;
    variants.push_back(KernelVariant{row.kind, std::nullopt});
    for (std::uint32_t mask : masks) {
      if (has_pattern_copy(spec, row.kind, mask)) variants.push_back(KernelVariant{row.kind, mask});
    }
  }
  return variants;
}

KernelVariant stand_in_for(const codegen::LoopSpec& spec, KernelKind kind, std::uint32_t scalar_mask) {
  const KernelKind stand_in = kind_row(kind).flat ? KernelKind::contig : KernelKind::strided64;
  const std::vector<std::uint32_t> masks = specialized_scalar_masks(spec);
  if (std::find(masks.begin(), masks.end(), scalar_mask) != masks.end()) return KernelVariant{stand_in, scalar_mask};
  return KernelVariant{stand_in, std::nullopt};
}

std::vector<KernelVariant> stand_in_variants(const codegen::LoopSpec& spec) {
  std::vector<KernelVariant> variants;
  for (KernelKind kind : {KernelKind::contig, KernelKind::strided64}) {
    for (std::uint32_t mask : specialized_scalar_masks(spec)) variants.push_back(KernelVariant{kind, mask});
  }
  return variants;
}

std::string variant_text(const codegen::LoopSpec& spec, const KernelVariant& variant) {
  const ScalarPattern pattern =
      variant.fixed_scalars ? ScalarPattern::fixed_to(*variant.fixed_scalars) : ScalarPattern::run_time();
  return kind_row(variant.kind).text(spec, pattern);
}

}  // namespace jitvec::kernels
