#include "kernels/rows.hpp"

#include <algorithm>

#include "codegen/source_parts.hpp"
#include "kernels/kernel_text.hpp"
#include "kernels/operand_code.hpp"

namespace jitvec::kernels {
namespace {

// Sets base[op] to every operand's offset at the start of row `row` (dimensions 1..ndim-1 of
// the block; the outermost needs no division) and inner_row to its coordinate in dimension 1.
constexpr const char* kLocateRow = R"({
  long long rem = ${row};
#pragma unroll
  for (int op = 0; op < OPERANDS; ++op) base[op] = 0;
  inner_row = rem;
#pragma unroll 1
  for (int d = 1; d < ndim; ++d) {
    const long long q = d + 1 < ndim ? rem / p.sizes[d] : 0;
    const long long coord = rem - q * p.sizes[d];
    if (d == 1) inner_row = coord;
#pragma unroll
    for (int op = 0; op < OPERANDS; ++op) base[op] += coord * p.strides[op][d];
    rem = q;
  }
}
)";

// The start of both kernels: this block's rows [row, row_end) and its first row's offsets.
constexpr const char* kRowRange = R"(  const int ndim = static_cast<int>(p.ndim);
  const long long cols = p.sizes[0], rows = p.numel / cols;
  const long long rows_per_block = (rows + gridDim.y - 1) / gridDim.y;
  long long row = static_cast<long long>(blockIdx.y) * rows_per_block;
  const long long row_end = row + rows_per_block < rows ? row + rows_per_block : rows;
  long long base[OPERANDS], inner_row;
${locate_first}
)";

// The end of each row: step to the next row, or locate it when dimension 1 wraps.
constexpr const char* kNextRow = R"(    if (++inner_row == p.sizes[1]) {
${locate_next}    } else {
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) base[op] += p.strides[op][1];
    }
)";

constexpr const char* kRows = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(${params}) {
  constexpr int BLOCK = ${block}, UNROLL = ${unroll}, OPERANDS = ${operands}, OUT = OPERANDS - ${nout};
${row_range}  const long long c0 = static_cast<long long>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;
  for (; row < row_end; ++row) {
${loads}${row_outputs}#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (c0 + u * BLOCK < cols) ${element}
${next_row}  }
}
)";

constexpr OperandCode kRowLoads{
    "${T} v${k}[UNROLL];\n",
    "const ${T}* row${k} = in${k} + base[${k}];\n"
    "#pragma unroll\n"
    "for (int u = 0; u < UNROLL; ++u)\n"
    "  if (c0 + u * BLOCK < cols) v${k}[u] = row${k}[(c0 + u * BLOCK) * p.strides[${k}][0]];\n"};

constexpr const char* kRowsVec = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(${params}) {
  constexpr int BLOCK = ${block}, VEC = ${vec}, UNROLL = ${unroll}, OPERANDS = ${operands}, OUT = OPERANDS - ${nout};
  const unsigned column_mask = lane_mask;
${row_range}  const long long vectors = cols / VEC;
  const long long q0 = static_cast<long long>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;
  for (; row < row_end; ++row) {
${loads}${row_outputs}#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (q0 + u * BLOCK >= vectors) break;
${result_vectors}#pragma unroll
      for (int e = 0; e < VEC; ++e) ${vector_element}
${vector_stores}    }
    const long long c = vectors * VEC + threadIdx.x;
    if (blockIdx.x == 0 && c < cols) ${tail_element}
${next_row}  }
}
)";

// row<k> is declared for scalars too (their strides are 0): the tail's expression names it.
constexpr OperandCode kRowVectorLoads{
    "jitvec_detail::Vec<${T}, VEC> v${k}[UNROLL];\n"
    "const ${T}* row${k} = in${k} + base[${k}];\n",
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

// Each output's pointer to this row; for rows_vec each output's vector of results and its store.
constexpr const char* kRowOutput = "${O}* row_out${s} = out${s} + base[${op}];\n";
constexpr const char* kResultVector = "jitvec_detail::Vec<${O}, VEC> result${s};\n";
constexpr const char* kVectorStore =
    "*reinterpret_cast<jitvec_detail::Vec<${O}, VEC>*>(row_out${s} + (q0 + u * BLOCK) * VEC) = result${s};\n";

Slots row_walk_slots(const codegen::LoopSpec& spec) {
  const std::string locate_next = indented(fill(kLocateRow, {{"row", "row + 1"}}), 6);
  return {{"block", std::to_string(kCudaBlock)},
          {"params", kernel_parameters(spec, ShapeBlock::strided64)},
          {"operands", std::to_string(spec.operand_count())},
          {"nout", std::to_string(spec.nout())},
          {"row_outputs", each_output(spec, kRowOutput, 4)},
          {"row_range", fill(kRowRange, {{"locate_first", indented(fill(kLocateRow, {{"row", "row"}}), 2)}})},
          {"next_row", fill(kNextRow, {{"locate_next", locate_next}})}};
}

}  // namespace

std::string rows_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern) {
  Slots rows = row_walk_slots(spec);
  rows.set("name", kernel_name(KernelKind::rows, pattern.fixed))
      .set("unroll", kRowsUnroll)
      .set("loads", operand_loads(spec, pattern, kRowLoads, 4))
      .set("element", element_store(spec, pattern, "v${k}[u]", "row_out${s}[(c0 + u * BLOCK) * p.strides[${op}][0]]"));
  return fill(kRows, rows);
}

std::string rows_vec_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern) {
  const ContigVectorShape shape = contig_vector_shape(spec);
  Slots vec = row_walk_slots(spec);
  vec.set("name", kernel_name(KernelKind::rows_vec, pattern.fixed))
      .set("vec", shape.vec)
      .set("unroll", shape.unroll)
      .set("loads", operand_loads(spec, pattern, kRowVectorLoads, 4))
      .set("result_vectors", each_output(spec, kResultVector, 6))
      .set("vector_element", element_store(spec, pattern, "v${k}[u].v[e]", "result${s}.v[e]"))
      .set("vector_stores", each_output(spec, kVectorStore, 6))
      .set("tail_element", element_store(spec, pattern, "row${k}[((column_mask >> ${k}) & 1u) ? 0 : c]", "row_out${s}[c]"));
  return fill(kRowsVec, vec);
}

bool rows_apply(const launch::IterationSpace& space) {
  return space.ndim() >= 1 && space.sizes.back() >= kRowsMinColumns;
}

bool runs_along_rows(const launch::IterationSpace& space, const CallOperands& operands, int op, int vec) {
  const int inner = space.ndim() - 1;  // the space is outermost first
  if (space.strides[op][inner] != 1) return false;
  for (int d = 0; d < inner; ++d) {
    if (space.strides[op][d] % vec != 0) return false;  // every row starts on a vector
  }
  const std::size_t vector_bytes = static_cast<std::size_t>(vec) * operands.element_bytes[op];
  return operands.addresses[op] % vector_bytes == 0;
}

bool rows_vectorizable(const launch::IterationSpace& space, const CallOperands& operands, int vec,
                       std::uint32_t& column_mask) {
  column_mask = 0;
  const int inner = space.ndim() - 1;  // the space is outermost first
  for (int j = 0; j < operands.outputs; ++j) {
    if (!runs_along_rows(space, operands, operands.output(j), vec)) return false;
  }
  for (int k = 0; k < operands.inputs; ++k) {
    if (operands.is_scalar(k)) continue;
    if (space.strides[k][inner] == 0) {
      column_mask |= 1u << k;
    } else if (!runs_along_rows(space, operands, k, vec)) {
      return false;
    }
  }
  return true;
}

namespace {

unsigned row_blocks(const launch::IterationSpace& space) {
  const std::int64_t rows = space.numel / space.sizes.back();
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min(rows, kRowsMaxRowBlocks)));
}

}  // namespace

LaunchGeometry rows_geometry(const launch::IterationSpace& space) {
  LaunchGeometry g;
  g.grid_x = blocks_for(space.sizes.back(), kCudaBlock * kRowsUnroll);
  g.grid_y = row_blocks(space);
  return g;
}

LaunchGeometry rows_vec_geometry(const launch::IterationSpace& space, const ContigVectorShape& shape) {
  LaunchGeometry g;
  const std::int64_t vectors = space.sizes.back() / shape.vec;
  g.grid_x = std::max(1u, blocks_for(vectors, kCudaBlock * shape.unroll));
  g.grid_y = row_blocks(space);
  return g;
}

bool rows_vec_fits(const ChoiceQuery& query, KernelChoice& choice) {
  std::uint32_t lanes = 0;
  if (!rows_apply(query.space) || !rows_vectorizable(query.space, query.operands, query.loop.vector.vec, lanes)) {
    return false;
  }
  choice.lane_mask = lanes;
  choice.geometry = rows_vec_geometry(query.space, query.loop.vector);
  return true;
}

bool rows_fits(const ChoiceQuery& query, KernelChoice& choice) {
  if (!rows_apply(query.space)) return false;
  choice.geometry = rows_geometry(query.space);
  return true;
}

}  // namespace jitvec::kernels
