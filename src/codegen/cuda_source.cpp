#include "codegen/cuda_source.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "launch/strided_params.hpp"

namespace jitvec::codegen {
namespace {

constexpr const char* kDevicePrelude = R"(// ---- jitvec device prelude ----
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#define JITVEC_DEVICE 1
namespace jitvec_detail {
template <class T, int N> struct alignas(sizeof(T) * N) Vec { T v[N]; };
}  // namespace jitvec_detail
)";

// The parameter list every kernel shares: for each input a pointer (arrays) and a value in
// the loop's type (scalars), the output pointer, and the mask of which inputs are scalars.
std::string kernel_parameters(const LoopSpec& spec) {
  std::string params;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    params += fmt::format("const {}* __restrict__ in{}, const {} s{}, ", c_type(spec.inputs[k]), k,
                          c_type(spec.loop.args[k]), k);
  }
  params += fmt::format("{}* __restrict__ out, const unsigned scalar_mask",
                        c_type(spec.out_storage));
  return params;
}

// `known_scalars`: see specialized_scalar_masks(); without it, scalar_mask is read at run time.
std::string contig_vec_kernel(const LoopSpec& spec, std::optional<std::uint32_t> known_scalars) {
  const ContigVectorShape shape = contig_vector_shape(spec);
  std::string loads;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    if (known_scalars && ((*known_scalars >> k) & 1u)) continue;
    const std::string guard =
        known_scalars ? "true" : fmt::format("!((scalar_mask >> {}) & 1u)", k);
    loads += fmt::format(
        "    jitvec_detail::Vec<{0}, VEC> v{1}[UNROLL];\n"
        "    if ({2}) {{\n"
        "#pragma unroll\n"
        "      for (int u = 0; u < UNROLL; ++u)\n"
        "        v{1}[u] = *reinterpret_cast<const jitvec_detail::Vec<{0}, VEC>*>(in{1} + base + "
        "(static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);\n"
        "    }}\n",
        c_type(spec.inputs[k]), k, guard);
  }
  const std::string vector_element = element_expression(
      spec, [](std::size_t k) { return fmt::format("v{}[u].v[e]", k); }, known_scalars);
  const std::string scalar_element = element_expression(
      spec, [](std::size_t k) { return fmt::format("in{}[i]", k); }, known_scalars);
  const std::string o = c_type(spec.out_storage);
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({0}) {8}({1}, long long n) "
      "{{\n"
      "  constexpr int BLOCK = {0}, VEC = {2}, UNROLL = {3};\n"
      "  constexpr long long TILE = static_cast<long long>(BLOCK) * VEC * UNROLL;\n"
      "  const long long base = static_cast<long long>(blockIdx.x) * TILE;\n"
      "  if (base + TILE <= n) {{\n"
      "{4}"
      "#pragma unroll\n"
      "    for (int u = 0; u < UNROLL; ++u) {{\n"
      "      jitvec_detail::Vec<{5}, VEC> r;\n"
      "#pragma unroll\n"
      "      for (int e = 0; e < VEC; ++e) r.v[e] = {6};\n"
      "      *reinterpret_cast<jitvec_detail::Vec<{5}, VEC>*>(out + base + "
      "(static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r;\n"
      "    }}\n"
      "  }} else {{\n"
      "    for (long long i = base + threadIdx.x; i < n; i += BLOCK) out[i] = {7};\n"
      "  }}\n"
      "}}\n",
      kCudaBlock, kernel_parameters(spec), shape.vec, shape.unroll, loads, o, vector_element,
      scalar_element, contig_vec_kernel_name(known_scalars));
}

std::string contig_kernel(const LoopSpec& spec) {
  const std::string element =
      element_expression(spec, [](std::size_t k) { return fmt::format("in{}[i]", k); });
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({0}) jitvec_contig({1}, long long n) {{\n"
      "  const long long step = static_cast<long long>(gridDim.x) * {0};\n"
      "  for (long long i = static_cast<long long>(blockIdx.x) * {0} + threadIdx.x; i < n; "
      "i += step)\n"
      "    out[i] = {2};\n"
      "}}\n",
      kCudaBlock, kernel_parameters(spec), element);
}

// Operand k of the parameter block is input k; the output is the last operand. A scalar
// input's strides are all 0, so its offset stays 0 and its load is skipped by the mask.
std::string strided_kernel(const LoopSpec& spec, launch::IndexWidth width) {
  const bool narrow = width == launch::IndexWidth::bits32;
  const int nops = spec.operand_count();
  const int unroll = narrow ? kStridedUnroll : 1;
  const std::string params_type = narrow ? "jitvec_strided32_params" : "jitvec_strided64_params";
  const std::string index = narrow ? "unsigned" : "long long";
  const std::string offset = narrow ? "int" : "long long";

  std::string zero_offsets, accumulate, loads;
  for (int op = 0; op < nops; ++op) {
    zero_offsets += fmt::format("    off[{}][u] = 0;\n", op);
    accumulate += fmt::format("      off[{0}][u] += coord * p.strides[{0}][d];\n", op);
  }
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    loads += fmt::format(
        "  {0} v{1}[UNROLL];\n"
        "  if (!((scalar_mask >> {1}) & 1u)) {{\n"
        "#pragma unroll\n"
        "    for (int u = 0; u < UNROLL; ++u)\n"
        "      if (base + u * BLOCK < p.numel) v{1}[u] = in{1}[off[{1}][u]];\n"
        "  }}\n",
        c_type(spec.inputs[k]), k);
  }
  const std::string element =
      element_expression(spec, [](std::size_t k) { return fmt::format("v{}[u]", k); });
  const std::string divide =
      narrow ? "const unsigned q = (__umulhi(rem, p.magic[d]) + rem) >> p.shift[d];\n"
             : "const long long q = rem / p.sizes[d];\n";
  return fmt::format(
      "{0}"
      "extern \"C\" __global__ void __launch_bounds__({1}) jitvec_strided{2}({3}, const {4} p) "
      "{{\n"
      "  constexpr int BLOCK = {1}, UNROLL = {5};\n"
      "  const {6} base = static_cast<{6}>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;\n"
      "  {7} off[{8}][UNROLL];\n"
      "#pragma unroll\n"
      "  for (int u = 0; u < UNROLL; ++u) {{\n"
      "{9}"
      "    {6} rem = base + u * BLOCK;\n"
      "    if (rem >= p.numel) continue;\n"
      "#pragma unroll 1\n"
      "    for (int d = 0; d < {10}; ++d) {{\n"
      "      if (d == p.ndim) break;\n"
      "      {11}"
      "      const {7} coord = static_cast<{7}>(rem - q * p.sizes[d]);\n"
      "      rem = q;\n"
      "{12}"
      "    }}\n"
      "  }}\n"
      "{13}"
      "#pragma unroll\n"
      "  for (int u = 0; u < UNROLL; ++u)\n"
      "    if (base + u * BLOCK < p.numel) out[off[{14}][u]] = {15};\n"
      "}}\n",
      launch::strided_params_declaration(params_type.c_str(), width, nops), kCudaBlock,
      narrow ? 32 : 64, kernel_parameters(spec), params_type, unroll, index, offset, nops,
      zero_offsets, launch::kMaxDims, divide, accumulate, loads, nops - 1, element);
}

// 2-D spaces where an input's fastest dimension is the output's slow one (a transposed input):
// each block moves a 64x64 tile of such inputs through shared memory, reading them along their
// own fast dimension (256-byte runs), so every global access is coalesced; 16 elements a
// thread keep enough loads in flight. Other operands are read and written directly. Bit k of
// tiled_mask says input k goes through shared memory; the tiles of the tiled inputs follow one
// another in the dynamic shared memory, each 64 x 65 elements of its own type. The block is
// the 64-bit strided one: sizes[0] = columns (inner), sizes[1] = rows. blockIdx.x walks the row
// tiles, so blocks running together read neighbouring stretches of the transposed input. Each
// thread steps one pointer per operand by a fixed stride instead of recomputing 64-bit offsets.
// Tiles wholly inside the space skip the bounds checks and issue all 16 loads of a thread
// before writing any to shared memory (a check per load made each load wait for the one
// before: 0.71 of the copy, against 0.91 without, bench/NOTES.md). Edge tiles take checked
// loops that are not unrolled, so the element code appears once more, not 16 times: the
// module stays small (clamping the edge tiles' indices instead kept one path but cost the
// interior tiles 0.74 against 0.91).
// With `known_scalars` and a single array input, that input is the tiled one.
std::string tiled_kernel(const LoopSpec& spec, std::optional<std::uint32_t> known_scalars) {
  const int nin = static_cast<int>(spec.inputs.size());
  int arrays = 0, only_array = -1;
  for (int k = 0; k < nin; ++k) {
    if (!(known_scalars && ((*known_scalars >> k) & 1u))) {
      ++arrays;
      only_array = k;
    }
  }
  auto is_scalar = [&](int k) { return known_scalars && ((*known_scalars >> k) & 1u); };
  auto tiled_test = [&](int k) -> std::string {
    if (known_scalars && arrays == 1) return k == only_array ? "true" : "false";
    return fmt::format("((tiled_mask >> {}) & 1u)", k);
  };
  std::string loads, direct;
  for (int k = 0; k < nin; ++k) {
    if (is_scalar(k)) continue;
    const std::string t = c_type(spec.inputs[k]);
    const std::string array_guard =
        known_scalars ? "" : fmt::format(" && !((scalar_mask >> {}) & 1u)", k);
    loads += fmt::format(
        "  {0} (*tile{1})[65] = reinterpret_cast<{0} (*)[65]>(jitvec_tiles + slot);\n"
        "  if ({2}{3}) {{\n"
        "    slot += 64 * 65 * sizeof({0});\n"
        "    const {0}* src = in{1} + (r0 + tx) * p.strides[{1}][1] + (c0 + ty) * p.strides[{1}][0];\n"
        "    const long long step = 4 * p.strides[{1}][0];\n"
        "    if (interior) {{\n"
        "      {0} v[16];\n"
        "#pragma unroll\n"
        "      for (int j = 0; j < 16; ++j) v[j] = src[j * step];\n"
        "#pragma unroll\n"
        "      for (int j = 0; j < 16; ++j) tile{1}[ty + 4 * j][tx] = v[j];\n"
        "    }} else {{\n"
        "#pragma unroll 1\n"
        "      for (int j = 0; j < 16; ++j)\n"
        "        if (r0 + tx < rows && c0 + ty + 4 * j < cols) tile{1}[ty + 4 * j][tx] = src[j * step];\n"
        "    }}\n"
        "  }}\n",
        t, k, tiled_test(k), array_guard);
    if (tiled_test(k) == "true") continue;  // always read from its tile
    direct += fmt::format(
        "  const {0}* direct{1} = in{1} + r * p.strides[{1}][1] + c * p.strides[{1}][0];\n"
        "  const long long direct_step{1} = 4 * p.strides[{1}][1];\n",
        t, k);
  }
  const std::string element = element_expression(
      spec,
      [&](std::size_t k) {
        const std::string test = tiled_test(static_cast<int>(k));
        if (test == "true") return fmt::format("tile{}[tx][ty + 4 * j]", k);
        if (test == "false") return fmt::format("direct{0}[j * direct_step{0}]", k);
        return fmt::format("({1} ? tile{0}[tx][ty + 4 * j] : direct{0}[j * direct_step{0}])", k,
                           test);
      },
      known_scalars);
  const int out_op = spec.operand_count() - 1;
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__(256) {5}({0}, "
      "const jitvec_strided64_params p, const unsigned tiled_mask) {{\n"
      "  extern __shared__ __align__(16) unsigned char jitvec_tiles[];\n"
      "  const long long cols = p.sizes[0], rows = p.sizes[1];\n"
      "  const long long r0 = static_cast<long long>(blockIdx.x) * 64;\n"
      "  const long long c0 = static_cast<long long>(blockIdx.y) * 64;\n"
      "  const int tx = threadIdx.x & 63, ty = threadIdx.x >> 6;\n"
      "  const bool interior = r0 + 64 <= rows && c0 + 64 <= cols;\n"
      "  unsigned slot = 0;\n"
      "{1}"
      "  __syncthreads();\n"
      "  const long long r = r0 + ty, c = c0 + tx;\n"
      "{2}"
      "  auto* dst = out + r * p.strides[{3}][1] + c * p.strides[{3}][0];\n"
      "  const long long out_step = 4 * p.strides[{3}][1];\n"
      "  if (interior) {{\n"
      "#pragma unroll\n"
      "    for (int j = 0; j < 16; ++j) dst[j * out_step] = {4};\n"
      "  }} else {{\n"
      "#pragma unroll 1\n"
      "    for (int j = 0; j < 16; ++j)\n"
      "      if (r + 4 * j < rows && c < cols) dst[j * out_step] = {4};\n"
      "  }}\n"
      "}}\n",
      kernel_parameters(spec), loads, direct, out_op, element, tiled_kernel_name(known_scalars));
}

// 2-D spaces without a transposed input (broadcast rows or columns, row-padded arrays): one
// row per blockIdx.y step, kRowsUnroll elements a thread along the row. Offsets are a multiply
// and an add per operand, no division.
std::string rows_kernel(const LoopSpec& spec) {
  std::string loads;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    loads += fmt::format(
        "    {0} v{1}[UNROLL];\n"
        "    if (!((scalar_mask >> {1}) & 1u)) {{\n"
        "      const {0}* row{1} = in{1} + r * p.strides[{1}][1];\n"
        "#pragma unroll\n"
        "      for (int u = 0; u < UNROLL; ++u)\n"
        "        if (c0 + u * BLOCK < cols) v{1}[u] = row{1}[(c0 + u * BLOCK) * p.strides[{1}][0]];\n"
        "    }}\n",
        c_type(spec.inputs[k]), k);
  }
  const std::string element =
      element_expression(spec, [](std::size_t k) { return fmt::format("v{}[u]", k); });
  const int out_op = spec.operand_count() - 1;
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({0}) jitvec_rows2d({1}, "
      "const jitvec_strided64_params p) {{\n"
      "  constexpr int BLOCK = {0}, UNROLL = {2};\n"
      "  const long long cols = p.sizes[0], rows = p.sizes[1];\n"
      "  const long long c0 = static_cast<long long>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;\n"
      "  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {{\n"
      "{3}"
      "    auto* row_out = out + r * p.strides[{4}][1];\n"
      "#pragma unroll\n"
      "    for (int u = 0; u < UNROLL; ++u)\n"
      "      if (c0 + u * BLOCK < cols) row_out[(c0 + u * BLOCK) * p.strides[{4}][0]] = {5};\n"
      "  }}\n"
      "}}\n",
      kCudaBlock, kernel_parameters(spec), kRowsUnroll, loads, out_op, element);
}

// 2-D spaces whose operands all run along the row (column stride 1, rows starting on a vector
// boundary) or are constant along it (column stride 0: a broadcast column, read once a row):
// the rows kernel with jitvec_contig_vec's 16-byte loads, VEC * UNROLL elements a thread. Bit
// k of column_mask marks input k as constant along the row. Each row's last cols % VEC
// elements are done one a thread by the row's first block.
std::string rows_vec_kernel(const LoopSpec& spec) {
  const ContigVectorShape shape = contig_vector_shape(spec);
  std::string loads;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    loads += fmt::format(
        "    jitvec_detail::Vec<{0}, VEC> v{1}[UNROLL];\n"
        "    const {0}* row{1} = in{1} + r * p.strides[{1}][1];\n"
        "    if ((column_mask >> {1}) & 1u) {{\n"
        "      const {0} same = *row{1};\n"
        "#pragma unroll\n"
        "      for (int u = 0; u < UNROLL; ++u)\n"
        "#pragma unroll\n"
        "        for (int e = 0; e < VEC; ++e) v{1}[u].v[e] = same;\n"
        "    }} else if (!((scalar_mask >> {1}) & 1u)) {{\n"
        "#pragma unroll\n"
        "      for (int u = 0; u < UNROLL; ++u)\n"
        "        if (q0 + u * BLOCK < vectors) v{1}[u] = "
        "*reinterpret_cast<const jitvec_detail::Vec<{0}, VEC>*>(row{1} + (q0 + u * BLOCK) * VEC);\n"
        "    }}\n",
        c_type(spec.inputs[k]), k);
  }
  const std::string vector_element =
      element_expression(spec, [](std::size_t k) { return fmt::format("v{}[u].v[e]", k); });
  const std::string tail_element = element_expression(spec, [](std::size_t k) {
    return fmt::format("row{0}[((column_mask >> {0}) & 1u) ? 0 : c]", k);
  });
  std::string tail_rows;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    tail_rows += fmt::format("      const {0}* row{1} = in{1} + r * p.strides[{1}][1];\n",
                             c_type(spec.inputs[k]), k);
  }
  const int out_op = spec.operand_count() - 1;
  const std::string o = c_type(spec.out_storage);
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({0}) jitvec_rows2d_vec({1}, "
      "const jitvec_strided64_params p, const unsigned column_mask) {{\n"
      "  constexpr int BLOCK = {0}, VEC = {2}, UNROLL = {3};\n"
      "  const long long cols = p.sizes[0], rows = p.sizes[1], vectors = cols / VEC;\n"
      "  const long long q0 = static_cast<long long>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;\n"
      "  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {{\n"
      "{4}"
      "    {5}* row_out = out + r * p.strides[{6}][1];\n"
      "#pragma unroll\n"
      "    for (int u = 0; u < UNROLL; ++u) {{\n"
      "      if (q0 + u * BLOCK >= vectors) break;\n"
      "      jitvec_detail::Vec<{5}, VEC> result;\n"
      "#pragma unroll\n"
      "      for (int e = 0; e < VEC; ++e) result.v[e] = {7};\n"
      "      *reinterpret_cast<jitvec_detail::Vec<{5}, VEC>*>(row_out + (q0 + u * BLOCK) * VEC) = "
      "result;\n"
      "    }}\n"
      "    const long long c = vectors * VEC + threadIdx.x;\n"
      "    if (blockIdx.x == 0 && c < cols) {{\n"
      "{8}"
      "      row_out[c] = {9};\n"
      "    }}\n"
      "  }}\n"
      "}}\n",
      kCudaBlock, kernel_parameters(spec), shape.vec, shape.unroll, loads, o, out_op,
      vector_element, tail_rows, tail_element);
}

}  // namespace

std::vector<std::uint32_t> specialized_scalar_masks(const LoopSpec& spec) {
  const auto nin = static_cast<std::uint32_t>(spec.inputs.size());
  if (nin == 0) return {};
  std::vector<std::uint32_t> masks{0};
  if (nin >= 2) masks.push_back(((1u << nin) - 1u) & ~1u);
  return masks;
}

std::string contig_vec_kernel_name(std::optional<std::uint32_t> known_scalars) {
  return known_scalars ? fmt::format("jitvec_contig_vec_s{}", *known_scalars)
                       : std::string("jitvec_contig_vec");
}

std::string tiled_kernel_name(std::optional<std::uint32_t> known_scalars) {
  return known_scalars ? fmt::format("jitvec_tiled2d_s{}", *known_scalars)
                       : std::string("jitvec_tiled2d");
}

std::size_t tiled_shared_bytes(const LoopSpec& spec, std::uint32_t tiled_mask) {
  std::size_t bytes = 0;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    if ((tiled_mask >> k) & 1u) bytes += 64 * 65 * dtype_size(spec.inputs[k]);
  }
  return bytes;
}

ContigVectorShape contig_vector_shape(const LoopSpec& spec) {
  std::size_t widest = dtype_size(spec.out_storage);
  for (DType in : spec.inputs) widest = std::max(widest, dtype_size(in));
  const int vec = static_cast<int>(16 / widest);     // 16-byte loads of the widest operand
  const int unroll = std::max(1, 8 / vec);           // at least 8 elements a thread
  return ContigVectorShape{vec, unroll};
}

bool has_tiled_kernel(const LoopSpec& spec) { return !spec.inputs.empty(); }

std::string generate_cuda_source(const UfuncSource& ufunc,
                                 const std::vector<const HelperSource*>& helpers,
                                 const LoopSpec& spec) {
  std::string source = kDevicePrelude;
  source += user_code(ufunc, helpers);
  source += kLoopLineMarker;
  source += "namespace jitvec_detail {\n";
  source += apply_function(ufunc, spec, "__device__ __forceinline__");
  source += "}  // namespace jitvec_detail\nusing jitvec_detail::jitvec_apply;\n";
  source += contig_vec_kernel(spec, std::nullopt);
  for (std::uint32_t mask : specialized_scalar_masks(spec)) source += contig_vec_kernel(spec, mask);
  source += contig_kernel(spec);
  source += strided_kernel(spec, launch::IndexWidth::bits32);
  source += strided_kernel(spec, launch::IndexWidth::bits64);
  source += rows_kernel(spec);
  source += rows_vec_kernel(spec);
  if (has_tiled_kernel(spec)) {
    source += tiled_kernel(spec, std::nullopt);
    for (std::uint32_t mask : specialized_scalar_masks(spec)) source += tiled_kernel(spec, mask);
  }
  return source;
}

}  // namespace jitvec::codegen
