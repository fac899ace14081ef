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

  // An outer product (every input broadcast along one dimension): the N-d vector kernel.
  const auto outer = plan_iteration(Shape{4096, 4096}, {Strides{1, 0}, Strides{0, 1}, Strides{4096, 1}});
  c = choose_kernel(outer, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::nd_vec);
  CHECK(c.lane_mask == 0);

  // Rows that do not start on a vector boundary (a padded pitch of 4097): the plain row kernel.
  const auto padded = plan_iteration(Shape{1024, 4096}, {Strides{4097, 1}, Strides{0, 1}, Strides{4096, 1}});
  c = choose_kernel(padded, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::rows);
  CHECK(c.geometry.grid_x == 4096 / (256 * kRowsUnroll));

  // More rows than a grid's y dimension holds, in 64-bit offsets: the kernel loops over rows.
  const std::int64_t many = (std::int64_t{1} << 31) / 4096 + 8;
  const auto tall = plan_iteration(Shape{many, 4096}, {Strides{4096, 1}, Strides{0, 1}, Strides{4096, 1}});
  REQUIRE_FALSE(tall.fits_32bit);
  CHECK(choose_kernel(tall, Call(2).ops, loop).geometry.grid_y == 65535);

  // Rows shorter than a row block's 2048 elements: the N-d vector kernel, 16 elements a thread.
  const auto short_rows = plan_iteration(Shape{4096, 100}, {Strides{100, 1}, Strides{0, 1}, Strides{100, 1}});
  c = choose_kernel(short_rows, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::nd_vec);
  CHECK(c.shape == ShapeBlock::strided32);
  CHECK(c.block.vector == 4);
  CHECK(c.geometry.grid_x == 4096 * 100 / (256 * 16));
  // ... but rows that are not whole vectors: strided.
  const auto odd_rows = plan_iteration(Shape{4096, 101}, {Strides{101, 1}, Strides{0, 1}, Strides{101, 1}});
  CHECK(choose_kernel(odd_rows, Call(2).ops, loop).kind == KernelKind::strided32);
}

TEST_CASE("transposed inputs go through shared-memory tiles", "[kernels][choice]") {
  const LoopTraits loop = float32_loop(2);
  // out (2048, 1024) = x.T + y, x stored (1024, 2048).
  const auto space = plan_iteration(Shape{2048, 1024}, {Strides{1, 2048}, Strides{1024, 1}, Strides{1024, 1}});
  const KernelChoice c = choose_kernel(space, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::tiled);
  CHECK(c.lane_mask == 0b01);
  CHECK(c.block.second == 0);
  CHECK(c.geometry.grid_x == 2048 / 64);
  CHECK(c.geometry.grid_y == 1024 / 64);
  CHECK(c.geometry.grid_z == 1);
  CHECK(c.geometry.shared_bytes == 64 * 65 * 4);
  CHECK(c.shape == ShapeBlock::strided64);

  // Both inputs transposed, one a float64: each gets its own tile of its own element size.
  Call two(2);
  two.ops.element_bytes[1] = 8;
  const auto both = plan_iteration(Shape{2048, 1024}, {Strides{1, 2048}, Strides{1, 2048}, Strides{1024, 1}});
  const KernelChoice t = choose_kernel(both, two.ops, loop);
  CHECK(t.lane_mask == 0b11);
  CHECK(t.geometry.shared_bytes == 64 * 65 * (4 + 8));

  // A module without the tiled kernel reads the transposed input element by element.
  LoopTraits no_tiles = loop;
  no_tiles.has_tiled = false;
  const KernelChoice direct = choose_kernel(space, Call(2).ops, no_tiles);
  CHECK(direct.kind == KernelKind::nd_vec);
  CHECK(direct.lane_mask == 0b01);
  // A scalar is never tiled.
  CHECK(choose_kernel(space, Call(2, 0b01).ops, loop).kind == KernelKind::nd_vec);
}

TEST_CASE("N-d permutations that move the last axis take tiles with a batch", "[kernels][choice]") {
  const LoopTraits loop = float32_loop(1);
  // x (1024, 512, 512) read as x.permute(2, 1, 0): the output's rows run along x's slowest axis.
  const auto move3 = plan_iteration(Shape{512, 512, 1024}, {Strides{1, 512, 512 * 512}, Strides{512 * 1024, 1024, 1}});
  REQUIRE(move3.ndim() == 3);
  KernelChoice c = choose_kernel(move3, Call(1).ops, loop);
  CHECK(c.kind == KernelKind::tiled);
  CHECK(c.lane_mask == 0b1);
  CHECK(c.block.second == 0);  // tiles span x's fast axis (the output's outermost) and the rows
  CHECK(c.geometry.grid_x == 512 / 64);
  CHECK(c.geometry.grid_y == 1024 / 64);
  CHECK(c.geometry.grid_z == 512);
  CHECK(c.geometry.shared_bytes == 64 * 65 * 4);
  // (64, 64, 256, 256).permute(0, 3, 2, 1): x's fast axis is the output's second.
  const auto move4 = plan_iteration(Shape{64, 256, 256, 64},
                                    {Strides{64 * 256 * 256, 1, 256, 256 * 256}, Strides{256 * 256 * 64, 256 * 64, 64, 1}});
  REQUIRE(move4.ndim() == 4);
  c = choose_kernel(move4, Call(1).ops, loop);
  CHECK(c.kind == KernelKind::tiled);
  CHECK(c.block.second == 1);
  CHECK(c.geometry.grid_x == 256 / 64);
  CHECK(c.geometry.grid_y == 1);
  CHECK(c.geometry.grid_z == 64 * 256);
  // More than 65535 batches: no tiles.
  const auto many = plan_iteration(Shape{65536 * 2, 64, 64}, {Strides{64 * 64, 1, 64}, Strides{64 * 64, 64, 1}});
  CHECK(choose_kernel(many, Call(1).ops, loop).kind != KernelKind::tiled);
  // Tile axes shorter than 32: no tiles.
  const auto thin = plan_iteration(Shape{16, 512, 1024}, {Strides{1, 16 * 1024, 16}, Strides{512 * 1024, 1024, 1}});
  CHECK(choose_kernel(thin, Call(1).ops, loop).kind != KernelKind::tiled);
}

TEST_CASE("the N-d vector kernel reads each input by its stride along the rows", "[kernels][choice]") {
  const LoopTraits loop = float32_loop(3);
  // out (8, 64, 512) = a (8, 1, 512) + b (1, 64, 1) + c[..., ::2]: a vector loads, b splats,
  // c is read element by element (bit 2).
  const auto mixed = plan_iteration(Shape{8, 64, 512}, {Strides{512, 0, 1}, Strides{0, 1, 0}, Strides{64 * 1024, 1024, 2},
                                                        Strides{64 * 512, 512, 1}});
  REQUIRE(mixed.ndim() == 3);
  Call call(3);
  KernelChoice c = choose_kernel(mixed, call.ops, loop);
  CHECK(c.kind == KernelKind::nd_vec);
  CHECK(c.lane_mask == 0b100);
  // An input off its vector boundary is read element by element too.
  call.ops.addresses[0] += 4;
  c = choose_kernel(mixed, call.ops, loop);
  CHECK(c.kind == KernelKind::nd_vec);
  CHECK(c.lane_mask == 0b101);
  // An output off its boundary cannot take 16-byte stores: the row kernel.
  Call moved_out(3);
  moved_out.ops.addresses[3] += 4;
  CHECK(choose_kernel(mixed, moved_out.ops, loop).kind == KernelKind::rows);
  // Past 32-bit offsets: the row kernels.
  const std::int64_t rows = (std::int64_t{1} << 31) / 512 + 1;
  const auto big = plan_iteration(Shape{rows, 1, 512}, {Strides{512, 0, 1}, Strides{0, 1, 0}, Strides{1024, 0, 2}, Strides{512, 512, 1}});
  CHECK(choose_kernel(big, Call(3).ops, loop).kind != KernelKind::nd_vec);
}

TEST_CASE("N-d layouts take the N-d vector kernel, long 2-D rows the row kernels", "[kernels][choice]") {
  const LoopTraits loop = float32_loop(2);
  // (B,1,L) + (1,C,1): no merge makes it 2-D; input 1 is constant along each row.
  const auto bcast3 = plan_iteration(Shape{64, 32, 512}, {Strides{512, 0, 1}, Strides{0, 1, 0}, Strides{32 * 512, 512, 1}});
  REQUIRE(bcast3.ndim() == 3);
  KernelChoice c = choose_kernel(bcast3, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::nd_vec);
  CHECK(c.lane_mask == 0);  // input 1 is splatted: its stride along the rows is 0
  CHECK(c.geometry.grid_x == 64 * 32 * 512 / (256 * 16));
  CHECK(c.geometry.grid_y == 1);

  // 4-D (N,C,H,W) + (1,C,1,1), and 6-D with size-1 axes between full ones.
  const auto bcast4 = plan_iteration(Shape{8, 16, 32, 1024},
                                     {Strides{16 * 32 * 1024, 32 * 1024, 1024, 1}, Strides{0, 1, 0, 0}, Strides{16 * 32 * 1024, 32 * 1024, 1024, 1}});
  CHECK(choose_kernel(bcast4, Call(2).ops, loop).kind == KernelKind::nd_vec);
  const auto bcast6 = plan_iteration(Shape{4, 2, 4, 2, 4, 512},
                                     {Strides{2 * 4 * 2 * 4 * 512, 0, 2 * 4 * 512, 0, 512, 1},
                                      Strides{0, 4 * 2 * 4, 0, 4, 0, 0},
                                      Strides{2 * 4 * 2 * 4 * 512, 4 * 2 * 4 * 512, 2 * 4 * 512, 4 * 512, 512, 1}});
  REQUIRE(bcast6.ndim() >= 4);
  c = choose_kernel(bcast6, Call(2).ops, loop);
  CHECK(c.kind == KernelKind::nd_vec);
  CHECK(c.geometry.grid_x == static_cast<unsigned>(bcast6.numel / (256 * 16)));

  // A stepped view x[::2] (one dimension, stride 2): the scalar row kernel, one row.
  const auto stepped = plan_iteration(Shape{1 << 20}, {Strides{2}, Strides{0}, Strides{1}}, 0b10);
  REQUIRE(stepped.ndim() == 1);
  c = choose_kernel(stepped, Call(2, 0b10).ops, loop);
  CHECK(c.kind == KernelKind::rows);
  CHECK(c.geometry.grid_y == 1);
  CHECK(c.geometry.grid_x == (1u << 20) / (256 * kRowsUnroll));

  // Stepped along an outer axis (x[::2, :]): rows still run contiguously, 16-byte loads.
  const auto outer_step = plan_iteration(Shape{512, 1024}, {Strides{2048, 1}, Strides{1024, 1}, Strides{1024, 1}});
  CHECK(choose_kernel(outer_step, Call(2).ops, loop).kind == KernelKind::nd_vec);
  const auto outer_step_long = plan_iteration(Shape{512, 4096}, {Strides{8192, 1}, Strides{4096, 1}, Strides{4096, 1}});
  CHECK(choose_kernel(outer_step_long, Call(2).ops, loop).kind == KernelKind::rows_vec);

  // A 3-D permutation that keeps the last axis: (A,B,C) read as (B,A,C).
  const auto permuted = plan_iteration(Shape{64, 128, 1024}, {Strides{1024, 64 * 1024, 1}, Strides{128 * 1024, 1024, 1}, Strides{128 * 1024, 1024, 1}});
  REQUIRE(permuted.ndim() == 3);
  CHECK(choose_kernel(permuted, Call(2).ops, loop).kind == KernelKind::nd_vec);

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
