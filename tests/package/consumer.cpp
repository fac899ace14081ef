// Uses the installed headers and library only; exits 0 when the results are right.
#include <jitvec/jitvec.hpp>

#include <cmath>
#include <cstdio>
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
  std::printf("consumer: installed jitvec %s works\n", jitvec::kVersion);
  return 0;
}
