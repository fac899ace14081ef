#include "kernels/tiled.hpp"

#include <cstdlib>

#include "codegen/source_parts.hpp"
#include "kernels/kernel_text.hpp"
#include "kernels/operand_code.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kTiled = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(${params}) {
  extern __shared__ __align__(16) unsigned char jitvec_tiles[];
  constexpr int OUT = ${out_operand};
${tiled_mask}  const long long cols = p.sizes[0], rows = p.sizes[1];
  const long long r0 = static_cast<long long>(blockIdx.x) * 64;
  const long long c0 = static_cast<long long>(blockIdx.y) * 64;
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
    "const ${T}* src = in${k} + (r0 + tx) * p.strides[${k}][1] + (c0 + ty) * p.strides[${k}][0];\n"
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
    "const ${T}* direct${k} = in${k} + r * p.strides[${k}][1] + c * p.strides[${k}][0];\n"
    "const long long direct_step${k} = 4 * p.strides[${k}][1];\n";

// Each output's first element of this thread and its step between the thread's rows.
constexpr const char* kDestination =
    "auto* dst${s} = out${s} + r * p.strides[${op}][1] + c * p.strides[${op}][0];\n"
    "const long long out_step${s} = 4 * p.strides[${op}][1];\n";

// How input k is read by one tiled kernel.
enum class TileUse { never, per_call, always };

std::string tiled_kernel(const codegen::LoopSpec& spec, const ScalarPattern& pattern) {
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
                       {"name", kernel_name(KernelKind::tiled2d, pattern.fixed)},
                       {"params", kernel_parameters(spec, ShapeBlock::strided64)},
                       {"out_operand", std::to_string(spec.nin())},
                       {"tiled_mask", arrays == 1 && pattern.fixed ? "" : "  const unsigned tiled_mask = lane_mask;\n"},
                       {"tile_loads", tile_loads},
                       {"direct_pointers", direct_pointers},
                       {"destinations", each_output(spec, kDestination, 2)},
                       {"element", element}});
}

}  // namespace

bool has_tiled_kernel(const codegen::LoopSpec& spec) { return !spec.inputs.empty(); }

std::string tiled_kernels(const codegen::LoopSpec& spec) {
  if (!has_tiled_kernel(spec)) return {};
  std::string text = tiled_kernel(spec, ScalarPattern::run_time());
  for (std::uint32_t mask : specialized_scalar_masks(spec)) {
    text += tiled_kernel(spec, ScalarPattern::fixed_to(mask));
  }
  return text;
}

std::uint32_t transposed_inputs(const launch::IterationSpace& space, const CallOperands& operands) {
  if (space.ndim() != 2 || space.sizes[0] < 32 || space.sizes[1] < 32 ||
      (space.sizes[1] + 63) / 64 > 65535) {
    return 0;
  }
  std::uint32_t mask = 0;
  for (int k = 0; k < operands.inputs; ++k) {
    if (operands.is_scalar(k)) continue;
    const std::int64_t along_rows = space.strides[k][0], along_columns = space.strides[k][1];
    if (std::llabs(along_rows) == 1 && std::llabs(along_columns) > 1 &&
        __builtin_popcount(mask) < kMaxTiledInputs) {
      mask |= 1u << k;
    }
  }
  return mask;
}

LaunchGeometry tiled_geometry(const launch::IterationSpace& space, const CallOperands& operands,
                              std::uint32_t tiled_mask) {
  LaunchGeometry g;
  g.grid_x = blocks_for(space.sizes[0], 64);
  g.grid_y = blocks_for(space.sizes[1], 64);
  for (int k = 0; k < operands.inputs; ++k) {
    if ((tiled_mask >> k) & 1u) g.shared_bytes += 64 * 65 * operands.element_bytes[k];
  }
  return g;
}

}  // namespace jitvec::kernels
