#include "kernels/reduction_source.hpp"

#include "kernels/device_types.hpp"
#include "kernels/host_prelude.hpp"
#include "kernels/module_source.hpp"
#include "kernels/reduce.hpp"
#include "kernels/scan.hpp"

namespace jitvec::kernels {

std::string generate_reduction_source(bool host, const codegen::UfuncSource& ufunc,
                                      const std::vector<const codegen::HelperSource*>& helpers,
                                      const codegen::LoopSpec& spec, ReductionMethod method) {
  const char* qualifiers = host ? "static inline" : "__device__ __forceinline__";
  std::string source(host ? host_prelude() : device_prelude());
  if (!host) source += types_prelude();  // the host prelude carries it
  source += codegen::user_code(ufunc, helpers);
  source += codegen::kLoopLineMarker;
  source += "namespace jitvec_detail {\n";
  source += codegen::apply_function(ufunc, spec, qualifiers);
  source += "}  // namespace jitvec_detail\nusing jitvec_detail::jitvec_apply;\n";
  source += reduction_common(spec, qualifiers);
  const bool reduce = method == ReductionMethod::reduce;
  if (host) {
    source += reduce ? reduce_host_entries(spec) : scan_host_entries(spec);
  } else {
    source += reduce ? reduce_kernels(spec) : scan_kernels(spec);
  }
  return source;
}

}  // namespace jitvec::kernels
