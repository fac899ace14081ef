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
//          f(...f(R0, R1)..., R(rows-1)). The tiles of a line are chained strictly in order:
//          P(0) = A(0), P(k) = f(P(k-1), A(k)). In tile k the rows are chained from carry(-1)
//          = P(k-1) (none for k = 0), carry(u) = f(carry(u-1), row u's sum), and element x of
//          row u is f(f(carry(u-1), thread prefix), thread's inclusive fold at x) (missing
//          terms left out).
//          GPU: one pass, a decoupled look-back that keeps this order (jitvec_scan_tiles). A
//          block takes the next tile from a counter (so every tile it waits on belongs to a
//          block already running or done), reads it once into registers, publishes A(k) in its
//          status word, then warp 0 looks back over windows of kScanLookBackWindow status
//          words: it waits until every tile of the window is at least aggregate-ready, takes
//          the nearest prefix-ready tile j (none: the window steps back) and folds left, in
//          order, from P(j): f(...f(P(j), A(j+1))..., A(k-1)). P(j) is the exact chain value
//          and aggregates never change once published, so this is P(k-1) bit for bit
//          whichever j the timing found. The block publishes P(k) and writes its elements: 8
//          bytes an element for float32. The status (p.work, scan_status_bytes(): the counter,
//          a 32-bit flag a tile, 0 nothing, 1 aggregate, 2 prefix, then the aggregate and
//          prefix slots of T) is zeroed on the launch's stream before each launch; with one
//          tile a line there is none (p.work null, blockIdx.x is the tile).
//          Host: the same order in three steps: every tile's aggregate (items: tiles), the
//          chain per line (jitvec_cpu_scan_line_chain), each tile scanned with P(k-1) in front.
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
// Rounding: the chain of tiles is sequential, so a float sum's error bound grows with the
// number of tiles of a line (about 23 roundings inside a tile, plus one a tile before it), as
// a sequential scan's; NumPy's cumsum is sequential over every element.
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
/// Status words the GPU look-back reads at once (warp 0, kScanLookBackWindow / 32 a lane).
inline constexpr int kScanLookBackWindow = 128;
static_assert(kScanLookBackWindow % 32 == 0, "the look-back window is whole words a lane");
/// Alignment of the value slots after the flags in the tiles' status.
inline constexpr std::int64_t kScanStatusAlign = 16;

enum class ScanKind : std::uint8_t { tiles, lines };

/// ReductionParams::vectorized bits of the tiles kernel: 16-byte loads, 16-byte stores.
inline constexpr long long kScanVectorLoads = 1;
inline constexpr long long kScanVectorStores = 2;

/// The tiles' status for the GPU look-back (p.work) of `tiles` tiles in all (lines x tiles a
/// line): the counter and a flag a tile (32-bit words, zeroed before each launch), then from
/// scan_status_values_offset() the aggregate slots and the prefix slots, `tiles` each, of the
/// accumulator type. The kernel text computes the same offset.
inline std::int64_t scan_status_flag_bytes(std::int64_t tiles) { return 4 * (tiles + 1); }
inline std::int64_t scan_status_values_offset(std::int64_t tiles) {
  return (scan_status_flag_bytes(tiles) + kScanStatusAlign - 1) / kScanStatusAlign * kScanStatusAlign;
}
std::int64_t scan_status_bytes(std::int64_t tiles, DType accumulator);

// GPU kernels. The tiles kernel: one block a tile (outputs x chunks blocks), p.work the status
// (null: one tile a line). The line kernels: one thread a (chunk, line), the chain one thread a
// line; their aggregates are [chunk][line]: the aggregates kernel writes `out`, the chain scans
// `work` in place, the apply kernel reads the prefixes from `work` (null: one chunk).
inline constexpr const char* kScanTilesKernel = "jitvec_scan_tiles";
inline constexpr const char* kScanLineAggregatesKernel = "jitvec_scan_line_aggregates";
inline constexpr const char* kScanLineChainKernel = "jitvec_scan_line_chain";
inline constexpr const char* kScanLineApplyKernel = "jitvec_scan_line_apply";

// Host entries (void(const ReductionParams*, long long begin, long long end) over work items:
// tiles for the tiles entries, (line, chunk) pairs for the line entries, lines for the chain);
// the aggregates are [line][chunk] for both kinds: the aggregates entries write `out`, the
// chain runs on `work` in place, the tiles and apply entries read the prefixes from `work`.
inline constexpr const char* kHostScanAggregates = "jitvec_cpu_scan_aggregates";
inline constexpr const char* kHostScanTiles = "jitvec_cpu_scan_tiles";
inline constexpr const char* kHostScanLineAggregates = "jitvec_cpu_scan_line_aggregates";
inline constexpr const char* kHostScanLineChain = "jitvec_cpu_scan_line_chain";
inline constexpr const char* kHostScanLineApply = "jitvec_cpu_scan_line_apply";

std::string scan_kernels(const codegen::LoopSpec& spec);
std::string scan_host_entries(const codegen::LoopSpec& spec);

}  // namespace jitvec::kernels
