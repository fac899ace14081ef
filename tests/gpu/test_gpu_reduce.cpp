// Ufunc::reduce and Ufunc::accumulate on the cuda target (issue 11): the case table of
// tests/unit/reduce_support.hpp with device arrays and with host arrays, the same bits as the
// cpu target for float32 sums (the kernels follow the host's order exactly), run-to-run
// determinism of the scan, and a stream. Each test skips, saying why, without a GPU.
#include "../unit/reduce_support.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("GPU reduce: odd shapes, strides, axes and keepdims against float64", "[gpu][reduce]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_reduce_cases(Where{Target::cuda, true});
  run_reduce_cases(Where{Target::cuda, false});
}

TEST_CASE("GPU accumulate: every axis, strides, tiles and lines, out= against float64", "[gpu][reduce][accumulate]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_accumulate_cases(Where{Target::cuda, true});
  run_accumulate_cases(Where{Target::cuda, false});
}

TEST_CASE("GPU reduce: initial, identity, dtype=, out=, max", "[gpu][reduce]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_reduce_options(Where{Target::cuda, true});
  run_reduce_options(Where{Target::cuda, false});
}

TEST_CASE("GPU reduce: float32 sums within the bound, same bits every run and as the cpu target", "[gpu][reduce]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_reduce_rounding(Where{Target::cuda, true});
  Ufunc add = reduce_engine().ufunc("h3_add");
  // Several shapes and both kinds: the GPU folds in the host entries' order, and + on floats
  // rounds the same on both, so the bits agree.
  for (const Shape& shape : {Shape{1 << 22}, Shape{300, 5000}, Shape{5000, 300}}) {
    CAPTURE(shape_to_string(shape));
    TestArray x = TestArray::random(DType::float32, shape, -1, 1);
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      ReduceOptions o;
      o.axes = std::vector<int>{axis};
      o.target = Target::cuda;
      const std::vector<float> gpu = add.reduce(x.device_view(), o).to_vector<float>();
      o.target = Target::cpu;
      const std::vector<float> cpu = add.reduce(x.host_view(), o).to_vector<float>();
      CHECK(gpu == cpu);
    }
  }
}

TEST_CASE("GPU accumulate: the same bits every run, within the order's bound", "[gpu][reduce][accumulate]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Ufunc add = reduce_engine().ufunc("h3_add");
  const std::int64_t n = (std::int64_t{1} << 24) + 12345;
  TestArray x = TestArray::random(DType::float32, {n}, -1, 1);
  AccumulateOptions o;
  o.target = Target::cuda;
  const std::vector<float> first = add.accumulate(x.device_view(), 0, o).to_vector<float>();
  double exact = 0, magnitude = 0, worst = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    exact += x.at({i});
    magnitude += std::fabs(x.at({i}));
    worst = std::max(worst, std::fabs(first[static_cast<std::size_t>(i)] - exact) / magnitude);
  }
  // The tiles order (kernels/scan.hpp): ~27 roundings in a tile (4 in a thread, 5 Kogge-Stone
  // steps, up to 8 warps, 10 rows, 2 combinations), the aggregates' own ~25, then for the
  // 1639 tiles of 2^24 elements 11 tree levels and up to 11 digits folded in order (~76):
  // within 160 roundings of the running magnitude.
  CHECK(worst <= 160 * std::ldexp(1.0, -24));
  for (int run = 0; run < 3; ++run) CHECK(add.accumulate(x.device_view(), 0, o).to_vector<float>() == first);
}
