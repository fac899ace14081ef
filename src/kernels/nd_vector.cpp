#include "kernels/nd_vector.hpp"

#include <algorithm>

#include "kernels/kernel_text.hpp"
#include "kernels/operand_code.hpp"
#include "kernels/rows.hpp"

namespace jitvec::kernels {
namespace {

// p.sizes[0] and p.numel count vectors; every stride counts elements.
constexpr const char* kNdVec = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(${params}) {
  constexpr int BLOCK = ${block}, VEC = ${vec}, UNROLL = ${unroll}, OPERANDS = ${operands}, OUT = OPERANDS - ${nout};
  __shared__ int row_offsets[BLOCK][OPERANDS];
  const unsigned gather_mask = lane_mask;
  const unsigned tile = blockIdx.x * (BLOCK * UNROLL);
  const unsigned first = tile + threadIdx.x;
  int off[OPERANDS][UNROLL];
  // The rows this block's vectors lie in: when they are at most BLOCK, each thread locates one
  // (a division per outer dimension) and every vector finds its row's offsets in the table.
  const unsigned vectors_per_row = p.sizes[0];
  const unsigned first_row = (__umulhi(tile, p.magic[0]) + tile) >> p.shift[0];
  const unsigned last = min(tile + BLOCK * UNROLL, p.numel) - 1;
  const unsigned rows = ((__umulhi(last, p.magic[0]) + last) >> p.shift[0]) - first_row + 1;
  if (rows <= BLOCK) {
    if (threadIdx.x < rows) {
      unsigned rem = first_row + threadIdx.x;
      int row_off[OPERANDS];
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) row_off[op] = 0;
#pragma unroll 1
      for (int d = 1; d < ${max_dims}; ++d) {
        if (d == p.ndim) break;
        const unsigned q = (__umulhi(rem, p.magic[d]) + rem) >> p.shift[d];
        const int coord = static_cast<int>(rem - q * p.sizes[d]);
        rem = q;
#pragma unroll
        for (int op = 0; op < OPERANDS; ++op) row_off[op] += coord * p.strides[op][d];
      }
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) row_offsets[threadIdx.x][op] = row_off[op];
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const unsigned v = first + u * BLOCK;
      const unsigned row = (__umulhi(v, p.magic[0]) + v) >> p.shift[0];
      const int column = static_cast<int>(v - row * vectors_per_row) * VEC;
      const unsigned slot = v < p.numel ? row - first_row : 0;
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) off[op][u] = row_offsets[slot][op] + column * p.strides[op][0];
    }
  } else {
    // Rows shorter than UNROLL vectors: each vector locates itself.
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) off[op][u] = 0;
      unsigned rem = first + u * BLOCK;
      if (rem >= p.numel) continue;
#pragma unroll 1
      for (int d = 0; d < ${max_dims}; ++d) {
        if (d == p.ndim) break;
        const unsigned q = (__umulhi(rem, p.magic[d]) + rem) >> p.shift[d];
        const int coord = static_cast<int>(rem - q * p.sizes[d]) * (d == 0 ? VEC : 1);
        rem = q;
#pragma unroll
        for (int op = 0; op < OPERANDS; ++op) off[op][u] += coord * p.strides[op][d];
      }
    }
  }
${loads}#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    if (first + u * BLOCK >= p.numel) break;
${result_vectors}#pragma unroll
    for (int e = 0; e < VEC; ++e) ${vector_element}
${vector_stores}  }
}
)";

constexpr OperandCode kNdVectorLoads{
    "jitvec_detail::Vec<${T}, VEC> v${k}[UNROLL];\n",
    "const int step = p.strides[${k}][0];\n"
    "if (step == 0) {\n"
    "#pragma unroll\n"
    "  for (int u = 0; u < UNROLL; ++u) {\n"
    "    if (first + u * BLOCK >= p.numel) break;\n"
    "    const ${T} same = in${k}[off[${k}][u]];\n"
    "#pragma unroll\n"
    "    for (int e = 0; e < VEC; ++e) v${k}[u].v[e] = same;\n"
    "  }\n"
    "} else if ((gather_mask >> ${k}) & 1u) {\n"
    "#pragma unroll\n"
    "  for (int u = 0; u < UNROLL; ++u) {\n"
    "    if (first + u * BLOCK >= p.numel) break;\n"
    "#pragma unroll\n"
    "    for (int e = 0; e < VEC; ++e) v${k}[u].v[e] = in${k}[off[${k}][u] + e * step];\n"
    "  }\n"
    "} else {\n"
    "#pragma unroll\n"
    "  for (int u = 0; u < UNROLL; ++u)\n"
    "    if (first + u * BLOCK < p.numel) v${k}[u] = *reinterpret_cast<const jitvec_detail::Vec<${T}, VEC>*>(in${k} + off[${k}][u]);\n"
    "}\n"};

constexpr const char* kResultVector = "jitvec_detail::Vec<${O}, VEC> r${s};\n";
constexpr const char* kVectorStore =
    "*reinterpret_cast<jitvec_detail::Vec<${O}, VEC>*>(out${s} + off[${op}][u]) = r${s};\n";

}  // namespace

int nd_vector_unroll(const ContigVectorShape& shape) { return std::max(1, 16 / shape.vec); }

std::string nd_vec_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern) {
  const ContigVectorShape shape = contig_vector_shape(spec);
  return fill(kNdVec, {{"block", std::to_string(kCudaBlock)},
                       {"name", kernel_name(KernelKind::nd_vec, pattern.fixed)},
                       {"params", kernel_parameters(spec, ShapeBlock::strided32)},
                       {"vec", std::to_string(shape.vec)},
                       {"unroll", std::to_string(nd_vector_unroll(shape))},
                       {"operands", std::to_string(spec.operand_count())},
                       {"nout", std::to_string(spec.nout())},
                       {"max_dims", std::to_string(launch::kMaxDims)},
                       {"loads", operand_loads(spec, pattern, kNdVectorLoads, 2)},
                       {"result_vectors", each_output(spec, kResultVector, 4)},
                       {"vector_element", element_store(spec, pattern, "v${k}[u].v[e]", "r${s}.v[e]")},
                       {"vector_stores", each_output(spec, kVectorStore, 4)}});
}

bool nd_vector_applies(const launch::IterationSpace& space, const CallOperands& operands, int vec,
                       std::uint32_t& gather_mask) {
  gather_mask = 0;
  const int inner = space.ndim() - 1;  // the space is outermost first
  if (!space.fits_32bit || space.ndim() < 2 || space.sizes[inner] % vec != 0) return false;
  for (int j = 0; j < operands.outputs; ++j) {
    if (!runs_along_rows(space, operands, operands.output(j), vec)) return false;
  }
  for (int k = 0; k < operands.inputs; ++k) {
    if (operands.is_scalar(k) || space.strides[k][inner] == 0) continue;
    if (!runs_along_rows(space, operands, k, vec)) gather_mask |= 1u << k;
  }
  return true;
}

LaunchGeometry nd_vector_geometry(const launch::IterationSpace& space, const ContigVectorShape& shape) {
  LaunchGeometry g;
  g.grid_x = blocks_for(space.numel / shape.vec, static_cast<std::int64_t>(kCudaBlock) * nd_vector_unroll(shape));
  return g;
}

namespace {

// jitvec_nd_vec over jitvec_rows_vec: in 3 or more dimensions, when a row has fewer vectors
// than a row block's threads take, or when every input is broadcast along some dimension (an
// outer product: the output is nearly all the traffic, so the instructions an element decide,
// and jitvec_nd_vec spends fewer). A 2-D space of long rows reading a whole input keeps the row
// kernel, measured at memory speed (bench/NOTES.md).
bool nd_vector_preferred(const launch::IterationSpace& space, const CallOperands& operands,
                         const ContigVectorShape& shape) {
  if (space.ndim() >= 3 || space.sizes.back() < shape.elements_per_block()) return true;
  for (int k = 0; k < operands.inputs; ++k) {
    if (operands.is_scalar(k)) continue;
    bool broadcast = false;
    for (std::int64_t stride : space.strides[k]) broadcast = broadcast || stride == 0;
    if (!broadcast) return false;
  }
  return true;
}

}  // namespace

bool nd_vec_fits(const ChoiceQuery& query, KernelChoice& choice) {
  std::uint32_t lanes = 0;
  if (!nd_vector_preferred(query.space, query.operands, query.loop.vector) ||
      !nd_vector_applies(query.space, query.operands, query.loop.vector.vec, lanes)) {
    return false;
  }
  choice.lane_mask = lanes;
  choice.geometry = nd_vector_geometry(query.space, query.loop.vector);
  choice.block.vector = query.loop.vector.vec;
  return true;
}

}  // namespace jitvec::kernels
