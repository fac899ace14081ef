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

void release_cached_memory() noexcept {
  const int devices = cuda_device_count();
  for (int device = 0; device < devices; ++device) cuda::release_recycled(device, nullptr);
}

void release_cached_memory(Stream stream, int device) noexcept {
  if (device < 0 || device >= cuda_device_count()) return;
  CUstream handle = stream.handle();
  cuda::release_recycled(device, &handle);
}

}  // namespace jitvec
