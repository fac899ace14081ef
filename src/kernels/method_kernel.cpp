#include "kernels/method_kernel.hpp"

#include "kernels/kernel_abi.hpp"
#include "kernels/kernel_text.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kGpuKernel = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(const ${params} p) {
  const long long step = static_cast<long long>(gridDim.x) * ${block};
  const long long count = ${count};
  for (long long t = static_cast<long long>(blockIdx.x) * ${block} + threadIdx.x; t < count; t += step) {
${body}  }
}
)";

constexpr const char* kHostEntry = R"(static_assert(sizeof(${params}) == ${params_bytes}, "${params} differs from its declaration in the library");
JITVEC_EXPORT void ${name}(const void* args, long long begin, long long end) {
  const ${params}& p = *static_cast<const ${params}*>(args);
  for (long long t = begin; t < end; ++t) {
${body}  }
}
)";

}  // namespace

std::string method_gpu_kernel(const MethodKernelText& k) {
  return fill(kGpuKernel, {{"block", std::to_string(kCudaBlock)},
                           {"name", k.gpu_name},
                           {"params", k.params_struct},
                           {"count", k.count},
                           {"body", k.body}});
}

std::string method_host_entry(const MethodKernelText& k) {
  return fill(kHostEntry, {{"params", k.params_struct},
                           {"params_bytes", std::to_string(k.params_bytes)},
                           {"name", k.host_name},
                           {"body", k.body}});
}

}  // namespace jitvec::kernels
