#include "codegen/host_source.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cpu/host_prelude.hpp"
#include "launch/strided_params.hpp"

namespace jitvec::codegen {
namespace {

constexpr std::size_t kPrefetchBlockBytes = 1024;
constexpr std::size_t kCacheLineBytes = 64;

// Local variables for the operands: in<k> (array pointer), s<k> (scalar value) and out.
std::string bind_operands(const LoopSpec& spec) {
  std::string text;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    text += fmt::format(
        "  const {0}* __restrict__ in{2} = static_cast<const {0}*>(operands[{2}]);\n"
        "  const {1} s{2} = (scalar_mask >> {2}) & 1u ? *static_cast<const {1}*>(operands[{2}]) "
        ": static_cast<{1}>(0);\n",
        c_type(spec.inputs[k]), c_type(spec.loop.args[k]), k);
  }
  text += fmt::format("  {0}* __restrict__ out = static_cast<{0}*>(operands[{1}]);\n",
                      c_type(spec.out_storage), spec.inputs.size());
  return text;
}

// The contiguous loop runs in blocks of about 1 KiB of the widest operand and, before each
// block, prefetches the array inputs' cache lines two blocks ahead. Without it one core
// serialises the loop's arithmetic and its memory traffic (measured on a 2-core Xeon:
// gaussian_pdf 0.81 ns an element streaming against 0.38 ns from L1, and a plain memcpy
// 0.39 ns); with it the two overlap (bench/NOTES.md, "CPU targets", change 3). Prefetching
// the output as well (prefetchw) was slower; prefetching into L2 only (locality 1) is a
// little faster than into L1.
std::string contig_loop(const LoopSpec& spec) {
  const std::string element =
      element_expression(spec, [](std::size_t k) { return fmt::format("in{}[i]", k); });
  std::size_t widest = dtype_size(spec.out_storage);
  for (DType t : spec.inputs) widest = std::max(widest, dtype_size(t));
  const std::size_t block = std::max<std::size_t>(64, kPrefetchBlockBytes / widest);
  std::string prefetches;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    const std::size_t line_elements =
        std::max<std::size_t>(1, kCacheLineBytes / dtype_size(spec.inputs[k]));
    prefetches += fmt::format(
        "      if (!((scalar_mask >> {0}) & 1u))\n"
        "        for (long long p = ahead; p < ahead_end; p += {1}) __builtin_prefetch(in{0} + p, 0, 1);\n",
        k, line_elements);
  }
  return fmt::format(
      "extern \"C\" __attribute__((visibility(\"default\"))) void {0}(void* const* operands, "
      "unsigned scalar_mask, long long begin, long long end) {{\n{1}"
      "  const long long block = {2};\n"
      "  for (long long b = begin; b < end; b += block) {{\n"
      "    const long long e = end - b < block ? end : b + block;\n"
      "    const long long ahead = b + 2 * block;\n"
      "    if (ahead < end) {{\n"
      "      const long long ahead_end = end - ahead < block ? end : ahead + block;\n"
      "{3}"
      "    }}\n"
      "    for (long long i = b; i < e; ++i) out[i] = {4};\n"
      "  }}\n"
      "}}\n",
      kHostContigSymbol, bind_operands(spec), block, prefetches, element);
}

// Operand k is input k (a scalar's strides are 0), the output is the last operand.
std::string strided_loop(const LoopSpec& spec) {
  const int nops = spec.operand_count();
  const int out_op = nops - 1;
  // Unit-stride run: plain indexing, vectorizable. General run: strided indexing.
  const std::string unit =
      element_expression(spec, [](std::size_t k) { return fmt::format("in{0}[off[{0}] + j]", k); });
  const std::string general = element_expression(spec, [](std::size_t k) {
    return fmt::format("in{0}[off[{0}] + j * p.strides[{0}][0]]", k);
  });
  return fmt::format(
      "{0}"
      "extern \"C\" __attribute__((visibility(\"default\"))) void {1}(void* const* operands, "
      "unsigned scalar_mask, const void* params, long long begin, long long end) {{\n{2}"
      "  const jitvec_strided64_params& p = *static_cast<const jitvec_strided64_params*>(params);\n"
      "  const int ndim = static_cast<int>(p.ndim);\n"
      "  long long coord[{3}] = {{}};\n"
      "  long long rem = begin;\n"
      "  for (int d = 0; d < ndim; ++d) {{ coord[d] = rem % p.sizes[d]; rem /= p.sizes[d]; }}\n"
      "  bool unit = true;\n"
      "  for (int op = 0; op < {4}; ++op)\n"
      "    unit = unit && (((scalar_mask >> op) & 1u) || p.strides[op][0] == 1);\n"
      "  long long i = begin;\n"
      "  while (i < end) {{\n"
      "    long long off[{4}];\n"
      "    for (int op = 0; op < {4}; ++op) {{\n"
      "      off[op] = 0;\n"
      "      for (int d = 0; d < ndim; ++d) off[op] += coord[d] * p.strides[op][d];\n"
      "    }}\n"
      "    const long long left_in_row = p.sizes[0] - coord[0];\n"
      "    const long long run = end - i < left_in_row ? end - i : left_in_row;\n"
      "    if (unit) {{\n"
      "      for (long long j = 0; j < run; ++j) out[off[{5}] + j] = {6};\n"
      "    }} else {{\n"
      "      for (long long j = 0; j < run; ++j) out[off[{5}] + j * p.strides[{5}][0]] = {7};\n"
      "    }}\n"
      "    i += run;\n"
      "    coord[0] += run;\n"
      "    for (int d = 0; d + 1 < ndim && coord[d] == p.sizes[d]; ++d) {{\n"
      "      coord[d] = 0;\n"
      "      ++coord[d + 1];\n"
      "    }}\n"
      "  }}\n"
      "}}\n",
      launch::strided_params_declaration("jitvec_strided64_params", launch::IndexWidth::bits64,
                                         nops),
      kHostStridedSymbol, bind_operands(spec), launch::kMaxDims, nops, out_op, unit, general);
}

}  // namespace

std::string generate_host_source(const UfuncSource& ufunc,
                                 const std::vector<const HelperSource*>& helpers,
                                 const LoopSpec& spec) {
  std::string source(cpu::host_prelude());
  source += user_code(ufunc, helpers);
  source += kLoopLineMarker;
  source += "namespace jitvec_detail {\n";
  source += apply_function(ufunc, spec, "static inline");
  source += "}  // namespace jitvec_detail\nusing jitvec_detail::jitvec_apply;\n";
  source += contig_loop(spec);
  source += strided_loop(spec);
  return source;
}

}  // namespace jitvec::codegen
