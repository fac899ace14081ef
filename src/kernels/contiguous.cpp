#include "kernels/contiguous.hpp"

#include <algorithm>

#include "codegen/source_parts.hpp"
#include "kernels/kernel_text.hpp"
#include "kernels/operand_code.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kContigVec = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(${params}) {
  constexpr int BLOCK = ${block}, VEC = ${vec}, UNROLL = ${unroll};
  constexpr long long TILE = static_cast<long long>(BLOCK) * VEC * UNROLL;
  const long long base = static_cast<long long>(blockIdx.x) * TILE;
  if (base + TILE <= n) {
${loads}#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
${result_vectors}#pragma unroll
      for (int e = 0; e < VEC; ++e) ${vector_element}
${vector_stores}    }
  } else {
    for (long long i = base + threadIdx.x; i < n; i += BLOCK) ${element}
  }
}
)";

constexpr OperandCode kVectorLoads{
    "jitvec_detail::Vec<${T}, VEC> v${k}[UNROLL];\n",
    "#pragma unroll\n"
    "for (int u = 0; u < UNROLL; ++u)\n"
    "  v${k}[u] = *reinterpret_cast<const jitvec_detail::Vec<${T}, VEC>*>(in${k} + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);\n"};

// Each output's vector of results, and its store.
constexpr const char* kResultVector = "jitvec_detail::Vec<${O}, VEC> r${s};\n";
constexpr const char* kVectorStore =
    "*reinterpret_cast<jitvec_detail::Vec<${O}, VEC>*>(out${s} + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r${s};\n";

constexpr const char* kContig = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(${params}) {
  const long long step = static_cast<long long>(gridDim.x) * ${block};
${stand_in_loop}  for (long long i = static_cast<long long>(blockIdx.x) * ${block} + threadIdx.x; i < n; i += step)
    ${element}
}
)";

}  // namespace

std::string contig_vec_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern) {
  const ContigVectorShape shape = contig_vector_shape(spec);
  return fill(kContigVec,
              {{"block", std::to_string(kCudaBlock)},
               {"name", kernel_name(KernelKind::contig_vec, pattern.fixed)},
               {"params", kernel_parameters(spec, ShapeBlock::count)},
               {"vec", std::to_string(shape.vec)},
               {"unroll", std::to_string(shape.unroll)},
               {"loads", operand_loads(spec, pattern, kVectorLoads, 4)},
               {"result_vectors", each_output(spec, kResultVector, 6)},
               {"vector_element", element_store(spec, pattern, "v${k}[u].v[e]", "r${s}.v[e]")},
               {"vector_stores", each_output(spec, kVectorStore, 6)},
               {"element", element_store(spec, pattern, "in${k}[i]", "out${s}[i]")}});
}

// jitvec_contig's fixed-pattern copies exist only as stand-ins (kernel_kinds.hpp: the kind has
// no pattern copies in a module), run while the call's own kernel compiles. Their loop is kept
// rolled: NVRTC would unroll it four times, inlining the user's function in each copy, and the
// stand-in exists to compile fast (bench/NOTES.md, "Session 12: the stand-in's compile").
constexpr const char* kStandInLoop =
    "  // A stand-in: run only while this call's own kernel compiles, so kept quick to compile.\n"
    "#pragma unroll 1\n";

std::string contig_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern) {
  return fill(kContig, {{"block", std::to_string(kCudaBlock)},
                        {"name", kernel_name(KernelKind::contig, pattern.fixed)},
                        {"stand_in_loop", pattern.fixed ? kStandInLoop : ""},
                        {"params", kernel_parameters(spec, ShapeBlock::count)},
                        {"element", element_store(spec, pattern, "in${k}[i]", "out${s}[i]")}});
}

namespace {

bool vector_aligned(const CallOperands& operands, int vec) {
  auto aligned = [&](int op) {
    return operands.addresses[op] % (static_cast<std::uintptr_t>(vec) * operands.element_bytes[op]) == 0;
  };
  for (int j = 0; j < operands.outputs; ++j) {
    if (!aligned(operands.output(j))) return false;
  }
  for (int k = 0; k < operands.inputs; ++k) {
    if (!operands.is_scalar(k) && !aligned(k)) return false;
  }
  return true;
}

}  // namespace

bool contig_vec_fits(const ChoiceQuery& query, KernelChoice& choice) {
  if (!vector_aligned(query.operands, query.loop.vector.vec)) return false;
  choice.geometry.grid_x = blocks_for(query.space.numel, query.loop.vector.elements_per_block());
  return true;
}

bool contig_fits(const ChoiceQuery& query, KernelChoice& choice) {
  choice.geometry.grid_x = blocks_for(query.space.numel, kCudaBlock);
  choice.one_wave = true;
  return true;
}

}  // namespace jitvec::kernels
