#include "kernels/rows.hpp"

#include <algorithm>

#include "codegen/source_parts.hpp"
#include "kernels/kernel_text.hpp"
#include "kernels/operand_code.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kRows = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(${params}) {
  constexpr int BLOCK = ${block}, UNROLL = ${unroll}, OUT = ${out_operand};
  const long long cols = p.sizes[0], rows = p.sizes[1];
  const long long c0 = static_cast<long long>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
${loads}    auto* row_out = out + r * p.strides[OUT][1];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (c0 + u * BLOCK < cols) row_out[(c0 + u * BLOCK) * p.strides[OUT][0]] = ${element};
  }
}
)";

constexpr OperandCode kRowLoads{
    "${T} v${k}[UNROLL];\n",
    "const ${T}* row${k} = in${k} + r * p.strides[${k}][1];\n"
    "#pragma unroll\n"
    "for (int u = 0; u < UNROLL; ++u)\n"
    "  if (c0 + u * BLOCK < cols) v${k}[u] = row${k}[(c0 + u * BLOCK) * p.strides[${k}][0]];\n"};

constexpr const char* kRowsVec = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(${params}) {
  constexpr int BLOCK = ${block}, VEC = ${vec}, UNROLL = ${unroll}, OUT = ${out_operand};
  const unsigned column_mask = lane_mask;
  const long long cols = p.sizes[0], rows = p.sizes[1], vectors = cols / VEC;
  const long long q0 = static_cast<long long>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
${loads}    ${out_t}* row_out = out + r * p.strides[OUT][1];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (q0 + u * BLOCK >= vectors) break;
      jitvec_detail::Vec<${out_t}, VEC> result;
#pragma unroll
      for (int e = 0; e < VEC; ++e) result.v[e] = ${vector_element};
      *reinterpret_cast<jitvec_detail::Vec<${out_t}, VEC>*>(row_out + (q0 + u * BLOCK) * VEC) = result;
    }
    const long long c = vectors * VEC + threadIdx.x;
    if (blockIdx.x == 0 && c < cols) row_out[c] = ${tail_element};
  }
}
)";

// row<k> is declared for scalars too (their strides are 0): the tail's expression names it.
constexpr OperandCode kRowVectorLoads{
    "jitvec_detail::Vec<${T}, VEC> v${k}[UNROLL];\n"
    "const ${T}* row${k} = in${k} + r * p.strides[${k}][1];\n",
    "if ((column_mask >> ${k}) & 1u) {\n"
    "  const ${T} same = *row${k};\n"
    "#pragma unroll\n"
    "  for (int u = 0; u < UNROLL; ++u)\n"
    "#pragma unroll\n"
    "    for (int e = 0; e < VEC; ++e) v${k}[u].v[e] = same;\n"
    "} else {\n"
    "#pragma unroll\n"
    "  for (int u = 0; u < UNROLL; ++u)\n"
    "    if (q0 + u * BLOCK < vectors) v${k}[u] = *reinterpret_cast<const jitvec_detail::Vec<${T}, VEC>*>(row${k} + (q0 + u * BLOCK) * VEC);\n"
    "}\n"};

}  // namespace

std::string rows_kernels(const codegen::LoopSpec& spec) {
  const ScalarPattern pattern = ScalarPattern::run_time();
  const ContigVectorShape shape = contig_vector_shape(spec);
  const std::string out_operand = std::to_string(spec.operand_count() - 1);
  std::string text = fill(kRows, {{"block", std::to_string(kCudaBlock)},
                                  {"name", kernel_name(KernelKind::rows2d)},
                                  {"params", kernel_parameters(spec, ShapeBlock::strided64)},
                                  {"unroll", std::to_string(kRowsUnroll)},
                                  {"out_operand", out_operand},
                                  {"loads", operand_loads(spec, pattern, kRowLoads, 4)},
                                  {"element", element_call(spec, pattern, "v${k}[u]")}});
  text += fill(kRowsVec,
               {{"block", std::to_string(kCudaBlock)},
                {"name", kernel_name(KernelKind::rows2d_vec)},
                {"params", kernel_parameters(spec, ShapeBlock::strided64)},
                {"vec", std::to_string(shape.vec)},
                {"unroll", std::to_string(shape.unroll)},
                {"out_operand", out_operand},
                {"loads", operand_loads(spec, pattern, kRowVectorLoads, 4)},
                {"out_t", codegen::c_type(spec.out_storage)},
                {"vector_element", element_call(spec, pattern, "v${k}[u].v[e]")},
                {"tail_element", element_call(spec, pattern, "row${k}[((column_mask >> ${k}) & 1u) ? 0 : c]")}});
  return text;
}

bool rows_vectorizable(const launch::IterationSpace& space, const CallOperands& operands, int vec,
                       std::uint32_t& column_mask) {
  column_mask = 0;
  auto runs_along_row = [&](int op) {
    const std::size_t vector_bytes = static_cast<std::size_t>(vec) * operands.element_bytes[op];
    return space.strides[op][1] == 1 && space.strides[op][0] % vec == 0 &&
           operands.addresses[op] % vector_bytes == 0;
  };
  if (!runs_along_row(operands.output())) return false;
  for (int k = 0; k < operands.inputs; ++k) {
    if (operands.is_scalar(k)) continue;
    if (space.strides[k][1] == 0) {
      column_mask |= 1u << k;
    } else if (!runs_along_row(k)) {
      return false;
    }
  }
  return true;
}

LaunchGeometry rows_geometry(const launch::IterationSpace& space) {
  LaunchGeometry g;
  g.grid_x = blocks_for(space.sizes[1], kCudaBlock * kRowsUnroll);
  g.grid_y = static_cast<unsigned>(std::min<std::int64_t>(space.sizes[0], 65535));
  return g;
}

LaunchGeometry rows_vec_geometry(const launch::IterationSpace& space, const ContigVectorShape& shape) {
  LaunchGeometry g;
  const std::int64_t vectors = space.sizes[1] / shape.vec;
  g.grid_x = std::max(1u, blocks_for(vectors, kCudaBlock * shape.unroll));
  g.grid_y = static_cast<unsigned>(std::min<std::int64_t>(space.sizes[0], 65535));
  return g;
}

}  // namespace jitvec::kernels
