// src/kernels/scan.hpp: the scan kernel family (Ufunc::accumulate: an inclusive scan along one
// axis, any strides), over kernels::ReductionParams (reduce.hpp): `outputs` lines (the other
// dimensions, merged; in and out strides), `length` elements along the axis (input stride
// red_strides[0], output stride axis_out_stride), cut into chunks of `chunk` elements.
//
// Every fold order below is fixed by the shape, the strides' kind and the types alone, never
// by timing: no atomics, no block waits for another, so a result is the same from run to run.
//
//   tiles  (GPU; the axis is the fast one) reduce-then-scan over fixed tiles, three steps:
//          1. jitvec_scan_aggregates: one block per tile folds it into its aggregate A(k);
//          2. the aggregates of each line, (lines, tiles) in T, are scanned by this same
//             procedure (recursively: tiles again while a line has at least kScanTilesMinLength
//             of them, else the lines kind), giving the prefixes P(k) in place;
//          3. jitvec_scan_tiles: one block per tile re-reads it and scans it with P(k-1) in
//             front (tiles taken last first: the aggregates pass left the last ones in L2).
//          A line of a single tile skips 1 and 2. A tile is kScanRows rows of kCudaBlock x VEC
//          elements (VEC = 16 bytes of the step's input type: 4096 float32, 2048 float64,
//          1024 complex128); thread t holds the VEC consecutive elements t*VEC... of each row
//          (one 16-byte load, coalesced across the warp; a 16-byte store on the way out). The
//          order of a row: each thread folds its VEC elements in order (x0, f(x0, x1), ...);
//          the threads' sums are scanned in each warp by Kogge-Stone steps (lane i takes
//          f(s[i-d], s[i]) for d = 1, 2, 4, 8, 16); the warps' sums W are folded in order;
//          a thread's exclusive prefix is f(W0..W(w-1) folded, its lane's predecessor's scan
//          value). The rows are chained in order: carry(-1) = P(k-1) (none for k = 0),
//          carry(u) = f(carry(u-1), row u's sum); element x of row u: f(f(carry(u-1), thread
//          prefix), thread's inclusive fold at x) (missing terms left out). A(k) is the same
//          chain from no carry: f(...f(R0, R1)..., R(rows-1)).
//   lines  (the axis is not the fast one, or shorter than kScanTilesMinLength; GPU and host
//          alike) chunks of kScanLineChunk elements along the axis, each folded in order
//          (aggregates), the aggregates chained in order per line (P(k) = f(P(k-1), A(k))),
//          then each chunk folded again in order with P(k-1) in front of every element:
//          f(P(k-1), x0), f(P(k-1), f(x0, x1)), ... On the GPU one thread folds one (chunk,
//          line), lines fastest so that neighbouring threads read neighbouring lines.
// Host entries (cpu and parallel) run both kinds in exactly these orders, one work item (a
// GPU block's tile, or a GPU thread's chunk) after another, so cuda, cpu and parallel agree bit
// for bit whenever the function rounds the same on both (+ on floats does).
#pragma once

#include <cstdint>
#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/reduce.hpp"

namespace jitvec::kernels {

/// Rows of kCudaBlock x VEC elements in one GPU tile.
inline constexpr int kScanRows = 4;
/// Elements of one GPU tile whose step reads `input`.
inline std::int64_t scan_tile(DType input) {
  return static_cast<std::int64_t>(kScanRows) * kCudaBlock * vector_elements(input);
}
/// An axis shorter than this takes the lines kind even when it is the fast one.
inline constexpr std::int64_t kScanTilesMinLength = 64;
/// Elements of one chunk of the lines kind (GPU and host).
inline constexpr std::int64_t kScanLineChunk = 256;

enum class ScanKind : std::uint8_t { tiles, lines };

/// ReductionParams::vectorized bits of the tiles kernels: 16-byte loads, 16-byte stores.
inline constexpr long long kScanVectorLoads = 1;
inline constexpr long long kScanVectorStores = 2;

// GPU kernels; "_t" reads the accumulator type T (the aggregates of a step below) instead of
// the input S, and a scan "_t" writes T. Grids: tiles kernels one block per tile (outputs x
// chunks); line kernels one thread per (chunk, line), the chain one thread per line.
// Buffers: jitvec_scan_aggregates writes A to `out` ([line][tile]); jitvec_scan_tiles reads the
// prefixes from `work` ([line][tile]; null: a single tile per line). The line kernels keep
// theirs [chunk][line]: the aggregates kernel writes `out`, the chain scans `work` in place, the
// apply kernel reads prefixes from `work` (null: one chunk).
inline constexpr const char* kScanAggregatesKernel = "jitvec_scan_aggregates";
inline constexpr const char* kScanAggregatesPartialKernel = "jitvec_scan_aggregates_t";
inline constexpr const char* kScanTilesKernel = "jitvec_scan_tiles";
inline constexpr const char* kScanTilesPartialKernel = "jitvec_scan_tiles_t";
inline constexpr const char* kScanLineAggregatesKernel = "jitvec_scan_line_aggregates";
inline constexpr const char* kScanLineAggregatesPartialKernel = "jitvec_scan_line_aggregates_t";
inline constexpr const char* kScanLineChainKernel = "jitvec_scan_line_chain";
inline constexpr const char* kScanLineApplyKernel = "jitvec_scan_line_apply";
inline constexpr const char* kScanLineApplyPartialKernel = "jitvec_scan_line_apply_t";

// Host entries (void(const ReductionParams*, long long begin, long long end) over work items:
// tiles for the tiles entries, (line, chunk) pairs for the line entries, lines for the chain),
// the GPU kernels' orders exactly; the host keeps the line aggregates [line][chunk].
inline constexpr const char* kHostScanAggregates = "jitvec_cpu_scan_aggregates";
inline constexpr const char* kHostScanAggregatesPartial = "jitvec_cpu_scan_aggregates_t";
inline constexpr const char* kHostScanTiles = "jitvec_cpu_scan_tiles";
inline constexpr const char* kHostScanTilesPartial = "jitvec_cpu_scan_tiles_t";
inline constexpr const char* kHostScanLineAggregates = "jitvec_cpu_scan_line_aggregates";
inline constexpr const char* kHostScanLineAggregatesPartial = "jitvec_cpu_scan_line_aggregates_t";
inline constexpr const char* kHostScanLineChain = "jitvec_cpu_scan_line_chain";
inline constexpr const char* kHostScanLineApply = "jitvec_cpu_scan_line_apply";
inline constexpr const char* kHostScanLineApplyPartial = "jitvec_cpu_scan_line_apply_t";

std::string scan_kernels(const codegen::LoopSpec& spec);
std::string scan_host_entries(const codegen::LoopSpec& spec);

}  // namespace jitvec::kernels
