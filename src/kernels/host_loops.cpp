#include "kernels/host_loops.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "jitvec/errors.hpp"
#include "kernels/kernel_abi.hpp"
#include "kernels/kernel_choice.hpp"
#include "kernels/kernel_text.hpp"
#include "kernels/operand_code.hpp"

namespace jitvec::kernels {
namespace {

constexpr std::size_t kPrefetchBlockBytes = 1024;

constexpr const char* kContig = R"(${opening}  const long long block = ${block_elements};
  for (long long b = begin; b < end; b += block) {
    const long long e = end - b < block ? end : b + block;
    const long long ahead = b + 2 * block;
    if (ahead < end) {
      const long long ahead_end = end - ahead < block ? end : ahead + block;
${prefetches}    }
    for (long long i = b; i < e; ++i) ${element}
  }
}
)";

// One prefetch a cache line, into L2 (locality 1; bench/NOTES.md, "CPU targets").
constexpr OperandCode kPrefetch{
    "",
    "for (long long f = ahead; f < ahead_end; f += 64 / sizeof(${T})) __builtin_prefetch(in${k} + f, 0, 1);\n"};

constexpr const char* kStrided = R"(${opening}  constexpr int OPERANDS = ${operands}, OUT = OPERANDS - ${nout};
  const int ndim = static_cast<int>(p.ndim);
  long long coord[${max_dims}] = {};
  long long rem = begin;
  for (int d = 0; d < ndim; ++d) { coord[d] = rem % p.sizes[d]; rem /= p.sizes[d]; }
  bool unit = true;
  for (int op = 0; op < OPERANDS; ++op)
    unit = unit && (((scalar_mask >> op) & 1u) || p.strides[op][0] == 1);
  long long i = begin;
  while (i < end) {
    long long off[OPERANDS];
    for (int op = 0; op < OPERANDS; ++op) {
      off[op] = 0;
      for (int d = 0; d < ndim; ++d) off[op] += coord[d] * p.strides[op][d];
    }
    const long long left_in_row = p.sizes[0] - coord[0];
    const long long run = end - i < left_in_row ? end - i : left_in_row;
    if (unit) {
      for (long long j = 0; j < run; ++j) ${unit_element}
    } else {
      for (long long j = 0; j < run; ++j) ${general_element}
    }
    i += run;
    coord[0] += run;
    for (int d = 0; d + 1 < ndim && coord[d] == p.sizes[d]; ++d) {
      coord[d] = 0;
      ++coord[d + 1];
    }
  }
}
)";

}  // namespace

std::vector<std::string> host_entry_symbols(const codegen::LoopSpec& spec) {
  std::vector<std::string> symbols{kHostFlatSymbol};
  for (std::uint32_t mask : specialized_scalar_masks(spec)) {
    symbols.push_back(fmt::format("{}_s{}", kHostFlatSymbol, mask));
  }
  symbols.push_back(kHostStridedSymbol);
  return symbols;
}

std::string host_flat_symbol(const codegen::LoopSpec& spec, std::uint32_t scalar_mask) {
  for (std::uint32_t mask : specialized_scalar_masks(spec)) {
    if (mask == scalar_mask) return fmt::format("{}_s{}", kHostFlatSymbol, mask);
  }
  return kHostFlatSymbol;
}

std::string host_entry_text(const codegen::LoopSpec& spec, const std::string& symbol) {
  ScalarPattern pattern = ScalarPattern::run_time();
  for (std::uint32_t mask : specialized_scalar_masks(spec)) {
    if (symbol == fmt::format("{}_s{}", kHostFlatSymbol, mask)) pattern = ScalarPattern::fixed_to(mask);
  }
  if (symbol == kHostFlatSymbol || pattern.fixed) {
    std::size_t widest = 1;
    for (DType t : spec.outputs) widest = std::max(widest, dtype_size(t));
    for (DType t : spec.inputs) widest = std::max(widest, dtype_size(t));
    const std::size_t block = std::max<std::size_t>(64, kPrefetchBlockBytes / widest);
    return fill(kContig, {{"opening", host_entry_opening(spec, ShapeBlock::count, symbol.c_str())},
                          {"block_elements", std::to_string(block)},
                          {"prefetches", operand_loads(spec, pattern, kPrefetch, 6)},
                          {"element", element_store(spec, pattern, "in${k}[i]", "out${s}[i]")}});
  }
  if (symbol == kHostStridedSymbol) {
    return fill(kStrided,
                {{"opening", host_entry_opening(spec, ShapeBlock::strided64, kHostStridedSymbol)},
                 {"operands", std::to_string(spec.operand_count())},
                 {"nout", std::to_string(spec.nout())},
                 {"max_dims", std::to_string(launch::kMaxDims)},
                 {"unit_element", element_store(spec, pattern, "in${k}[off[${k}] + j]", "out${s}[off[${op}] + j]")},
                 {"general_element", element_store(spec, pattern, "in${k}[off[${k}] + j * p.strides[${k}][0]]",
                                                   "out${s}[off[${op}] + j * p.strides[${op}][0]]")}});
  }
  throw Error("jitvec: no host entry point is named '" + symbol + "'");
}

}  // namespace jitvec::kernels
