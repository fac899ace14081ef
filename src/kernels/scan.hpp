// src/kernels/scan.hpp: the scan kernel family (Ufunc::accumulate: an inclusive scan along one
// axis, any strides), over kernels::ReductionParams (reduce.hpp): `outputs` lines (the other
// dimensions, merged; in and out strides), `length` elements along the axis (input stride
// red_strides[0], output stride axis_out_stride), cut into chunks of `chunk` elements.
//
// Every fold order below is fixed by the shape, the strides' kind and the types alone, never
// by timing, so a result is the same from run to run and on every target.
//
//   tiles  (the axis is the fast one) fixed tiles along each line. A tile is kScanRows rows of
//          kCudaBlock x VEC elements (VEC = 16 bytes of the input type: 4096 float32, 2048
//          float64, 1024 complex128); thread t holds the VEC consecutive elements t*VEC... of
//          each row (one 16-byte load, coalesced across the warp; a 16-byte store on the way
//          out). The order of a row: each thread folds its VEC elements in order (x0, f(x0,
//          x1), ...); the threads' sums are scanned in each warp by Kogge-Stone steps (lane i
//          takes f(s[i-d], s[i]) for d = 1, 2, 4, 8, 16); the warps' sums W are folded in
//          order; a thread's exclusive prefix is f(W0..W(w-1) folded, its lane's predecessor's
//          scan value). A tile's aggregate A(k) is its rows' sums chained from no carry:
//          f(...f(R0, R1)..., R(rows-1)). The tiles of a line are chained in two levels:
//          groups of kScanGroupTiles = 32 consecutive tiles (the last group may be short);
//          GA(j) = f(...f(A(32j), A(32j+1))..., A(last tile of group j)) in order inside the
//          group; GP(0) = GA(0), GP(j) = f(GP(j-1), GA(j)) in order across the groups; for
//          tile k of group j, LocalExcl(k) = f(...f(A(32j), A(32j+1))..., A(k-1)) (none for
//          the group's first tile) and carry(k) = f(GP(j-1), LocalExcl(k)) with missing terms
//          left out (j = 0: LocalExcl(k) alone; a group's first tile: GP(j-1) alone; tile 0:
//          none). In tile k the rows are chained from carry(-1) = carry(k), carry(u) =
//          f(carry(u-1), row u's sum), and element x of row u is f(f(carry(u-1), thread
//          prefix), thread's inclusive fold at x) (missing terms left out).
//          GPU: one pass, a decoupled look-back that keeps this order (jitvec_scan_tiles). A
//          block takes the next tile from a counter (so every tile it waits on belongs to a
//          block already running or done), reads it once into registers and publishes A(k) in
//          its tile status; then warp 0: (1) lanes 0..q-1 (q = k mod 32) wait for the
//          aggregates of the tiles before k in its group, lane 0 folds them in order by
//          shuffles: LocalExcl(k); (2) the group's last tile publishes GA(j) in the group
//          status (GP(0) for j = 0); (3) for j > 0 a look-back over windows of the 32 groups
//          below: it waits until every group of the window is at least GA-ready, takes the
//          nearest GP-ready group i (none: the window steps back; group 0 always publishes GP)
//          and folds left, in order, from GP(i): f(...f(GP(i), GA(i+1))..., GA(j-1)). GP(i) is
//          the exact chain value and GAs never change once published, so this is GP(j-1) bit
//          for bit whichever i the timing found; (4) the group's last tile publishes GP(j).
//          The look-back folds at most 31 tiles and (while the groups' prefixes keep up) a few
//          groups, so its length does not grow with the tile rate. The block then writes its
//          elements: 8 bytes an element for float32. The status (p.work, scan_status_bytes():
//          the counter, then a state per tile and per group, then value slots; for
//          accumulators of up to 4 bytes a state is a 64-bit word with its value beside it, so
//          that a window's values come with its states in one round trip; else a flag and
//          value slots, read after the flag) is zeroed on the launch's stream before each
//          launch; with one tile a line there is none (p.work null, blockIdx.x is the tile).
//          Host: the same order in three steps: every tile's aggregate (items: tiles), the
//          two-level chain per line (jitvec_cpu_scan_tile_chain: each tile's carry), each tile
//          scanned with its carry in front.
//   lines  (the axis is not the fast one, or shorter than kScanTilesMinLength; GPU and host
//          alike) chunks of kScanLineChunk elements along the axis, each folded in order
//          (aggregates), the aggregates chained in order per line (P(k) = f(P(k-1), A(k))),
//          then each chunk folded again in order with P(k-1) in front of every element:
//          f(P(k-1), x0), f(P(k-1), f(x0, x1)), ... On the GPU one thread folds one (chunk,
//          line), lines fastest so that neighbouring threads read neighbouring lines.
// Host entries (cpu and parallel) run both kinds in exactly these orders, one work item (a
// GPU block's tile, or a GPU thread's chunk) after another, so cuda, cpu and parallel agree bit
// for bit whenever the function rounds the same on both (+ on floats does).
//
// Rounding: a float sum's error bound in the tiles kind grows as about 24 roundings inside a
// tile, plus up to 32 inside a group (LocalExcl, GA), plus one a group before it (the GP
// chain): far below a sequential scan's one an element; NumPy's cumsum is sequential over
// every element.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/reduce.hpp"

namespace jitvec::kernels {

/// Rows of kCudaBlock x VEC elements in one tile.
inline constexpr int kScanRows = 4;
/// Elements of one tile whose input is `input`.
inline std::int64_t scan_tile(DType input) {
  return static_cast<std::int64_t>(kScanRows) * kCudaBlock * vector_elements(input);
}
/// An axis shorter than this takes the lines kind even when it is the fast one.
inline constexpr std::int64_t kScanTilesMinLength = 64;
/// Elements of one chunk of the lines kind (GPU and host).
inline constexpr std::int64_t kScanLineChunk = 256;
/// Tiles of a group of the two-level tiles order (and groups of the GPU look-back's window).
inline constexpr int kScanGroupTiles = 32;
static_assert(kScanGroupTiles == 32, "a group's tiles, and the groups' window, are one a lane of a warp");
/// Groups of a line of `tiles_a_line` tiles.
inline std::int64_t scan_groups(std::int64_t tiles_a_line) { return (tiles_a_line + kScanGroupTiles - 1) / kScanGroupTiles; }

enum class ScanKind : std::uint8_t { tiles, lines };

/// ReductionParams::vectorized bits of the tiles kernel: 16-byte loads, 16-byte stores.
inline constexpr long long kScanVectorLoads = 1;
inline constexpr long long kScanVectorStores = 2;

/// The status for the GPU look-back (p.work) of `lines` lines of `tiles_a_line` tiles: 16 bytes
/// for the tile counter, then a state per tile, then a state per group (scan_groups a line):
/// for accumulators of at most 4 bytes (packed) a 64-bit word holding the state and the value
/// (a tile's aggregate; a group's GA, then GP), else a 32-bit flag; then, from the next 16-byte
/// boundary, the value slots: packed, the groups' GA; else the tiles' aggregates, the groups'
/// GA and the groups' GP, in the accumulator type. The counter and the states are zeroed
/// before each launch. The kernel text (scan.cpp, jitvec_scan_status) lays it out the same way.
inline bool scan_status_packed(DType accumulator) { return dtype_size(accumulator) <= 4; }
inline std::int64_t scan_status_zeroed_bytes(std::int64_t lines, std::int64_t tiles_a_line, DType accumulator) {
  return 16 + (scan_status_packed(accumulator) ? 8 : 4) * lines * (tiles_a_line + scan_groups(tiles_a_line));
}
std::int64_t scan_status_bytes(std::int64_t lines, std::int64_t tiles_a_line, DType accumulator);

// GPU kernels. The tiles kernel: one block a tile (outputs x chunks blocks), p.work the status
// (null: one tile a line). The line kernels: one thread a (chunk, line), the chain one thread a
// line; their aggregates are [chunk][line]: the aggregates kernel writes `out`, the chain scans
// `work` in place, the apply kernel reads the prefixes from `work` (null: one chunk).
inline constexpr const char* kScanTilesKernel = "jitvec_scan_tiles";
inline constexpr const char* kScanLineAggregatesKernel = "jitvec_scan_line_aggregates";
inline constexpr const char* kScanLineChainKernel = "jitvec_scan_line_chain";
inline constexpr const char* kScanLineApplyKernel = "jitvec_scan_line_apply";

// Host entries (void(const ReductionParams*, long long begin, long long end) over work items:
// tiles for the tiles entries, (line, chunk) pairs for the line entries, lines for the chains);
// the aggregates are [line][chunk] for both kinds: the aggregates entries write `out`, the
// chains run on `work` in place (the lines' chain: P(k); the tiles' two-level chain: carry(k+1)
// at k), the tiles and apply entries read the value in front of chunk k from `work` at k-1.
inline constexpr const char* kHostScanAggregates = "jitvec_cpu_scan_aggregates";
inline constexpr const char* kHostScanTiles = "jitvec_cpu_scan_tiles";
inline constexpr const char* kHostScanLineAggregates = "jitvec_cpu_scan_line_aggregates";
inline constexpr const char* kHostScanLineChain = "jitvec_cpu_scan_line_chain";
inline constexpr const char* kHostScanTileChain = "jitvec_cpu_scan_tile_chain";
inline constexpr const char* kHostScanLineApply = "jitvec_cpu_scan_line_apply";

std::string scan_kernels(const codegen::LoopSpec& spec);
std::string scan_host_entries(const codegen::LoopSpec& spec);

}  // namespace jitvec::kernels
