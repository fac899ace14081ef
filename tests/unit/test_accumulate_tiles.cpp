// Ufunc::accumulate at the boundaries of the scan's chunks and tiles (kernels/scan.hpp) on the
// cpu and parallel targets: lengths 0, 1, odd, and around every chunk, row and tile size, for
// every dtype the method reads (integers narrow and wide, float16/bfloat16 read into float32,
// complex64/128), contiguous and reversed strided poisoned out=, reversed inputs, 2-d arrays
// along either axis (C-ordered and transposed), compared exactly with float64 references
// (tests/unit/accumulate_cases.hpp); real float32 sums in the documented tiles order bit for bit
// (the order written out in the test) and the same bits on cpu and parallel; and the planner's
// choice between the tiles and lines kinds.
#include "accumulate_cases.hpp"
#include "engine/reduction.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("accumulate: lengths around chunks, rows and tiles, every dtype, poisoned out=", "[accumulate]") {
  for (Target t : {Target::cpu, Target::parallel}) run_accumulate_lengths(t, false, t == Target::parallel);
}

TEST_CASE("accumulate: 2-d along either axis, C-ordered and transposed, around the line chunk", "[accumulate]") {
  for (Target t : {Target::cpu, Target::parallel}) run_accumulate_lines(t, false);
}

TEST_CASE("accumulate: real float32 sums in the documented orders, the same bits on cpu and parallel", "[accumulate]") {
  Ufunc add = accumulate_engine().ufunc("h5_add");
  const std::int64_t tile = kernels::scan_tile(DType::float32);
  for (const Shape& shape : {Shape{3 * tile + 7}, Shape{64 * tile + 5}, Shape{1000, 37}, Shape{37, 1000}}) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      CAPTURE(shape_to_string(shape), axis);
      TestArray x = TestArray::random(DType::float32, shape, 0, 1);
      AccumulateOptions o;
      o.target = Target::cpu;
      const std::vector<float> cpu = add.accumulate(x.host_view(), axis, o).to_vector<float>();
      o.target = Target::parallel;
      CHECK(add.accumulate(x.host_view(), axis, o).to_vector<float>() == cpu);
      if (shape.size() == 1) {  // the tiles order, written out in the test: bit for bit
        CHECK(cpu == tiles_order_reference(x.host_view().to_vector<float>()));
      }
      // Within the orders' chains of roundings of the running sum (inputs are >= 0, so the
      // exact prefix bounds every partial): tiles ~23 a level and up to 64 in order at the
      // last; lines a chunk of 256 and its prefixes in order.
      // The exact prefixes, C order (x is C-contiguous): one pass along the axis.
      const std::vector<float> xs = x.host_view().to_vector<float>();
      const std::int64_t inner = shape.size() == 2 && axis == 0 ? shape[1] : 1;
      const std::int64_t along = shape[static_cast<std::size_t>(axis)];
      std::vector<double> exact(xs.size());
      for (std::size_t i = 0; i < xs.size(); ++i) {
        const bool first = (static_cast<std::int64_t>(i) / inner) % along == 0;
        exact[i] = xs[i] + (first ? 0.0 : exact[i - static_cast<std::size_t>(inner)]);
      }
      const double depth = 256 + 64 + 2;
      for (std::size_t i = 0; i < cpu.size(); ++i) {
        if (!(std::fabs(cpu[i] - exact[i]) <= depth * std::ldexp(1.0, -24) * exact[i])) {
          FAIL_CHECK("element " << i << ": " << cpu[i] << ", want " << exact[i]);
          break;
        }
      }
    }
  }
}

TEST_CASE("accumulate: the planner takes tiles along the fast axis, lines elsewhere", "[accumulate]") {
  // (lines merged innermost first) -> kind
  const engine::MergedDims none{{}, {}, {}};
  CHECK(engine::choose_scan(none, 5, 1) == kernels::ScanKind::tiles);       // 1-d: always tiles
  CHECK(engine::choose_scan(none, 5, -3) == kernels::ScanKind::tiles);
  const engine::MergedDims columns{{300}, {1}, {1}};                        // (n, 300) along axis 0
  CHECK(engine::choose_scan(columns, 4096, 300) == kernels::ScanKind::lines);
  const engine::MergedDims rows{{300}, {4096}, {4096}};                     // (300, n) along axis 1
  CHECK(engine::choose_scan(rows, 4096, 1) == kernels::ScanKind::tiles);
  CHECK(engine::choose_scan(rows, kernels::kScanTilesMinLength - 1, 1) == kernels::ScanKind::lines);
  // Tiles hold kScanRows (10) rows of 256 x 16 bytes of the input: 40 KB.
  CHECK(kernels::scan_tile(DType::float32) == 10240);
  CHECK(kernels::scan_tile(DType::float64) == 5120);
  CHECK(kernels::scan_tile(DType::complex128) == 2560);
  CHECK(kernels::scan_tile(DType::int8) == 40960);
}

TEST_CASE("accumulate: the written-out GPU tiles order sums every element once", "[accumulate]") {
  // tiles_order_reference (accumulate_cases.hpp) is what the [gpu] test compares the cuda
  // target with bit for bit; on small integers any order is exact, so here it must give the
  // plain prefix sums: no element dropped, counted twice or taken from another tile.
  const std::int64_t tile = kernels::scan_tile(DType::float32);
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, tile - 1, tile + 1, 3 * tile + 17,
                         64 * tile + 5, 70 * tile + 1023}) {
    CAPTURE(n);
    std::vector<float> x(static_cast<std::size_t>(n));
    std::uniform_int_distribution<int> pick(-8, 8);
    for (float& v : x) v = static_cast<float>(pick(rng()));
    const std::vector<float> got = tiles_order_reference(x);
    double run = 0;
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      run += x[i];
      wrong += got[i] != run ? 1 : 0;
    }
    CHECK(wrong == 0);
  }
}
