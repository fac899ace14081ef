// Ufunc::accumulate on the cuda target at the boundaries of the scan's tiles (kernels/scan.hpp):
// the length table of tests/unit/accumulate_cases.hpp (with lines of 64 tiles, -1/0/+1 element:
// tree ranges up to 64 tiles, tiles waiting on six ranges) for every dtype
// including complex128 (whose tiles once needed more than 48 KiB of static shared memory), with
// device and host arrays; 2-d arrays along either axis; the documented tiles order bit for bit
// (tiles_order_reference); both kinds bit for bit against the cpu target (whose host entries
// run the GPU's orders); the same bits run after run. Each test skips, saying why, without a GPU.
#include "../unit/accumulate_cases.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("GPU accumulate: lengths around rows and tiles, every dtype and complex128, poisoned out=", "[gpu][accumulate]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_accumulate_lengths(Target::cuda, true, true);
  run_accumulate_lengths(Target::cuda, false, false);
}

TEST_CASE("GPU accumulate: 2-d along either axis, C-ordered and transposed", "[gpu][accumulate]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  run_accumulate_lines(Target::cuda, true);
  run_accumulate_lines(Target::cuda, false);
}

TEST_CASE("GPU accumulate: float32 sums in the documented tiles order, bit for bit, every run", "[gpu][accumulate]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Ufunc add = accumulate_engine().ufunc("h5_add");
  const std::int64_t tile = kernels::scan_tile(DType::float32);
  // One partial tile; several; tile counts around powers of two (the tree's ranges: a tile
  // whose number has one digit, or every digit set; the look-back's windows of 64 tiles);
  // 10311 tiles (ranges of 8192 tiles).
  for (std::int64_t n : {std::int64_t{1000}, 2 * tile, 3 * tile + 17, 31 * tile + 1, 32 * tile, 33 * tile - 1,
                         64 * tile + 5, 127 * tile + 9, 128 * tile, 129 * tile + 4095, 256 * tile - 3, 257 * tile,
                         1000 * tile + 7, tile * tile + 70 * tile + 3}) {
    CAPTURE(n);
    std::vector<float> x(static_cast<std::size_t>(n));
    std::uniform_real_distribution<float> pick(0.0f, 1.0f);
    for (float& v : x) v = pick(rng());
    const std::vector<float> want = tiles_order_reference(x);
    AccumulateOptions o;
    o.target = Target::cuda;
    const Array dx = to_device(x);
    const std::vector<float> got = add.accumulate(dx, 0, o).to_vector<float>();
    REQUIRE(got.size() == want.size());
    std::int64_t differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i] && differ++ < 5) FAIL_CHECK("element " << i << ": " << got[i] << ", want " << want[i]);
    }
    CHECK(differ == 0);
    for (int run = 0; run < 2; ++run) CHECK(add.accumulate(dx, 0, o).to_vector<float>() == got);
  }
}

TEST_CASE("GPU accumulate: both kinds fold as the cpu target does, bit for bit", "[gpu][accumulate]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Ufunc add = accumulate_engine().ufunc("h5_add");
  for (const Shape& shape : {Shape{1000, 37}, Shape{4097, 3}, Shape{70, 5000}, Shape{3, 300000}, Shape{(1 << 22) + 9}}) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      for (DType t : {DType::float32, DType::complex64}) {
        CAPTURE(shape_to_string(shape), axis, dtype_name(t));
        TestArray x = TestArray::random(t, shape, 0, 1);
        AccumulateOptions o;
        o.target = Target::cuda;
        const Array gpu = add.accumulate(x.device_view(), axis, o).to_host();
        o.target = Target::cpu;
        const Array cpu = add.accumulate(x.host_view(), axis, o);
        REQUIRE(gpu.size() == cpu.size());
        CHECK(std::memcmp(gpu.data(), cpu.data(), static_cast<std::size_t>(gpu.size()) * dtype_size(t)) == 0);
      }
    }
  }
}
