// Ufunc::reduce's where= mask on the cuda target (issue 11): the cases of
// tests/unit/reduce_where_support.hpp with device arrays and with host arrays (the pre-pass and
// the reduction on the GPU, the result back on the host), the same bits as the cpu target, a
// host input with a device mask, and a stream. Each test skips, saying why, without a GPU.
#include "../unit/reduce_where_support.hpp"
#include "cuda/stream.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("GPU reduce where=: odd shapes, strides, broadcast masks, keepdims, initial against float64", "[gpu][reduce][where]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_where_cases(Where{Target::cuda, true});
  run_where_cases(Where{Target::cuda, false});
}

TEST_CASE("GPU reduce where=: strided masks, all false, max, mul, empty axes", "[gpu][reduce][where]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_where_masks(Where{Target::cuda, true});
  run_where_masks(Where{Target::cuda, false});
}

TEST_CASE("GPU reduce where=: dtype=, out=, bool and complex inputs", "[gpu][reduce][where]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_where_options(Where{Target::cuda, true});
  run_where_options(Where{Target::cuda, false});
}

TEST_CASE("GPU reduce where=: all-true masks give the bits of no mask, and of the cpu target", "[gpu][reduce][where]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_where_all_true(Where{Target::cuda, true});
  run_where_all_true(Where{Target::cuda, false});
  Ufunc add = where_engine().ufunc("h3_add");
  for (const Shape& shape : {Shape{1 << 22}, Shape{300, 5000}, Shape{5000, 300}}) {
    CAPTURE(shape_to_string(shape));
    TestArray x = TestArray::random(DType::float32, shape, -1, 1);
    TestArray mask = TestArray::random(DType::bool_, shape, 0, 1);
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      ReduceOptions o;
      o.axes = std::vector<int>{axis};
      o.target = Target::cuda;
      o.where = mask.device_view();
      const std::vector<float> gpu = add.reduce(x.device_view(), o).to_vector<float>();
      o.target = Target::cpu;
      o.where = mask.host_view();
      const std::vector<float> cpu = add.reduce(x.host_view(), o).to_vector<float>();
      CHECK(gpu == cpu);
    }
  }
}

TEST_CASE("GPU reduce where=: mixed host and device operands, a stream", "[gpu][reduce][where]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Ufunc add = where_engine().ufunc("h3_add");
  const Fold plus = [](double a, double b) { return a + b; };
  TestArray x = TestArray::random(DType::float32, {33, 517}, -8, 8);
  integerize(x);
  TestArray mask = TestArray::random(DType::bool_, {33, 1}, 0, 1);
  const std::vector<bool> reduced = axes_mask(2, std::vector<int>{1});
  ReduceOptions o;
  o.axes = std::vector<int>{1};
  o.target = Target::cuda;
  // A host input with a device mask: the result comes back on the host, as the input.
  o.where = mask.device_view();
  Array host_result = add.reduce(x.host_view(), o);
  CHECK_FALSE(host_result.is_device());
  check_reduced(host_result, reduced, false, reference_where(x, mask, reduced, plus, std::nullopt, 0.0), 0.0);
  // A device input with a host mask, on a stream of its own.
  cuda::OwnedStream owned(0);
  const Stream stream = owned.get();
  o.where = mask.host_view();
  o.stream = stream;
  Array device_result = add.reduce(x.device_view(), o);
  CHECK(device_result.is_device());
  check_reduced(device_result.to_host(stream), reduced, false,
                reference_where(x, mask, reduced, plus, std::nullopt, 0.0), 0.0);
}
