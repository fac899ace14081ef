// src/kernels/scan.hpp: the scan kernel family (Ufunc::accumulate: an inclusive scan along one
// axis, any strides), over kernels::ReductionParams (reduce.hpp): `outputs` lines (the other
// dimensions, merged; in and out strides), `length` elements along the axis (input stride
// red_strides[0], output stride axis_out_stride), cut into chunks of `chunk` elements.
//
// Every fold order below is fixed by the shape, the strides' kind and the types alone, never
// by timing: no atomics on values, and a GPU block that waits for another's result reads a
// value whose bits are fixed before it is published, so a result is the same from run to run.
//
//   tiles  (the axis is the fast one) fixed tiles of kScanRows rows of kCudaBlock x VEC
//          elements (VEC = 16 bytes of the input type: 10240 float32, 5120 float64, 2560
//          complex128: 40 KB). Inside a tile: thread t holds the VEC consecutive elements
//          t*VEC... of each row (one 16-byte load, coalesced across the warp; a 16-byte store on the way
//          out). The order of a row: each thread folds its VEC elements in order (x0, f(x0, x1),
//          ...); the threads' sums are scanned in each warp by Kogge-Stone steps (lane i takes
//          f(s[i-d], s[i]) for d = 1, 2, 4, 8, 16); the warps' sums W are folded in order; a
//          thread's exclusive prefix is f(W0..W(w-1) folded, its lane's predecessor's scan
//          value). The rows are chained in order: carry(-1) = P(k-1) (none for k = 0),
//          carry(u) = f(carry(u-1), row u's sum); element x of row u: f(f(carry(u-1), thread
//          prefix), thread's inclusive fold at x) (missing terms left out). A(k), the tile's
//          aggregate, is the same chain from no carry: f(...f(R0, R1)..., R(rows-1)).
//          Across the tiles of a line, an aligned binary tree: S(range) of the 2^i tiles
//          [j*2^i, (j+1)*2^i) is A(j) for i = 0, else f(S(left half), S(right half)); the
//          prefix P(k-1) of tile k (the tiles 0..k-1) folds, in order, the aligned ranges of k's
//          binary digits, largest first: k = 2^a + 2^b + ... (a > b > ...) gives
//          f(f(S[0, 2^a), S[2^a, 2^a + 2^b)), ...). A float32 element carries about 24 roundings
//          from its tile, 25 from the aggregates' own folds and 2 log2(tiles) across the tiles
//          (about 80 at 2^28 elements; a sequential scan: up to 2^28).
//          GPU (jitvec_scan_tiles, one launch): a block takes the next tile from a counter and
//          stages it in shared memory (40 KB; cp.async from sm_80 on, every copy in flight at
//          once), scans its rows, publishes A(k); warp 0 then finds P(k-1) in one round of
//          reads (every read still unpublished is retried together) and publishes every S that
//          ends at tile k (levels 1.. trailing ones of k). The values are the tree's, but the
//          ranges that end among the last tiles are rebuilt from aggregates instead of waited
//          for: with windows of W = 2^kScanWindowLog = 64 tiles and k0 = k rounded down to W,
//          k's digits below W are nodes of a tree over the aggregates of [k0, k) (two a lane,
//          shuffles), its smallest higher digit (the range ending at k0 - 1) is its halves,
//          ranges of W, 2W, ... tiles ending at least W tiles before k0 (read), around the tree
//          of [k0 - W, k0)'s aggregates, and its larger digits are read. A tile so waits for
//          its neighbours' aggregates and for ranges that tiles started at least W tiles
//          earlier published at the end of their look-backs: a chain of look-backs that
//          advances W tiles a look-back, faster than the GPU runs through tiles, while a larger
//          W waits for more aggregates (bench/NOTES.md, session 8, has the measured choice of W
//          and of the rows). Then the block writes its elements with P(k-1) in front.
//          Input read once, output written once: 8 bytes an element for float32. A tile waits
//          only for tiles with smaller numbers, which the counter gave to blocks already
//          running, so the waits always end.
//          Host entries (cpu, parallel) run the same order in three steps: the tiles'
//          aggregates, the tree per line (prefixes P(k) in place), each tile with its carry.
//   lines  (the axis is not the fast one, or shorter than kScanTilesMinLength; GPU and host
//          alike) chunks of kScanLineChunk elements along the axis, each folded in order
//          (aggregates), the aggregates chained in order per line (P(k) = f(P(k-1), A(k))),
//          then each chunk folded again in order with P(k-1) in front of every element:
//          f(P(k-1), x0), f(P(k-1), f(x0, x1)), ... On the GPU one thread folds one (chunk,
//          line), lines fastest so that neighbouring threads read neighbouring lines.
// Host entries run both kinds in exactly these orders, one work item (a GPU block's tile, or a
// GPU thread's chunk) after another, so cuda, cpu and parallel agree bit for bit whenever the
// function rounds the same on both (+ on floats does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/reduce.hpp"

namespace jitvec::kernels {

/// Rows of kCudaBlock x VEC elements in one GPU tile.
inline constexpr int kScanRows = 10;
/// Elements of one GPU tile whose step reads `input`.
inline std::int64_t scan_tile(DType input) {
  return static_cast<std::int64_t>(kScanRows) * kCudaBlock * vector_elements(input);
}
/// Blocks a SM the GPU tiles kernel asks for (launch bounds), for accumulators of at most 4
/// bytes, 8 bytes, and wider; its stage takes 40 KB of shared memory a block (an H200 SM holds
/// five: 48 registers a thread for a float32 sum).
inline constexpr int kScanMinBlocks4 = 5;
inline constexpr int kScanMinBlocks8 = 4;
inline constexpr int kScanMinBlocksWide = 2;
/// The GPU look-back rebuilds the ranges that end among the last 2^kScanWindowLog tiles (a
/// window) from those tiles' aggregates (two a lane of warp 0) instead of waiting for them.
inline constexpr int kScanWindowLog = 6;
/// An axis shorter than this takes the lines kind even when it is the fast one.
inline constexpr std::int64_t kScanTilesMinLength = 64;
/// Elements of one chunk of the lines kind (GPU and host).
inline constexpr std::int64_t kScanLineChunk = 256;

enum class ScanKind : std::uint8_t { tiles, lines };

/// ReductionParams::vectorized bits of the tiles kernels: 16-byte loads, 16-byte stores.
inline constexpr long long kScanVectorLoads = 1;
inline constexpr long long kScanVectorStores = 2;

/// The GPU tiles kernel's status (ReductionParams::work when a line has more than one tile):
/// kScanStatusHeader bytes (the tile counter), then a slot for every aligned range of every
/// line: scan_tree_slots(tiles) a line, level 0 (one a tile) first, then level 1 (one a pair
/// of tiles), ... An accumulator of at most 4 bytes is packed with its ready flag in one
/// 64-bit word a slot ((value bits << 32) | 1); a wider one has a 32-bit flag a slot (all
/// lines), padded to 16 bytes, then the values. Only the counter and the flags (packed: the
/// words) must be zero before the launch.
inline constexpr std::int64_t kScanStatusHeader = 16;
/// Slots of one line of `tiles` tiles: the aligned ranges of every level, 2 tiles - popcount.
std::int64_t scan_tree_slots(std::int64_t tiles);
/// Bytes of the status of `lines` lines of `tiles` tiles for an accumulator of `acc_size` bytes.
std::int64_t scan_status_bytes(std::int64_t lines, std::int64_t tiles, std::size_t acc_size);
/// Its first bytes that must be zero before the launch.
std::int64_t scan_status_clear_bytes(std::int64_t lines, std::int64_t tiles, std::size_t acc_size);
/// A line may have at most this many tiles on the GPU (a tile's digits fit 32 lanes).
inline constexpr std::int64_t kScanMaxTiles = std::int64_t{1} << 31;

// GPU kernels. The tiles kernel: one block a tile (outputs x chunks blocks), p.work the status
// (null: one tile a line). The line kernels: one thread per (chunk, line), the chain one
// thread per line; their buffers are [chunk][line]: the aggregates kernel writes `out`, the
// chain scans `work` in place, the apply kernel reads prefixes from `work` (null: one chunk).
inline constexpr const char* kScanTilesKernel = "jitvec_scan_tiles";
inline constexpr const char* kScanLineAggregatesKernel = "jitvec_scan_line_aggregates";
inline constexpr const char* kScanLineChainKernel = "jitvec_scan_line_chain";
inline constexpr const char* kScanLineApplyKernel = "jitvec_scan_line_apply";

// Host entries (void(const ReductionParams*, long long begin, long long end) over work items:
// tiles for the tiles entries, (line, chunk) pairs for the line entries, lines for the tree and
// the chain), the GPU kernels' orders exactly; the host keeps the aggregates [line][chunk].
inline constexpr const char* kHostScanAggregates = "jitvec_cpu_scan_aggregates";
inline constexpr const char* kHostScanTree = "jitvec_cpu_scan_tree";
inline constexpr const char* kHostScanTiles = "jitvec_cpu_scan_tiles";
inline constexpr const char* kHostScanLineAggregates = "jitvec_cpu_scan_line_aggregates";
inline constexpr const char* kHostScanLineChain = "jitvec_cpu_scan_line_chain";
inline constexpr const char* kHostScanLineApply = "jitvec_cpu_scan_line_apply";

std::string scan_kernels(const codegen::LoopSpec& spec);
std::string scan_host_entries(const codegen::LoopSpec& spec);

}  // namespace jitvec::kernels
