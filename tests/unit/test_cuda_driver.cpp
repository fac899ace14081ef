// tests/unit/test_cuda_driver.cpp: the CUDA driver layer where there is no usable driver.
//
// These run on machines without a GPU: every load attempt below fails, and each must fail with
// a CudaError that says why. load_driver_from() makes a fresh attempt apart from the process's
// driver(), so the outcomes do not depend on which test touched the driver first. What needs a
// GPU lives in tests/gpu.
#include <cuda.h>
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "catch.hpp"
#include "cuda/context.hpp"
#include "cuda/device.hpp"
#include "cuda/driver.hpp"
#include "cuda/memory.hpp"
#include "jitvec/errors.hpp"

namespace {

using jitvec::CudaError;
namespace cuda = jitvec::cuda;

// The CudaError `attempt` throws (fails the test when it throws nothing, or something else).
template <class Attempt>
CudaError thrown_cuda_error(Attempt attempt) {
  try {
    attempt();
  } catch (const CudaError& error) {
    return error;
  }
  FAIL("no CudaError was thrown");
  return CudaError("", 0);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a driver library that does not exist gives a CudaError saying there is no driver",
          "[cuda]") {
  const std::string path = "/nonexistent/jitvec-test/libcuda.so.1";
  const CudaError error = thrown_cuda_error([&] { cuda::detail::load_driver_from(path); });
  const std::string message = error.what();
  CHECK(error.code() == -1);
  CHECK(contains(message, "no CUDA driver"));
  CHECK(contains(message, path));
  CHECK(contains(message, "Target::cpu"));
}

TEST_CASE("a library that is not a CUDA driver is refused", "[cuda]") {
  const CudaError error = thrown_cuda_error([] { cuda::detail::load_driver_from("libm.so.6"); });
  const std::string message = error.what();
  CHECK(error.code() == -1);
  CHECK(contains(message, "no CUDA driver"));
  CHECK(contains(message, "cuGetProcAddress_v2"));
}

TEST_CASE("the CUDA toolkit's stub libcuda is recognised as no driver", "[cuda]") {
  std::string stub;
  for (const char* candidate : {"/usr/local/cuda/lib64/stubs/libcuda.so",
                                "/usr/local/cuda/lib/stubs/libcuda.so",
                                "/usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so"}) {
    if (std::filesystem::exists(candidate)) {
      stub = candidate;
      break;
    }
  }
  if (stub.empty()) JITVEC_SKIP("no CUDA toolkit stub libcuda.so on this machine");
  const CudaError error = thrown_cuda_error([&] { cuda::detail::load_driver_from(stub); });
  CHECK(error.code() == CUDA_ERROR_STUB_LIBRARY);
  CHECK(contains(error.what(), "no CUDA driver"));
  CHECK(contains(error.what(), "stub"));
}

TEST_CASE("the library path comes from JITVEC_CUDA_DRIVER when it is set", "[cuda]") {
  const char* saved = std::getenv("JITVEC_CUDA_DRIVER");
  const std::string saved_value = saved != nullptr ? saved : "";
  ::setenv("JITVEC_CUDA_DRIVER", "/opt/elsewhere/libcuda.so.1", 1);
  CHECK(cuda::detail::driver_library_path() == "/opt/elsewhere/libcuda.so.1");
  ::setenv("JITVEC_CUDA_DRIVER", "", 1);
  CHECK(cuda::detail::driver_library_path() == "libcuda.so.1");
  ::unsetenv("JITVEC_CUDA_DRIVER");
  CHECK(cuda::detail::driver_library_path() == "libcuda.so.1");
  if (saved != nullptr) ::setenv("JITVEC_CUDA_DRIVER", saved_value.c_str(), 1);
}

TEST_CASE("check() passes success through and names the failed call", "[cuda]") {
  CHECK_NOTHROW(cuda::check(CUDA_SUCCESS, "cuMemAlloc"));
  const CudaError error =
      thrown_cuda_error([] { cuda::check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAllocAsync"); });
  CHECK(error.code() == CUDA_ERROR_OUT_OF_MEMORY);
  const std::string message = error.what();
  CHECK(message.rfind("cuMemAllocAsync failed: ", 0) == 0);
  // Named by the driver when there is one, by number when there is not.
  CHECK((contains(message, "CUDA_ERROR_OUT_OF_MEMORY") || contains(message, "CUresult 2")));
}

TEST_CASE("without a driver there are no devices and GPU calls throw CudaError", "[cuda]") {
  // Independent of jitvec: can this process load the library driver() would?
  void* library = dlopen(cuda::detail::driver_library_path().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library != nullptr) {
    dlclose(library);
    JITVEC_SKIP("a CUDA driver library loads on this machine");
  }
  CHECK_FALSE(cuda::driver_available());
  CHECK(cuda::device_count() == 0);

  const CudaError error = thrown_cuda_error([] { cuda::driver(); });
  CHECK(error.code() == -1);
  CHECK(contains(error.what(), "no CUDA driver"));
  // The failure is remembered, not retried differently.
  CHECK(std::string(thrown_cuda_error([] { cuda::driver(); }).what()) == error.what());

  CHECK_THROWS_AS(cuda::device_info(0), CudaError);
  CHECK_THROWS_AS(cuda::arch_name(0), CudaError);
  CHECK_THROWS_AS(cuda::ContextGuard(0), CudaError);
  CHECK_THROWS_AS(cuda::alloc_async(0, 256, nullptr), CudaError);
  int host_value = 0;
  CHECK_FALSE(cuda::is_device_pointer(&host_value));
  CHECK_NOTHROW(cuda::free_async(nullptr, nullptr));
  CHECK(cuda::alloc_async(0, 0, nullptr) == nullptr);  // nothing asked, nothing to ask the driver
}
