// kernels::choose_kernel: which kernel, grid, shared memory and lane mask each layout gets.
// Pure: runs without a GPU. A change of choice for any of these layouts shows here first.
#include "catch.hpp"
#include "codegen/loop_spec.hpp"
#include "kernels/choose_kernel.hpp"
#include "kernels/rows.hpp"
#include "kernels/strided.hpp"
#include "kernels/tiled.hpp"
#include "launch/iteration_space.hpp"

using namespace jitvec;
using namespace jitvec::kernels;
using jitvec::launch::plan_iteration;

namespace {

constexpr std::uintptr_t kAligned = 0x7f0000000000;  // 256-byte aligned device address

// A call of a float32 loop with `inputs` inputs: every operand 4 bytes, aligned unless moved.
struct Call {
  explicit Call(int inputs, std::uint32_t scalars = 0) {
    ops.inputs = inputs;
    ops.scalar_mask = scalars;
    for (int k = 0; k <= inputs; ++k) {
      ops.addresses[k] = (k < inputs && ((scalars >> k) & 1u)) ? 0 : kAligned + 0x100000 * k;
      ops.element_bytes[k] = 4;
    }
  }
  CallOperands ops;
};

LoopTraits float32_loop(int inputs) {
  std::string sig = "float32(";
  for (int k = 0; k < inputs; ++k) sig += k ? ", float32" : "float32";
  return LoopTraits::of(codegen::LoopSpec::exact(Signature::parse(sig + ")")));
}

}  // namespace

TEST_CASE("contiguous calls: vector kernel when aligned, one wave of grid-stride blocks when not", "[kernels][choice]") {
  const LoopTraits loop = float32_loop(2);
  REQUIRE(loop.vector.vec == 4);
  REQUIRE(loop.vector.unroll == 2);
  const auto space = plan_iteration(Shape{1 << 20}, {Strides{1}, Strides{1}, Strides{1}});
  Call call(2);
  KernelChoice c = choose_kernel(space, call.ops, loop);
  CHECK(c.kind == KernelKind::contig_vec);
  CHECK(c.shape == ShapeBlock::count);
  CHECK(c.geometry.grid_x == (1u << 20) / (256 * 4 * 2));
  CHECK(c.geometry.block == 256);
  CHECK_FALSE(c.one_wave);

  call.ops.addresses[1] += 4;  // input 1 off its 16-byte boundary
  c = choose_kernel(space, call.ops, loop);
  CHECK(c.kind == KernelKind::contig);
  CHECK(c.one_wave);
  CHECK(c.geometry.grid_x == (1u << 20) / 256);

  Call scalar_call(2, 0b10);  // a misaligned "address" of a scalar does not matter
  scalar_call.ops.addresses[1] = 4;
  CHECK(choose_kernel(space, scalar_call.ops, loop).kind == KernelKind::contig_vec);
}

TEST_CASE("0-d and empty calls", "[kernels][choice]") {
  const LoopTraits loop = float32_loop(1);
  const auto zero_d = plan_iteration(Shape{}, {Strides{}, Strides{}});
  REQUIRE(zero_d.numel == 1);
  // A planned 0-d space has one dimension of size 1 whose strides are 0: one strided block.
  // (The engine sends plain contiguous calls, 0-d ones included, straight to the flat choice.)
  const KernelChoice c = choose_kernel(zero_d, Call(1).ops, loop);
  CHECK(c.kind == KernelKind::strided32);
  CHECK(c.geometry.grid_x == 1);
  const KernelChoice flat = choose_flat_kernel(1, Call(1).ops, loop);
  CHECK(flat.kind == KernelKind::contig_vec);
  CHECK(flat.geometry.grid_x == 1);
  const auto empty = plan_iteration(Shape{0, 5}, {Strides{5, 1}, Strides{5, 1}});
  CHECK(empty.numel == 0);
  CHECK(choose_kernel(empty, Call(1).ops, loop).geometry.grid_x == 0);  // the launcher skips it
}

TEST_CASE("2-D broadcasts take the row kernels", "[kernels][choice]") {
  const LoopTraits loop = float32_loop(2);
  // (1024, 4096) = x (1024, 4096) + row (4096,): every operand runs along the rows.
  const auto row = plan_iteration(Shape{1024, 4096}, {Strides{4096, 1}, Strides{0, 1}, Strides{4096, 1}});
  KernelChoice c = choose_kernel(row, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::rows_vec);
  CHECK(c.lane_mask == 0);
  CHECK(c.shape == ShapeBlock::strided64);
  CHECK(c.geometry.grid_x == 4096 / 4 / (256 * 2));
  CHECK(c.geometry.grid_y == 1024);

  // x (1024, 4096) + column (1024, 1): input 1 is constant along each row.
  const auto column = plan_iteration(Shape{1024, 4096}, {Strides{4096, 1}, Strides{1, 0}, Strides{4096, 1}});
  c = choose_kernel(column, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::rows_vec);
  CHECK(c.lane_mask == 0b10);

  // Rows that do not start on a vector boundary (a padded pitch of 4097): the plain row kernel.
  const auto padded = plan_iteration(Shape{1024, 4096}, {Strides{4097, 1}, Strides{0, 1}, Strides{4096, 1}});
  c = choose_kernel(padded, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::rows);
  CHECK(c.geometry.grid_x == 4096 / (256 * kRowsUnroll));

  // More rows than a grid's y dimension holds: the kernel loops over rows.
  const auto tall = plan_iteration(Shape{100000, 512}, {Strides{512, 1}, Strides{0, 1}, Strides{512, 1}});
  CHECK(choose_kernel(tall, Call(2).ops, loop).geometry.grid_y == 65535);

  // Short rows leave a row kernel's threads idle: strided.
  const auto short_rows = plan_iteration(Shape{4096, 100}, {Strides{100, 1}, Strides{0, 1}, Strides{100, 1}});
  CHECK(choose_kernel(short_rows, Call(2).ops, loop).kind == KernelKind::strided32);
}

TEST_CASE("transposed inputs go through shared-memory tiles", "[kernels][choice]") {
  const LoopTraits loop = float32_loop(2);
  // out (2048, 1024) = x.T + y, x stored (1024, 2048).
  const auto space = plan_iteration(Shape{2048, 1024}, {Strides{1, 2048}, Strides{1024, 1}, Strides{1024, 1}});
  const KernelChoice c = choose_kernel(space, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::tiled2d);
  CHECK(c.lane_mask == 0b01);
  CHECK(c.geometry.grid_x == 2048 / 64);
  CHECK(c.geometry.grid_y == 1024 / 64);
  CHECK(c.geometry.shared_bytes == 64 * 65 * 4);
  CHECK(c.shape == ShapeBlock::strided64);

  // Both inputs transposed, one a float64: each gets its own tile of its own element size.
  Call two(2);
  two.ops.element_bytes[1] = 8;
  const auto both = plan_iteration(Shape{2048, 1024}, {Strides{1, 2048}, Strides{1, 2048}, Strides{1024, 1}});
  const KernelChoice t = choose_kernel(both, two.ops, loop);
  CHECK(t.lane_mask == 0b11);
  CHECK(t.geometry.shared_bytes == 64 * 65 * (4 + 8));

  // A module without the tiled kernel falls back to the row kernel (long rows).
  LoopTraits no_tiles = loop;
  no_tiles.has_tiled = false;
  CHECK(choose_kernel(space, Call(2).ops, no_tiles).kind == KernelKind::rows);
  // A scalar is never tiled.
  CHECK(choose_kernel(space, Call(2, 0b01).ops, loop).kind == KernelKind::rows_vec);
}

TEST_CASE("N-d layouts with long rows take the row kernels", "[kernels][choice]") {
  const LoopTraits loop = float32_loop(2);
  // (B,1,L) + (1,C,1): no merge makes it 2-D; input 1 is constant along each row.
  const auto bcast3 = plan_iteration(Shape{64, 32, 512}, {Strides{512, 0, 1}, Strides{0, 1, 0}, Strides{32 * 512, 512, 1}});
  REQUIRE(bcast3.ndim() == 3);
  KernelChoice c = choose_kernel(bcast3, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::rows_vec);
  CHECK(c.lane_mask == 0b10);
  CHECK(c.geometry.grid_x == 1);
  CHECK(c.geometry.grid_y == 64 * 32);

  // 4-D (N,C,H,W) + (1,C,1,1), and 6-D with size-1 axes between full ones.
  const auto bcast4 = plan_iteration(Shape{8, 16, 32, 1024},
                                     {Strides{16 * 32 * 1024, 32 * 1024, 1024, 1}, Strides{0, 1, 0, 0}, Strides{16 * 32 * 1024, 32 * 1024, 1024, 1}});
  CHECK(choose_kernel(bcast4, Call(2).ops, loop).kind == KernelKind::rows_vec);
  const auto bcast6 = plan_iteration(Shape{4, 2, 4, 2, 4, 512},
                                     {Strides{2 * 4 * 2 * 4 * 512, 0, 2 * 4 * 512, 0, 512, 1},
                                      Strides{0, 4 * 2 * 4, 0, 4, 0, 0},
                                      Strides{2 * 4 * 2 * 4 * 512, 4 * 2 * 4 * 512, 2 * 4 * 512, 4 * 512, 512, 1}});
  REQUIRE(bcast6.ndim() >= 4);
  c = choose_kernel(bcast6, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::rows_vec);
  CHECK(c.geometry.grid_y == static_cast<unsigned>(bcast6.numel / bcast6.sizes.back()));

  // A stepped view x[::2] (one dimension, stride 2): the scalar row kernel, one row.
  const auto stepped = plan_iteration(Shape{1 << 20}, {Strides{2}, Strides{0}, Strides{1}}, 0b10);
  REQUIRE(stepped.ndim() == 1);
  c = choose_kernel(stepped, Call(2, 0b10).ops, loop);
  CHECK(c.kind == KernelKind::rows);
  CHECK(c.geometry.grid_y == 1);
  CHECK(c.geometry.grid_x == (1u << 20) / (256 * kRowsUnroll));

  // Stepped along an outer axis (x[::2, :]): rows still run contiguously, 16-byte loads.
  const auto outer_step = plan_iteration(Shape{512, 1024}, {Strides{2048, 1}, Strides{1024, 1}, Strides{1024, 1}});
  CHECK(choose_kernel(outer_step, Call(2).ops, loop).kind == KernelKind::rows_vec);

  // A 3-D permutation that keeps the last axis: (A,B,C) read as (B,A,C).
  const auto permuted = plan_iteration(Shape{64, 128, 1024}, {Strides{1024, 64 * 1024, 1}, Strides{128 * 1024, 1024, 1}, Strides{128 * 1024, 1024, 1}});
  REQUIRE(permuted.ndim() == 3);
  CHECK(choose_kernel(permuted, Call(2).ops, loop).kind == KernelKind::rows_vec);

  // A strided out= (every other column): the scalar row kernel.
  const auto strided_out = plan_iteration(Shape{512, 1024}, {Strides{1024, 1}, Strides{0, 1}, Strides{4096, 2}});
  CHECK(choose_kernel(strided_out, Call(2).ops, loop).kind == KernelKind::rows);

  // Small last dimensions behind large outer ones: the strided kernel.
  const auto small_last = plan_iteration(Shape{1 << 20, 3}, {Strides{3, 1}, Strides{0, 1}, Strides{3, 1}});
  CHECK(choose_kernel(small_last, Call(2).ops, loop).kind == KernelKind::strided32);
}

TEST_CASE("spaces past 2^31 elements index with 64 bits", "[kernels][choice]") {
  const LoopTraits loop = float32_loop(2);
  const std::int64_t big = (std::int64_t{1} << 31) + 1024;
  // Long rows: the row kernels take 64-bit offsets.
  const auto huge = plan_iteration(Shape{big / 1024, 1024}, {Strides{4096, 2}, Strides{1024, 1}, Strides{1024, 1}});
  REQUIRE(huge.ndim() == 2);
  REQUIRE_FALSE(huge.fits_32bit);
  CHECK(choose_kernel(huge, Call(2).ops, loop).kind == KernelKind::rows);
  // Short rows: jitvec_strided64.
  const auto huge_short = plan_iteration(Shape{big / 64, 64}, {Strides{256, 2}, Strides{64, 1}, Strides{64, 1}});
  REQUIRE_FALSE(huge_short.fits_32bit);
  const KernelChoice c = choose_kernel(huge_short, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::strided64);
  CHECK(c.shape == ShapeBlock::strided64);
}

TEST_CASE("the flat choice for the host pipeline's chunks", "[kernels][choice]") {
  const LoopTraits loop = float32_loop(3);
  const KernelChoice c = choose_flat_kernel(1000, Call(3).ops, loop);
  CHECK(c.kind == KernelKind::contig_vec);
  CHECK(c.geometry.grid_x == 1);
  CHECK(describe(c) == "jitvec_contig_vec grid 1x1x1 block 256 shared 0 lanes 0x0");
}

TEST_CASE("several outputs: every output must be aligned for the vector kernels", "[kernels][choice][multi_output]") {
  // (float32, float64)(float32): the float64 output is the widest operand, so 2 elements a vector.
  const LoopTraits loop = LoopTraits::of(codegen::LoopSpec::exact(Signature::parse("(float32, float64)(float32)")));
  REQUIRE(loop.vector.vec == 2);
  CallOperands ops;
  ops.inputs = 1;
  ops.outputs = 2;
  ops.addresses = {kAligned, kAligned + 0x100000, kAligned + 0x200000};
  ops.element_bytes = {4, 4, 8};
  const auto flat = plan_iteration(Shape{1 << 20}, {Strides{1}, Strides{1}, Strides{1}});
  CHECK(choose_kernel(flat, ops, loop).kind == KernelKind::contig_vec);
  ops.addresses[2] += 8;  // the second output one float64 off its 16-byte boundary
  CHECK(choose_kernel(flat, ops, loop).kind == KernelKind::contig);
  // Rows: the vector row kernel also needs every output's rows on vector boundaries.
  const auto rows = plan_iteration(Shape{64, 4096}, {Strides{4096, 1}, Strides{4096, 1}, Strides{8192, 1}});
  CHECK(choose_kernel(rows, ops, loop).kind == KernelKind::rows);
  ops.addresses[2] -= 8;
  CHECK(choose_kernel(rows, ops, loop).kind == KernelKind::rows_vec);
}
