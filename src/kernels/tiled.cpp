#include "kernels/tiled.hpp"

#include <cstdlib>

#include "codegen/source_parts.hpp"
#include "kernels/kernel_text.hpp"
#include "kernels/operand_code.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kTiled = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(${params}) {
  extern __shared__ __align__(16) unsigned char jitvec_tiles[];
  constexpr int OPERANDS = ${operands}, OUT = OPERANDS - ${nout};
${tiled_mask}  const long long cols = p.sizes[0], rows = p.sizes[1];
  // blockIdx.x: the row tile, blockIdx.y: the column tile, blockIdx.z: the batch (the
  // dimensions past the first two, the outermost found without a division).
  const long long r0 = static_cast<long long>(blockIdx.x) * 64;
  const long long c0 = static_cast<long long>(blockIdx.y) * 64;
  long long base[OPERANDS];
#pragma unroll
  for (int op = 0; op < OPERANDS; ++op) base[op] = 0;
  long long batch = blockIdx.z;
#pragma unroll 1
  for (int d = 2; d < p.ndim; ++d) {
    const long long q = d + 1 < p.ndim ? batch / p.sizes[d] : 0, coord = batch - q * p.sizes[d];
    batch = q;
#pragma unroll
    for (int op = 0; op < OPERANDS; ++op) base[op] += coord * p.strides[op][d];
  }
  const int tx = threadIdx.x & 63, ty = threadIdx.x >> 6;
  const bool interior = r0 + 64 <= rows && c0 + 64 <= cols;
  unsigned slot = 0;
${tile_loads}  __syncthreads();
  const long long r = r0 + ty, c = c0 + tx;
${direct_pointers}${destinations}  if (interior) {
#pragma unroll
    for (int j = 0; j < 16; ++j) ${element}
  } else {
#pragma unroll 1
    for (int j = 0; j < 16; ++j)
      if (r + 4 * j < rows && c < cols) ${element}
  }
}
)";

// Input k's tile: declared for every array input (the element expression names it), filled
// when the input is tiled.
constexpr const char* kTileDeclaration =
    "${T} (*tile${k})[65] = reinterpret_cast<${T} (*)[65]>(jitvec_tiles + slot);\n";
constexpr const char* kTileLoad =
    "slot += 64 * 65 * sizeof(${T});\n"
    "const ${T}* src = in${k} + base[${k}] + (r0 + tx) * p.strides[${k}][1] + (c0 + ty) * p.strides[${k}][0];\n"
    "const long long step = 4 * p.strides[${k}][0];\n"
    "if (interior) {\n"
    "  ${T} v[16];\n"
    "#pragma unroll\n"
    "  for (int j = 0; j < 16; ++j) v[j] = src[j * step];\n"
    "#pragma unroll\n"
    "  for (int j = 0; j < 16; ++j) tile${k}[ty + 4 * j][tx] = v[j];\n"
    "} else {\n"
    "#pragma unroll 1\n"
    "  for (int j = 0; j < 16; ++j)\n"
    "    if (r0 + tx < rows && c0 + ty + 4 * j < cols) tile${k}[ty + 4 * j][tx] = src[j * step];\n"
    "}\n";
constexpr const char* kDirectPointer =
    "const ${T}* direct${k} = in${k} + base[${k}] + r * p.strides[${k}][1] + c * p.strides[${k}][0];\n"
    "const long long direct_step${k} = 4 * p.strides[${k}][1];\n";

// Each output's first element of this thread and its step between the thread's rows.
constexpr const char* kDestination =
    "auto* dst${s} = out${s} + base[${op}] + r * p.strides[${op}][1] + c * p.strides[${op}][0];\n"
    "const long long out_step${s} = 4 * p.strides[${op}][1];\n";

// How input k is read by one tiled kernel.
enum class TileUse { never, per_call, always };

}  // namespace

std::string tiled_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern) {
  const int nin = static_cast<int>(spec.inputs.size());
  int arrays = 0;
  for (int k = 0; k < nin; ++k) arrays += pattern.known_scalar(k) ? 0 : 1;
  // With a fixed pattern of one array, the launch tiles exactly that input.
  auto use = [&](int k) {
    if (pattern.known_scalar(k)) return TileUse::never;
    return pattern.fixed && arrays == 1 ? TileUse::always : TileUse::per_call;
  };
  std::string tile_loads, direct_pointers;
  for (int k = 0; k < nin; ++k) {
    if (use(k) == TileUse::never) continue;
    tile_loads += indented(input_text(kTileDeclaration, spec, k), 2);
    const std::string load = input_text(kTileLoad, spec, k);
    if (use(k) == TileUse::always) {
      tile_loads += indented("{\n", 2) + indented(load, 4) + indented("}\n", 2);
      continue;
    }
    tile_loads += indented("if ((tiled_mask >> " + std::to_string(k) + ") & 1u) {\n", 2);
    tile_loads += indented(load, 4) + indented("}\n", 2);
    direct_pointers += indented(input_text(kDirectPointer, spec, k), 2);
  }
  const std::string element = element_store(spec, pattern, [&](int k) {
    const Slots slots{{"k", std::to_string(k)}};
    if (use(k) == TileUse::always) return fill("tile${k}[tx][ty + 4 * j]", slots);
    return fill("(((tiled_mask >> ${k}) & 1u) ? tile${k}[tx][ty + 4 * j] : direct${k}[j * direct_step${k}])", slots);
  }, "dst${s}[j * out_step${s}]");
  return fill(kTiled, {{"block", std::to_string(kCudaBlock)},
                       {"name", kernel_name(KernelKind::tiled, pattern.fixed)},
                       {"params", kernel_parameters(spec, ShapeBlock::strided64)},
                       {"operands", std::to_string(spec.operand_count())},
                       {"nout", std::to_string(spec.nout())},
                       {"tiled_mask", arrays == 1 && pattern.fixed ? "" : "  const unsigned tiled_mask = lane_mask;\n"},
                       {"tile_loads", tile_loads},
                       {"direct_pointers", direct_pointers},
                       {"destinations", each_output(spec, kDestination, 2)},
                       {"element", element}});
}

bool has_tiled_kernel(const codegen::LoopSpec& spec) { return !spec.inputs.empty(); }

TiledInputs transposed_inputs(const launch::IterationSpace& space, const CallOperands& operands) {
  TiledInputs tiled;
  const int inner = space.ndim() - 1;  // the space is outermost first
  if (inner < 1 || space.sizes[inner] < 32) return tiled;
  for (int k = 0; k < operands.inputs; ++k) {
    if (operands.is_scalar(k) || std::llabs(space.strides[k][inner]) <= 1) continue;
    // The input's own fast dimension: the first tile's, or (for the first input) any with
    // at least 32 elements.
    for (int d = 0; d < inner; ++d) {
      if (std::llabs(space.strides[k][d]) != 1 || space.sizes[d] < 32) continue;
      if (tiled.mask != 0 && d != tiled.second) continue;
      tiled.second = d;
      tiled.mask |= 1u << k;
      break;
    }
    if (__builtin_popcount(tiled.mask) == kMaxTiledInputs) break;
  }
  if (tiled.mask == 0) return TiledInputs{};
  // The grid: row tiles (x), column tiles (y, at most 65535), batches (z, at most 65535).
  const std::int64_t column_tiles = (space.sizes[inner] + 63) / 64;
  const std::int64_t batches = space.numel / space.sizes[inner] / space.sizes[tiled.second];
  if (column_tiles > 65535 || batches > 65535) return TiledInputs{};
  return tiled;
}

LaunchGeometry tiled_geometry(const launch::IterationSpace& space, const CallOperands& operands,
                              const TiledInputs& tiled) {
  LaunchGeometry g;
  const std::int64_t cols = space.sizes.back(), rows = space.sizes[tiled.second];
  g.grid_x = blocks_for(rows, 64);
  g.grid_y = blocks_for(cols, 64);
  g.grid_z = static_cast<unsigned>(space.numel / cols / rows);
  for (int k = 0; k < operands.inputs; ++k) {
    if ((tiled.mask >> k) & 1u) g.shared_bytes += 64 * 65 * operands.element_bytes[k];
  }
  return g;
}

bool tiled_fits(const ChoiceQuery& query, KernelChoice& choice) {
  if (!query.loop.has_tiled) return false;
  const TiledInputs tiled = transposed_inputs(query.space, query.operands);
  if (tiled.mask == 0) return false;
  choice.lane_mask = tiled.mask;
  choice.geometry = tiled_geometry(query.space, query.operands, tiled);
  choice.block.second = tiled.second;
  return true;
}

}  // namespace jitvec::kernels
