// The public device functions of include/jitvec/device.hpp, over the driver layer.
#include "cuda/context.hpp"
#include "cuda/device.hpp"
#include "cuda/memory.hpp"
#include "jitvec/device.hpp"

namespace jitvec {

int cuda_device_count() noexcept {
  try {
    return cuda::device_count();
  } catch (...) {
    return 0;
  }
}

void synchronize(Stream stream, int device) {
  cuda::ContextGuard guard(device);
  cuda::synchronize(stream.handle());
}

}  // namespace jitvec
