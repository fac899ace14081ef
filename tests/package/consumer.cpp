// tests/package/consumer.cpp: a CPU-only user of jitvec, built by tests/package/check.sh.
//
// Uses the public headers and library only. Runs a ufunc on the cpu target, checks every
// element, then checks that the process never loaded NVRTC (a CPU-only deployment needs no
// CUDA toolkit): /proc/self/maps must not name libnvrtc. Exits 0 when both hold.
#include <jitvec/jitvec.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

int main() {
  jitvec::EngineOptions options;
  options.cache.disabled = true;
  jitvec::Engine engine(options);
  auto axpy = engine.vectorize("axpy", {"float64(float64, float64, float64)"},
                               "__device__ double axpy(double a, double x, double y) { return a * x + y; }");
  std::vector<double> x = {1, 2, 3, 4}, y = {10, 20, 30, 40};
  std::vector<double> r = axpy(2.0, x, y, jitvec::target(jitvec::Target::cpu)).to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (r[i] != 2.0 * x[i] + y[i]) {
      std::printf("consumer: element %zu is %g, want %g\n", i, r[i], 2.0 * x[i] + y[i]);
      return 1;
    }
  }
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("libnvrtc") != std::string::npos) {
      std::printf("consumer: the cpu target loaded NVRTC: %s\n", line.c_str());
      return 1;
    }
  }
  std::printf("consumer: jitvec %s works on the cpu target without loading NVRTC\n",
              jitvec::kVersion);
  return 0;
}
