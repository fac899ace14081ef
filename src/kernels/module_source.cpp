#include "kernels/module_source.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "jitvec/errors.hpp"
#include "kernels/device_types.hpp"
#include "kernels/host_loops.hpp"
#include "kernels/host_prelude.hpp"
#include "kernels/kernel_abi.hpp"
#include "kernels/kernel_kinds.hpp"

namespace jitvec::kernels {
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
)";

// std::sqrt, std::min, ... as on the host, where <cmath> and <algorithm> are in the prelude.
// A map loop's module has it only when its code names std (NVRTC spends ~8 ms on these
// using-declarations, a twentieth of a small loop's first compile).
constexpr const char* kDeviceStd = R"(namespace std {
using ::abs; using ::fabs; using ::fmod; using ::remainder; using ::remquo; using ::fma;
using ::fmax; using ::fmin; using ::fdim; using ::exp; using ::exp2; using ::expm1; using ::log;
using ::log10; using ::log2; using ::log1p; using ::logb; using ::ilogb; using ::pow;
using ::sqrt; using ::cbrt; using ::hypot; using ::sin; using ::cos; using ::tan; using ::asin;
using ::acos; using ::atan; using ::atan2; using ::sinh; using ::cosh; using ::tanh;
using ::asinh; using ::acosh; using ::atanh; using ::erf; using ::erfc; using ::tgamma;
using ::lgamma; using ::ceil; using ::floor; using ::trunc; using ::round; using ::lround;
using ::llround; using ::nearbyint; using ::rint; using ::lrint; using ::llrint; using ::frexp;
using ::ldexp; using ::modf; using ::scalbn; using ::scalbln; using ::nextafter;
using ::copysign; using ::isfinite; using ::isinf; using ::isnan; using ::signbit; using ::min;
using ::max;
}  // namespace std
)";

constexpr const char* kDeviceVec = R"(namespace jitvec_detail {
template <class T, int N> struct alignas(sizeof(T) * N) Vec { T v[N]; };
}  // namespace jitvec_detail
)";

bool names_std(const std::string& code) {
  return code.find("std::") != std::string::npos || code.find("namespace std") != std::string::npos;
}

// The part after the user's code that both targets share: the apply function, the ABI.
std::string loop_preamble(const codegen::UfuncSource& ufunc, const codegen::LoopSpec& spec,
                          const char* apply_qualifiers, bool host) {
  std::string text = codegen::kLoopLineMarker;
  text += "namespace jitvec_detail {\n";
  text += codegen::apply_function(ufunc, spec, apply_qualifiers);
  text += "}  // namespace jitvec_detail\nusing jitvec_detail::jitvec_apply;\n";
  text += shape_block_declarations(spec);
  if (host) text += argument_structs(spec);
  return text;
}

// Each selected kernel's text (every one when `kernels` is empty), in module order.
template <class Text>
std::string selected_kernels(const KernelSelection& all, const KernelSelection& kernels, Text text) {
  for (const std::string& name : kernels) {
    if (std::find(all.begin(), all.end(), name) == all.end()) {
      throw Error(fmt::format("jitvec: this loop's module has no kernel '{}' (it has {})", name,
                              fmt::join(all, ", ")));
    }
  }
  std::string source;
  for (const std::string& name : all) {
    if (kernels.empty() || std::find(kernels.begin(), kernels.end(), name) != kernels.end()) {
      source += text(name);
    }
  }
  return source;
}

}  // namespace

KernelSelection cuda_kernel_names(const codegen::LoopSpec& spec) {
  KernelSelection names;
  for (const KernelVariant& v : module_variants(spec)) names.push_back(kernel_name(v));
  return names;
}

KernelSelection host_entry_names(const codegen::LoopSpec& spec) { return host_entry_symbols(spec); }

std::string cuda_module_common(const codegen::UfuncSource& ufunc,
                               const std::vector<const codegen::HelperSource*>& helpers,
                               const codegen::LoopSpec& spec) {
  const std::string user = codegen::user_code(ufunc, helpers);
  std::string source = kDevicePrelude;
  if (names_std(user)) source += kDeviceStd;
  source += kDeviceVec;
  source += types_prelude(types_parts_needed(spec, user));  // only what the loop can use
  source += user;
  source += loop_preamble(ufunc, spec, "__device__ __forceinline__", false);
  return source;
}

std::string cuda_kernel_source(const codegen::LoopSpec& spec, const std::string& kernel) {
  for (const KernelVariant& v : module_variants(spec)) {
    if (kernel_name(v) == kernel) return variant_text(spec, v);
  }
  throw Error(fmt::format("jitvec: this loop's module has no kernel '{}'", kernel));
}

std::string cuda_kernels_text(const codegen::LoopSpec& spec, const KernelSelection& kernels) {
  std::vector<KernelVariant> variants = module_variants(spec);
  KernelSelection all;
  for (const KernelVariant& v : variants) all.push_back(kernel_name(v));
  // Stand-ins are named only when asked for: "every kernel" is module_variants().
  for (const KernelVariant& v : stand_in_variants(spec)) {
    const std::string name = kernel_name(v);
    if (std::find(kernels.begin(), kernels.end(), name) == kernels.end()) continue;
    variants.push_back(v);
    all.push_back(name);
  }
  return selected_kernels(all, kernels, [&](const std::string& name) {
    const auto at = std::find(all.begin(), all.end(), name) - all.begin();
    return variant_text(spec, variants[static_cast<std::size_t>(at)]);
  });
}

std::string generate_cuda_source(const codegen::UfuncSource& ufunc,
                                 const std::vector<const codegen::HelperSource*>& helpers,
                                 const codegen::LoopSpec& spec, const KernelSelection& kernels) {
  return cuda_module_common(ufunc, helpers, spec) + cuda_kernels_text(spec, kernels);
}

std::string_view device_prelude() {
  static const std::string whole = std::string(kDevicePrelude) + kDeviceStd + kDeviceVec;
  return whole;
}

std::string host_module_common(const codegen::UfuncSource& ufunc,
                               const std::vector<const codegen::HelperSource*>& helpers,
                               const codegen::LoopSpec& spec) {
  std::string source(host_prelude());
  source += codegen::user_code(ufunc, helpers);
  source += loop_preamble(ufunc, spec, "static inline", true);
  return source;
}

std::string host_entries_text(const codegen::LoopSpec& spec, const KernelSelection& entries) {
  return selected_kernels(host_entry_names(spec), entries,
                          [&](const std::string& name) { return host_entry_text(spec, name); });
}

std::string generate_host_source(const codegen::UfuncSource& ufunc,
                                 const std::vector<const codegen::HelperSource*>& helpers,
                                 const codegen::LoopSpec& spec, const KernelSelection& kernels) {
  return host_module_common(ufunc, helpers, spec) + host_entries_text(spec, kernels);
}

}  // namespace jitvec::kernels
