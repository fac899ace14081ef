#include "test_ufuncs.hpp"

#include <mutex>

namespace jitvec_test {

void define_test_ufuncs(jitvec::Engine& engine) {
  static std::mutex mutex;
  static jitvec::Engine* defined_in = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (defined_in == &engine) return;
  defined_in = &engine;

  engine.vectorize("add",
                   {"int8(int8, int8)", "int16(int16, int16)", "int32(int32, int32)",
                    "int64(int64, int64)", "uint8(uint8, uint8)", "uint16(uint16, uint16)",
                    "uint32(uint32, uint32)", "uint64(uint64, uint64)", "float32(float32, float32)",
                    "float64(float64, float64)"},
                   R"(template <typename T> __device__ T add(T a, T b) { return a + b; })");
  engine.vectorize("gauss", {"f4(f4, f4, f4)", "f8(f8, f8, f8)"}, R"(
template <typename T>
__device__ T gauss(T x, T mean, T sigma) {
  const T z = (x - mean) / sigma;
  return exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));
})");
  engine.vectorize("select", {"float32(bool, float32, float32)"},
                   "__device__ float select(bool c, float a, float b) { return c ? a : b; }");
  engine.define_device_function("sq", "__device__ float sq(float x) { return x * x; }");
  engine.define_device_function(
      "hyp2", "__device__ float hyp2(float x, float y) { return sqrtf(sq(x) + sq(y)); }");
  engine.define_device_function(
      "unused_helper", "__device__ float unused_helper(float x) { return x; }");
  engine.vectorize("hyp", {"float32(float32, float32)"},
                   "__device__ float hyp(float a, float b) { return hyp2(a, b); }");
  engine.vectorize("mix", {"float64(int16, float32, float64)"},
                   "__device__ double mix(short a, float b, double c) { return a * (double)b + c; }");
  engine.vectorize("zero_suppress", {"int16(int16, int16)", "float32(float32, float32)"}, R"(
template <typename T>
__device__ T zero_suppress(T value, T threshold) {
  return (value > -threshold && value < threshold) ? T(0) : value;
})");
}

}  // namespace jitvec_test
