#include "kernels/ufunc_at.hpp"

#include "kernels/device_types.hpp"
#include "kernels/host_prelude.hpp"
#include "kernels/kernel_abi.hpp"
#include "kernels/kernel_text.hpp"
#include "kernels/method_kernel.hpp"
#include "kernels/module_source.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kParams = R"(struct jitvec_at_params {
  void* a;
  const void* b;
  unsigned long long b_scalar;
  const long long* order;
  const long long* segment_start;
  const long long* segment_row;
  long long segments;
  long long row;
  long long a_stride0, b_stride0;
  long long ndim;
  long long sizes[${dims}];
  long long a_strides[${dims}];
  long long b_strides[${dims}];
};
)";

// One (segment, row element): read once, apply the segment's updates in call order, write once.
constexpr const char* kBody = R"(    const long long s = t / p.row;
    long long rem = t - s * p.row, a_off = p.segment_row[s] * p.a_stride0, b_off = 0;
    for (int d = 0; d < p.ndim; ++d) {
      const long long q = rem / p.sizes[d];
      const long long c = rem - q * p.sizes[d];
      rem = q;
      a_off += c * p.a_strides[d];
      b_off += c * p.b_strides[d];
    }
    ${a_t}* const target = static_cast<${a_t}*>(p.a) + a_off;
    ${a_t} value = *target;
    union { unsigned long long bits; ${l1_t} value; } scalar;
    scalar.bits = p.b_scalar;
    const ${b_t}* const b = static_cast<const ${b_t}*>(p.b);
    for (long long j = p.segment_start[s]; j < p.segment_start[s + 1]; ++j) {
      const ${l1_t} update = b ? static_cast<${l1_t}>(b[p.order[j] * p.b_stride0 + b_off]) : scalar.value;
      value = static_cast<${a_t}>(jitvec_apply(static_cast<${l0_t}>(value), update));
    }
    *target = value;
)";

std::string module_text(std::string_view prelude, const codegen::UfuncSource& ufunc,
                        const std::vector<const codegen::HelperSource*>& helpers,
                        const codegen::LoopSpec& spec, const char* apply_qualifiers) {
  std::string source(prelude);
  source += codegen::user_code(ufunc, helpers);
  source += codegen::kLoopLineMarker;
  source += "namespace jitvec_detail {\n";
  source += codegen::apply_function(ufunc, spec, apply_qualifiers);
  source += "}  // namespace jitvec_detail\nusing jitvec_detail::jitvec_apply;\n";
  source += fill(kParams, {{"dims", std::to_string(launch::kMaxDims)}});
  return source;
}

std::string body(const codegen::LoopSpec& spec) {
  return fill(kBody, {{"a_t", codegen::c_type(spec.inputs[0])},
                      {"b_t", codegen::c_type(spec.inputs[1])},
                      {"l0_t", codegen::c_type(spec.loop.args[0])},
                      {"l1_t", codegen::c_type(spec.loop.args[1])}});
}

// One work item per (segment, element of a row).
MethodKernelText kernel_text(const codegen::LoopSpec& spec) {
  return MethodKernelText{"jitvec_at_params", sizeof(AtParams), kAtKernel, kAtHostSymbol,
                          "p.segments * p.row", body(spec)};
}

}  // namespace

std::string generate_at_cuda_source(const codegen::UfuncSource& ufunc,
                                    const std::vector<const codegen::HelperSource*>& helpers,
                                    const codegen::LoopSpec& spec) {
  const std::string prelude = std::string(device_prelude()) +
                              types_prelude(types_parts_needed(spec, codegen::user_code(ufunc, helpers)));
  return module_text(prelude, ufunc, helpers, spec, "__device__ __forceinline__") +
         method_gpu_kernel(kernel_text(spec));
}

std::string generate_at_host_source(const codegen::UfuncSource& ufunc,
                                    const std::vector<const codegen::HelperSource*>& helpers,
                                    const codegen::LoopSpec& spec) {
  return module_text(host_prelude(), ufunc, helpers, spec, "static inline") +
         method_host_entry(kernel_text(spec));
}

}  // namespace jitvec::kernels
