#include "kernels/strided.hpp"

#include "kernels/kernel_abi.hpp"
#include "kernels/kernel_text.hpp"
#include "kernels/operand_code.hpp"

namespace jitvec::kernels {
namespace {

// Operand k of the block is input k, the outputs are the last (from OUT on); a scalar's
// strides are all 0.
constexpr const char* kStrided = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(${params}) {
  constexpr int BLOCK = ${block}, UNROLL = ${unroll}, OPERANDS = ${operands}, OUT = OPERANDS - ${nout};
  const ${index} base = static_cast<${index}>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;
  ${offset} off[OPERANDS][UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
    for (int op = 0; op < OPERANDS; ++op) off[op][u] = 0;
    ${index} rem = base + u * BLOCK;
    if (rem >= p.numel) continue;
#pragma unroll 1
    for (int d = 0; d < ${max_dims}; ++d) {
      if (d == p.ndim) break;
      const ${index} q = ${quotient};
      const ${offset} coord = static_cast<${offset}>(rem - q * p.sizes[d]);
      rem = q;
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) off[op][u] += coord * p.strides[op][d];
    }
  }
${loads}#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u * BLOCK < p.numel) ${element}
}
)";

constexpr OperandCode kStridedLoads{
    "${T} v${k}[UNROLL];\n",
    "#pragma unroll\n"
    "for (int u = 0; u < UNROLL; ++u)\n"
    "  if (base + u * BLOCK < p.numel) v${k}[u] = in${k}[off[${k}][u]];\n"};

std::string strided_kernel(const codegen::LoopSpec& spec, const ScalarPattern& pattern, bool narrow) {
  return fill(kStrided,
              {{"block", std::to_string(kCudaBlock)},
               {"name", kernel_name(narrow ? KernelKind::strided32 : KernelKind::strided64, pattern.fixed)},
               {"params", kernel_parameters(spec, narrow ? ShapeBlock::strided32 : ShapeBlock::strided64)},
               {"unroll", std::to_string(narrow ? kStridedUnroll : 1)},
               {"operands", std::to_string(spec.operand_count())},
               {"nout", std::to_string(spec.nout())},
               {"index", narrow ? "unsigned" : "long long"},
               {"offset", narrow ? "int" : "long long"},
               {"max_dims", std::to_string(launch::kMaxDims)},
               {"quotient", narrow ? "(__umulhi(rem, p.magic[d]) + rem) >> p.shift[d]" : "rem / p.sizes[d]"},
               {"loads", operand_loads(spec, pattern, kStridedLoads, 2)},
               {"element", element_store(spec, pattern, "v${k}[u]", "out${s}[off[${op}][u]]")}});
}

}  // namespace

std::string strided32_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern) {
  return strided_kernel(spec, pattern, true);
}

std::string strided64_text(const codegen::LoopSpec& spec, const ScalarPattern& pattern) {
  return strided_kernel(spec, pattern, false);
}

bool strided32_fits(const ChoiceQuery& query, KernelChoice& choice) {
  if (!query.space.fits_32bit) return false;
  choice.geometry.grid_x = blocks_for(query.space.numel, kCudaBlock * kStridedUnroll);
  return true;
}

bool strided64_fits(const ChoiceQuery& query, KernelChoice& choice) {
  choice.geometry.grid_x = blocks_for(query.space.numel, kCudaBlock);
  return true;
}

}  // namespace jitvec::kernels
