// tests/tools/nvrtc_probe.cpp: NVRTC as a fresh process sees it (test_nvrtc_library.cpp).
//
//   nvrtc_probe cpu           runs a ufunc on the cpu target, then reads /proc/self/maps:
//                             exits 0 when libnvrtc was never loaded, 3 when it was
//   nvrtc_probe cuda-compile  compiles a small CUDA source with NVRTC (no GPU needed): exits 0
//                             when it compiled, 4 on CudaError, 5 on CompileError
// Each prints one line saying what happened (and the error's text).
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "compile/nvrtc_compiler.hpp"
#include "jitvec/jitvec.hpp"

namespace {

bool nvrtc_loaded() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("libnvrtc") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "cpu") {
      jitvec::EngineOptions options;
      options.cache.disabled = true;
      jitvec::Engine engine(options);
      auto twice = engine.vectorize("twice", {"float64(float64)"},
                                    "__device__ double twice(double x) { return 2 * x; }");
      const std::vector<double> x = {1, 2, 3};
      const auto y = twice(x, jitvec::target(jitvec::Target::cpu)).to_vector<double>();
      if (y != std::vector<double>{2, 4, 6}) {
        std::printf("wrong result on the cpu target\n");
        return 1;
      }
      const bool loaded = nvrtc_loaded();
      std::printf("cpu target ran; libnvrtc loaded: %s\n", loaded ? "yes" : "no");
      return loaded ? 3 : 0;
    }
    if (mode == "cuda-compile") {
      const auto binary = jitvec::compile::compile_cuda(
          "extern \"C\" __global__ void probe(float* x) { x[threadIdx.x] *= 2.0f; }", "probe",
          "sm_80");
      std::printf("compiled: cubin %zu bytes\n", binary.cubin.size());
      return 0;
    }
  } catch (const jitvec::CudaError& error) {
    std::printf("CudaError: %s\n", error.what());
    return 4;
  } catch (const jitvec::CompileError& error) {
    std::printf("CompileError: %s\n", error.what());
    return 5;
  } catch (const std::exception& error) {
    std::printf("unexpected error: %s\n", error.what());
    return 1;
  }
  std::fprintf(stderr, "usage: nvrtc_probe cpu|cuda-compile\n");
  return 2;
}
