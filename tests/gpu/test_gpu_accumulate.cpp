// Ufunc::accumulate on the cuda target, whose tiles kind is one pass with a deterministic
// look-back (kernels/scan.hpp): the length table of tests/unit/accumulate_cases.hpp (around
// rows, tiles, 32, 64 and kScanLookBackWindow tiles) for every dtype including complex128, with
// device and host arrays; 2-d arrays along either axis; float32 in the documented tiles order
// bit for bit (tiles_order_reference: the strict chain of the tiles' aggregates) at tile counts
// around the look-back's window and with millions of elements in several lines; complex128 and
// int8 read into int64 across many tiles and lines; a poisoned strided out=; both kinds bit for
// bit against the cpu target (whose host entries run the same order); the same bits in 20 runs
// of one call (a race in the look-back would show there). Each test skips, saying why, without
// a GPU.
#include "../unit/accumulate_cases.hpp"

using namespace jitvec;
using namespace jitvec_test;

namespace {

// Elements of `got` that differ from `want` (the first five reported).
template <typename T>
std::int64_t count_differing(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  REQUIRE(got.size() == want.size());
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i]) && differ++ < 5) FAIL_CHECK(what << ": element " << i << " differs");
  }
  return differ;
}

std::vector<float> uniform_floats(std::int64_t n) {
  std::vector<float> x(static_cast<std::size_t>(n));
  std::uniform_real_distribution<float> pick(0.0f, 1.0f);
  for (float& v : x) v = pick(rng());
  return x;
}

}  // namespace

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

TEST_CASE("GPU accumulate: float32 sums in the documented tiles order, bit for bit, 20 runs alike", "[gpu][accumulate]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Ufunc add = accumulate_engine().ufunc("h5_add");
  const std::int64_t tile = kernels::scan_tile(DType::float32);
  const std::int64_t window = kernels::kScanLookBackWindow;
  // Tile counts around the warp's 32 and the look-back window (a look-back that steps back,
  // a fold across windows), a partial last tile or none; then 2^24 and more (thousands of
  // tiles: many blocks in flight, look-backs over several windows).
  std::vector<std::int64_t> lengths = {1000, 2 * tile, 31 * tile + 1, 32 * tile, 33 * tile + 17, 64 * tile,
                                       65 * tile + 3, window * tile - 1, window * tile, window * tile + 1,
                                       2 * window * tile + 5, (std::int64_t{1} << 24) + 3, tile * tile + 70 * tile + 3};
  for (std::int64_t n : lengths) {
    CAPTURE(n, (n + tile - 1) / tile);
    const std::vector<float> x = uniform_floats(n);
    const std::vector<float> want = tiles_order_reference(x);
    AccumulateOptions o;
    o.target = Target::cuda;
    const Array dx = to_device(x);
    const std::vector<float> got = add.accumulate(dx, 0, o).to_vector<float>();
    CHECK(count_differing(got, want, "cuda against the written-out order") == 0);
    o.target = Target::cpu;
    CHECK(count_differing(add.accumulate(from_vector(x), 0, o).to_vector<float>(), want, "cpu against it") == 0);
    o.target = Target::cuda;
    const int runs = n >= (std::int64_t{1} << 24) ? 20 : 3;
    std::int64_t unlike = 0;
    for (int run = 0; run < runs; ++run) unlike += add.accumulate(dx, 0, o).to_vector<float>() == got ? 0 : 1;
    CHECK(unlike == 0);
  }
}

TEST_CASE("GPU accumulate: many tiles in several lines, float32, complex128 and int8 into int64", "[gpu][accumulate]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Engine& engine = accumulate_engine();
  Ufunc add = engine.ufunc("h5_add");
  const std::int64_t big = std::int64_t{1} << 24;
  // float32: every line in the documented order, and the cpu's bits.
  {
    const std::int64_t lines = 3, n = big + 5;
    const std::vector<float> x = uniform_floats(lines * n);
    AccumulateOptions o;
    o.target = Target::cuda;
    const Array dx = to_device(x, {lines, n});
    const std::vector<float> got = add.accumulate(dx, 1, o).to_vector<float>();
    std::vector<float> want;
    for (std::int64_t l = 0; l < lines; ++l) {
      const std::vector<float> line(x.begin() + l * n, x.begin() + (l + 1) * n);
      const std::vector<float> w = tiles_order_reference(line);
      want.insert(want.end(), w.begin(), w.end());
    }
    CHECK(count_differing(got, want, "float32 lines against the written-out order") == 0);
    std::int64_t unlike = 0;
    for (int run = 0; run < 20; ++run) unlike += add.accumulate(dx, 1, o).to_vector<float>() == got ? 0 : 1;
    CHECK(unlike == 0);
  }
  // complex128 (one element a 16-byte vector, 16-byte slots) and int8 summed in int64 (16
  // elements a thread): exact against the integer prefix sums, and the cpu's bits.
  struct Case { DType input; std::optional<DType> dtype; DType result; std::int64_t lines, n; };
  for (const Case c : {Case{DType::complex128, std::nullopt, DType::complex128, 2, (big >> 2) + 1001},
                       Case{DType::int8, DType::int64, DType::int64, 3, big + 7}}) {
    CAPTURE(dtype_name(c.input), c.lines, c.n);
    const Array x = random_integers(c.input, c.lines * c.n, -8, 8).reshape({c.lines, c.n});
    AccumulateOptions o;
    o.dtype = c.dtype;
    o.target = Target::cpu;
    const Array cpu = add.accumulate(x, 1, o);
    o.target = Target::cuda;
    const Array dx = x.to_device();
    const Array gpu = add.accumulate(dx, 1, o).to_host();
    REQUIRE(gpu.size() == cpu.size());
    const std::size_t bytes = static_cast<std::size_t>(gpu.size()) * dtype_size(c.result);
    CHECK(std::memcmp(gpu.data(), cpu.data(), bytes) == 0);
    std::int64_t wrong = 0;
    for (std::int64_t l = 0; l < c.lines; ++l) {
      Value run{0, 0};
      for (std::int64_t i = 0; i < c.n; ++i) {
        const Value v = element2(x, l, i);
        run = {run.first + v.first, run.second + v.second};
        if (element2(gpu, l, i) != run && wrong++ < 5) FAIL_CHECK("line " << l << " element " << i << " is wrong");
      }
    }
    CHECK(wrong == 0);
    std::int64_t unlike = 0;
    for (int run = 0; run < 20; ++run) {
      unlike += std::memcmp(add.accumulate(dx, 1, o).to_host().data(), gpu.data(), bytes) == 0 ? 0 : 1;
    }
    CHECK(unlike == 0);
  }
}

TEST_CASE("GPU accumulate: a poisoned strided out= across many tiles and lines", "[gpu][accumulate]") {
  if (!gpu_usable()) JITVEC_SKIP(gpu_skip_reason());
  Ufunc add = accumulate_engine().ufunc("h5_add");
  const std::int64_t tile = kernels::scan_tile(DType::float32);
  const std::int64_t lines = 3, n = 300 * tile + 77;
  const std::vector<float> x = uniform_floats(lines * n);
  AccumulateOptions o;
  o.target = Target::cpu;
  const std::vector<float> cpu = add.accumulate(from_vector(x).reshape({lines, n}), 1, o).to_vector<float>();
  // out= holds every other element of each row of a poisoned (lines, 2n + 1) buffer, the rows
  // in reverse order: scalar stores, negative line stride.
  const Array buffer = poisoned(DType::float32, lines * (2 * n + 1)).reshape({lines, 2 * n + 1}).to_device();
  o.target = Target::cuda;
  o.out = buffer.slice(0, lines - 1, -lines - 1, -1).slice(1, 1, 2 * n + 1, 2);
  add.accumulate(to_device(x, {lines, n}), 1, o);
  const Array host = buffer.to_host();
  std::int64_t differ = 0, touched = 0;
  for (std::int64_t l = 0; l < lines; ++l) {
    const std::int64_t row = lines - 1 - l;  // out='s line l lies in buffer row lines-1-l
    for (std::int64_t j = 0; j < 2 * n + 1; ++j) {
      const std::int64_t at = row * (2 * n + 1) + j;
      if (j % 2 == 0) {
        touched += is_poison(host, at) ? 0 : 1;
      } else {
        float v;
        std::memcpy(&v, static_cast<const unsigned char*>(host.data()) + at * 4, 4);
        const float want = cpu[static_cast<std::size_t>(l * n + j / 2)];
        if (std::memcmp(&v, &want, 4) != 0 && differ++ < 5) FAIL_CHECK("line " << l << " element " << j / 2);
      }
    }
  }
  CHECK(differ == 0);
  CHECK(touched == 0);
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
