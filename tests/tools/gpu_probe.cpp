// tests/tools/gpu_probe.cpp: whether the GPU-tagged tests can run here, for ctest.
//
// Exits 0 when jitvec sees a CUDA device. Otherwise prints why, in one line (the driver's
// load error, or "no CUDA device"), and exits 77, which the jitvec_tests_gpu ctest entry
// declares as SKIP_RETURN_CODE: ctest then reports the GPU-tagged tests as skipped instead of
// passed (tests/CMakeLists.txt).
#include <cstdio>
#include <exception>

#include "cuda/device.hpp"
#include "cuda/driver.hpp"

int main() {
  if (jitvec::cuda::device_count() > 0) return 0;
  try {
    jitvec::cuda::driver();
    std::printf("GPU-tagged tests skipped: the CUDA driver loaded but sees no device\n");
  } catch (const std::exception& error) {
    std::printf("GPU-tagged tests skipped (no GPU): %s\n", error.what());
  }
  return 77;
}
