// Broadcasting, dimension coalescing, index width and the strided parameter block.
#include <cstring>

#include "catch.hpp"
#include "launch/broadcast.hpp"
#include "launch/iteration_space.hpp"
#include "launch/strided_params.hpp"
#include "support.hpp"

using namespace jitvec;
using namespace jitvec::launch;

TEST_CASE("shapes broadcast by NumPy's rules", "[layout]") {
  Shape a{3, 1}, b{1, 4}, c{4}, d{};
  CHECK(broadcast_shapes({{&a, 1}, {&b, 2}}) == Shape{3, 4});
  CHECK(broadcast_shapes({{&a, 1}, {&c, 2}}) == Shape{3, 4});
  CHECK(broadcast_shapes({{&d, 1}, {&c, 2}}) == Shape{4});
  Shape z{0}, one{1};
  CHECK(broadcast_shapes({{&z, 1}, {&one, 2}}) == Shape{0});
  Shape bad{3};
  try {
    broadcast_shapes({{&a, 1}, {&b, 2}, {&bad, 3}});
    FAIL("expected BroadcastError");
  } catch (const BroadcastError& e) {
    const std::string m = e.what();
    CHECK_THAT(m, Catch::Matchers::Contains("argument 3: (3,)") &&
                      Catch::Matchers::Contains("argument 1: (3, 1)") &&
                      Catch::Matchers::Contains("argument 2: (1, 4)"));
  }
  CHECK(broadcast_strides(Shape{3, 1}, Strides{1, 1}, Shape{2, 3, 4}) == Strides{0, 1, 0});
}

TEST_CASE("contiguous N-d calls coalesce to one dimension", "[layout]") {
  const IterationSpace s = plan_iteration(Shape{4, 5, 6}, {Strides{30, 6, 1}, Strides{30, 6, 1}});
  CHECK(s.sizes == Shape{120});
  CHECK(s.contiguous);
  CHECK(s.fits_32bit);
}

TEST_CASE("size-1 dimensions are dropped and scalars do not block contiguity", "[layout]") {
  const IterationSpace s =
      plan_iteration(Shape{1, 7, 1, 3}, {Strides{0, 0, 0, 0}, Strides{21, 3, 3, 1}}, 0b01);
  CHECK(s.sizes == Shape{21});
  CHECK(s.contiguous);
}

TEST_CASE("broadcast and transposed operands keep their dimensions", "[layout]") {
  // (3,4) output, a row (1,4) input: the row's outer stride 0 stops the merge.
  const IterationSpace row = plan_iteration(Shape{3, 4}, {Strides{0, 1}, Strides{4, 1}});
  CHECK(row.sizes == Shape{3, 4});
  CHECK_FALSE(row.contiguous);
  // A transposed output is walked in its own memory order.
  const IterationSpace t = plan_iteration(Shape{3, 4}, {Strides{4, 1}, Strides{1, 3}});
  CHECK(t.sizes == Shape{4, 3});
  CHECK(t.strides[1] == Strides{3, 1});
  CHECK(t.strides[0] == Strides{1, 4});
}

TEST_CASE("32-bit indexing only when every offset fits", "[layout]") {
  const std::int64_t big = std::int64_t{1} << 31;
  CHECK_FALSE(plan_iteration(Shape{big}, {Strides{1}, Strides{1}}).fits_32bit);
  CHECK(plan_iteration(Shape{big - 1}, {Strides{1}, Strides{1}}).fits_32bit);
  // Few elements, but a huge stride: offsets do not fit.
  CHECK_FALSE(plan_iteration(Shape{2, 3}, {Strides{big, 1}, Strides{3, 1}}).fits_32bit);
  // Negative strides count by magnitude.
  CHECK(plan_iteration(Shape{1000}, {Strides{-1}, Strides{1}}).fits_32bit);
}

TEST_CASE("more dimensions than the kernels hold is a clear error", "[layout][errors]") {
  Shape shape(17, 2);
  Strides alternating(17), out(17);
  std::int64_t step = 1;
  for (int d = 16; d >= 0; --d) {
    alternating[d] = d % 2 ? 0 : 1;
    out[d] = step;
    step *= 2;
  }
  CHECK_THROWS_WITH(plan_iteration(shape, {alternating, out}),
                    Catch::Matchers::Contains("17 dimensions") && Catch::Matchers::Contains("at most 16"));
}

TEST_CASE("magic-number division matches integer division", "[layout]") {
  std::mt19937_64& gen = jitvec_test::rng();
  std::uniform_int_distribution<std::uint32_t> divisors(1, 0x7fffffff), numerators(0, 0x7fffffff);
  std::vector<std::uint32_t> ds = {1, 2, 3, 7, 255, 256, 1000, 65535, 65536, 0x7fffffff};
  for (int i = 0; i < 200; ++i) ds.push_back(divisors(gen) >> (i % 31));
  for (std::uint32_t d : ds) {
    if (d == 0) continue;
    const FastDivisor f = make_fast_divisor(d);
    for (int j = 0; j < 200; ++j) {
      std::uint32_t n = numerators(gen);
      if (j < 3) n = j == 0 ? 0 : j == 1 ? 0x7fffffff : d - 1;
      const std::uint32_t hi = static_cast<std::uint32_t>((std::uint64_t{n} * f.magic) >> 32);
      const std::uint32_t q = (hi + n) >> f.shift;
      REQUIRE(q == n / d);
    }
  }
}

TEST_CASE("the strided parameter block is laid out innermost first", "[layout]") {
  const IterationSpace s = plan_iteration(Shape{3, 4}, {Strides{0, 1}, Strides{4, 1}});
  StridedParamsBuffer block;
  fill_strided_params(s, IndexWidth::bits64, block);
  CHECK(block.size == strided_params_size(IndexWidth::bits64, 2));
  std::int64_t fields[2 + kMaxDims + 2 * kMaxDims];
  std::memcpy(fields, block.bytes, sizeof fields);
  CHECK(fields[0] == 12);           // numel
  CHECK(fields[1] == 2);            // ndim
  CHECK(fields[2] == 4);            // sizes[0]: innermost
  CHECK(fields[3] == 3);
  CHECK(fields[2 + kMaxDims] == 1);       // operand 0, innermost stride
  CHECK(fields[2 + kMaxDims + 1] == 0);   // operand 0, outer stride (broadcast row)
  CHECK(fields[2 + 2 * kMaxDims + 1] == 4);  // output, outer stride
}

TEST_CASE("a block can count vectors and move a tile axis to dimension 1", "[layout]") {
  // (5, 6, 8) with operand 0 stored (8, 6, 5): its unit stride is along the outermost dimension.
  const IterationSpace s = plan_iteration(Shape{5, 6, 8}, {Strides{1, 5, 30}, Strides{48, 8, 1}});
  REQUIRE(s.ndim() == 3);
  StridedParamsBuffer block;
  block.size = fill_strided_params(s, IndexWidth::bits64, block.bytes, BlockLayout{1, 0});
  std::int64_t fields[2 + kMaxDims + 2 * kMaxDims];
  std::memcpy(fields, block.bytes, sizeof fields);
  CHECK(fields[0] == 240);
  CHECK(fields[2] == 8);  // dimension 0 stays the innermost
  CHECK(fields[3] == 5);  // dimension 1 is the space's outermost ...
  CHECK(fields[4] == 6);  // ... which traded places with the middle one
  CHECK(fields[2 + kMaxDims] == 30);
  CHECK(fields[2 + kMaxDims + 1] == 1);
  CHECK(fields[2 + kMaxDims + 2] == 5);
  CHECK(fields[2 + 2 * kMaxDims + 1] == 48);
  CHECK(fields[2 + 2 * kMaxDims + 2] == 8);

  // Vectors of 4 along the innermost dimension: its size and the count are in vectors, with
  // the magic divisor of the vector count; strides stay in elements.
  std::uint32_t words[2 + 3 * kMaxDims + 2 * kMaxDims];
  block.size = fill_strided_params(s, IndexWidth::bits32, block.bytes, BlockLayout{4, -1});
  std::memcpy(words, block.bytes, sizeof words);
  CHECK(words[0] == 60);
  CHECK(words[2] == 2);
  CHECK(words[3] == 6);
  const FastDivisor two = make_fast_divisor(2);
  CHECK(words[2 + kMaxDims] == two.magic);
  CHECK(words[2 + 2 * kMaxDims] == two.shift);
  CHECK(words[2 + 3 * kMaxDims] == 30);  // operand 0's innermost stride, in elements
}

TEST_CASE("slices follow Python's rules, and the documented reversal reverses", "[layout]") {
  std::vector<float> values(7);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 1.5f;
  const Array a = from_vector(values);
  const std::int64_t n = a.size();
  // The example of Array::slice's comment: a stop below -n walks down to element 0.
  const std::vector<float> reversed = a.slice(0, n - 1, -n - 1, -1).to_vector<float>();
  CHECK(reversed == std::vector<float>(values.rbegin(), values.rend()));
  // A stop of -1 is the last element, as in Python: a[n-1:-1:-1] is empty.
  CHECK(a.slice(0, n - 1, -1, -1).size() == 0);
  // Python's a[5:1:-2] == [a[5], a[3]] and a[-3:] == the last three.
  CHECK(a.slice(0, 5, 1, -2).to_vector<float>() == std::vector<float>{values[5], values[3]});
  CHECK(a.slice(0, -3, n).to_vector<float>() ==
        std::vector<float>{values[4], values[5], values[6]});
}
