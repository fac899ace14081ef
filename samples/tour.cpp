// samples/tour.cpp: the README's "A short tour", as a program that the tests build and run.
//
// The lines between the "tour:begin" and "tour:end" markers are README.md's tour, word for
// word (the ctest entry jitvec_readme_tour checks that the two agree), so the README's code
// always compiles and runs. The device-array part runs where there is a GPU; elsewhere the
// default target is cpu and it is skipped. Every result is checked against a float64
// reference; the program prints what ran and exits 0 when all of it matched, 1 otherwise.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <jitvec/jitvec.hpp>

namespace {

int failures = 0;

// Checks `got` against the float64 polar distance of the inputs (with `rho2`, `theta2` as
// given per element, or broadcast when they hold one value).
void check(const char* what, const std::vector<float>& got, const std::vector<float>& rho1,
           const std::vector<float>& theta1, const std::vector<float>& rho2,
           const std::vector<float>& theta2) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < rho1.size(); ++i) {
    const double r2 = rho2.size() == 1 ? rho2[0] : rho2[i];
    const double t2 = theta2.size() == 1 ? theta2[0] : theta2[i];
    const double dx = rho1[i] * std::cos(double(theta1[i])) - r2 * std::cos(t2);
    const double dy = rho1[i] * std::sin(double(theta1[i])) - r2 * std::sin(t2);
    const double want = std::sqrt(dx * dx + dy * dy);
    if (i >= got.size() || !(std::fabs(got[i] - want) <= 5e-6 + 1e-5 * std::fabs(want))) {
      if (bad++ == 0) {
        std::printf("tour: %s: element %zu is %.9g, want %.9g\n", what, i,
                    i < got.size() ? got[i] : NAN, want);
      }
    }
  }
  std::printf("tour: %-44s %s (%zu elements)\n", what, bad == 0 ? "ok" : "FAILED", rho1.size());
  if (bad != 0) ++failures;
}

}  // namespace

int main() {
  const std::size_t n = 1000;
  std::mt19937 random(std::random_device{}());
  std::uniform_real_distribution<float> radius(0.5f, 1.5f), angle(-3.14159f, 3.14159f);
  std::vector<float> r1(n), t1(n), r2(n), t2(n);
  for (std::size_t i = 0; i < n; ++i) {
    r1[i] = radius(random), t1[i] = angle(random), r2[i] = radius(random), t2[i] = angle(random);
  }
  try {
    // tour:begin
    jitvec::Engine engine;   // or jitvec::Engine::global()

    // A helper any ufunc may call; pulled into exactly the kernels that use it.
    engine.define_device_function("polar_to_cartesian", R"(
      __device__ void polar_to_cartesian(float rho, float theta, float& x, float& y) {
        x = rho * cosf(theta);  y = rho * sinf(theta);
      })");

    // A ufunc: a complete CUDA C++ function named like the ufunc (plain, overloaded or a template).
    auto polar_distance = engine.vectorize("polar_distance",
        {"float32(float32, float32, float32, float32)"}, R"(
      __device__ float polar_distance(float rho1, float theta1, float rho2, float theta2) {
        float x1, y1, x2, y2;
        polar_to_cartesian(rho1, theta1, x1, y1);
        polar_to_cartesian(rho2, theta2, x2, y2);
        return sqrtf((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
      })");

    // std::vector<float> r1(n), t1(n), r2(n), t2(n);  (filled with your data)
    jitvec::Array d = polar_distance(r1, t1, r2, t2);     // host in -> host out
    std::vector<float> dv = d.to_vector<float>();

    // Options are tagged arguments: a target, out=, a stream. Scalars broadcast.
    jitvec::Array p = polar_distance(r1, t1, r2, t2, jitvec::target(jitvec::Target::parallel));
    jitvec::Array o = jitvec::Array::empty(jitvec::DType::float32, {std::int64_t(n)});
    polar_distance(r1, t1, 1.0f, 0.0f, jitvec::out(o), jitvec::target(jitvec::Target::cpu));

    std::vector<float> back;
    if (jitvec::cuda_device_count() > 0) {                // device arrays: no copies
      jitvec::Array rd = jitvec::to_device(r1), td = jitvec::to_device(t1);
      jitvec::Array dd = polar_distance(rd, td, 1.0f, 0.0f);
      polar_distance(rd, td, rd, td, jitvec::out(dd), jitvec::on(jitvec::Stream{}));
      back = dd.to_vector<float>();                       // copies back (stream-ordered)
    }
    // tour:end
    if (jitvec::cuda_device_count() > 0) {
      check("device arrays, out= and a stream (cuda)", back, r1, t1, r1, t1);
    } else {
      std::printf("tour: no GPU here: the device-array lines were skipped\n");
    }
    const jitvec::Target target = polar_distance.default_target();
    std::printf("tour: default target: %s\n", std::string(jitvec::target_name(target)).c_str());
    check("host arrays, the default target", dv, r1, t1, r2, t2);
    check("host arrays, target(parallel)", p.to_vector<float>(), r1, t1, r2, t2);
    check("scalars broadcast, out=, target(cpu)", o.to_vector<float>(), r1, t1, {1.0f}, {0.0f});
  } catch (const jitvec::Error& error) {
    std::printf("tour: FAILED: %s\n", error.what());
    return 1;
  }
  std::printf("tour: %s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
