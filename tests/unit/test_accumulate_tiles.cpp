// Ufunc::accumulate at the boundaries of the scan's chunks and tiles (kernels/scan.hpp) on the
// cpu and parallel targets: lengths 0, 1, odd, and around every chunk, row and tile size, for
// every dtype the method reads (integers narrow and wide, float16/bfloat16 read into float32,
// complex64/128), contiguous and reversed strided poisoned out=, reversed inputs, 2-d arrays
// along either axis (C-ordered and transposed), compared exactly with float64 references
// (tests/unit/accumulate_cases.hpp); real float32 sums in the documented tiles order bit for bit
// (the order written out in the test: the tiles' aggregates chained strictly in order) and the
// same bits on cpu and parallel; the planner's choice between the tiles and lines kinds; and
// the single-pass look-back kernel compiled by NVRTC (no GPU needed).
#include "accumulate_cases.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "engine/reduction.hpp"
#include "kernels/reduction_source.hpp"

using namespace jitvec;
using namespace jitvec_test;

TEST_CASE("accumulate: lengths around chunks, rows and tiles, every dtype, poisoned out=", "[accumulate]") {
  for (Target t : {Target::cpu, Target::parallel}) run_accumulate_lengths(t, false, t == Target::parallel);
}

TEST_CASE("accumulate: 2-d along either axis, C-ordered and transposed, around the line chunk", "[accumulate]") {
  for (Target t : {Target::cpu, Target::parallel}) run_accumulate_lines(t, false);
}

TEST_CASE("accumulate: real float32 sums in the documented orders, the same bits on cpu and parallel", "[accumulate]") {
  // 64 tiles and more: where the strict chain of the tiles' aggregates differs from the
  // reduce-then-scan it replaced (whose aggregates were scanned by tiles again from 64 on).
  Ufunc add = accumulate_engine().ufunc("h5_add");
  const std::int64_t tile = kernels::scan_tile(DType::float32);
  for (const Shape& shape : {Shape{3 * tile + 7}, Shape{64 * tile + 5}, Shape{3, 70 * tile + 11}, Shape{1000, 37},
                             Shape{37, 1000}}) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      CAPTURE(shape_to_string(shape), axis);
      TestArray x = TestArray::random(DType::float32, shape, 0, 1);
      AccumulateOptions o;
      o.target = Target::cpu;
      const std::vector<float> cpu = add.accumulate(x.host_view(), axis, o).to_vector<float>();
      o.target = Target::parallel;
      CHECK(add.accumulate(x.host_view(), axis, o).to_vector<float>() == cpu);
      const std::vector<float> xs = x.host_view().to_vector<float>();  // C order
      const std::int64_t along = shape[static_cast<std::size_t>(axis)];
      const bool last = axis + 1 == static_cast<int>(shape.size());
      if (last && along >= kernels::kScanTilesMinLength) {
        // The tiles order, written out in the test, line by line: bit for bit.
        std::int64_t differ = 0;
        for (std::size_t at = 0; at < xs.size(); at += static_cast<std::size_t>(along)) {
          const std::vector<float> line(xs.begin() + static_cast<std::ptrdiff_t>(at), xs.begin() + static_cast<std::ptrdiff_t>(at) + along);
          const std::vector<float> want = tiles_order_reference(line);
          for (std::size_t i = 0; i < want.size(); ++i) differ += cpu[at + i] != want[i] ? 1 : 0;
        }
        CHECK(differ == 0);
      }
      // Within the order's chain of roundings of the running sum (inputs are >= 0, so the
      // exact prefix bounds every partial): tiles about 23 inside a tile plus one a tile
      // before it; lines a chunk of 256 in order plus one a chunk before it.
      const std::int64_t inner = shape.size() == 2 && axis == 0 ? shape[1] : 1;
      std::vector<double> exact(xs.size());
      for (std::size_t i = 0; i < xs.size(); ++i) {
        const bool first = (static_cast<std::int64_t>(i) / inner) % along == 0;
        exact[i] = xs[i] + (first ? 0.0 : exact[i - static_cast<std::size_t>(inner)]);
      }
      const bool tiles = last && along >= kernels::kScanTilesMinLength;
      const double depth = tiles ? 24.0 + static_cast<double>((along + tile - 1) / tile)
                                 : 256.0 + static_cast<double>((along + kernels::kScanLineChunk - 1) / kernels::kScanLineChunk) + 2;
      for (std::size_t i = 0; i < cpu.size(); ++i) {
        if (!(std::fabs(cpu[i] - exact[i]) <= depth * std::ldexp(1.0, -24) * exact[i])) {
          FAIL_CHECK("element " << i << ": " << cpu[i] << ", want " << exact[i] << " within " << depth << " roundings");
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
  // Tiles hold kScanRows rows of 256 x 16 bytes of the step's input.
  CHECK(kernels::scan_tile(DType::float32) == 4096);
  CHECK(kernels::scan_tile(DType::float64) == 2048);
  CHECK(kernels::scan_tile(DType::complex128) == 1024);
  CHECK(kernels::scan_tile(DType::int8) == 16384);
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

TEST_CASE("accumulate: the single-pass look-back kernel compiles with NVRTC", "[accumulate][nvrtc]") {
  // The tiles kernel differs most between these: 4-, 8- and 16-byte slots in the status, one
  // element a vector (complex128), 16 int8 lanes a thread accumulated in int64.
  const codegen::UfuncSource add{"h6_add", "template <typename T> __device__ T h6_add(T a, T b) { return a + b; }", "", 1, ""};
  struct Types { const char* loop; DType in; DType out; };
  for (const Types& t : {Types{"float32(float32, float32)", DType::float32, DType::float32},
                         Types{"float64(float64, float64)", DType::float64, DType::float64},
                         Types{"complex128(complex128, complex128)", DType::complex128, DType::complex128},
                         Types{"int64(int64, int64)", DType::int8, DType::int64},
                         Types{"int8(int8, int8)", DType::int8, DType::int8}}) {
    CAPTURE(t.loop, dtype_name(t.in));
    const codegen::LoopSpec spec = engine::reduction_spec(Signature::parse(t.loop), t.in, t.out);
    const std::string source = kernels::generate_reduction_source(false, add, {}, spec);
    compile::CudaBinary binary;
    REQUIRE_NOTHROW(binary = compile::compile_cuda(source, "h6_add", "sm_90"));
    // One tiles kernel taking its tile from the counter, waiting on its predecessors' flags;
    // the reduce-then-scan's kernels are gone.
    CHECK(binary.ptx.find(".entry jitvec_scan_tiles(") != std::string::npos);
    CHECK(binary.ptx.find("atom.global.add.u32") != std::string::npos);
    CHECK(binary.ptx.find("nanosleep") != std::string::npos);
    CHECK(binary.ptx.find("jitvec_scan_aggregates") == std::string::npos);
  }
}
