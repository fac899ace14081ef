// src/kernels/scan.hpp: the scan kernel family (Ufunc::accumulate: an inclusive scan along one
// axis, any strides), over kernels::ReductionParams (reduce.hpp): `outputs` lines (the other
// dimensions, merged; in and out strides), `length` elements along the axis (input stride
// red_strides[0], output stride axis_out_stride), cut into tiles of `chunk` elements.
//   tiles  the axis is the fast one: one block per tile, taken in order from a ticket counter
//          (so a tile's predecessors have always started). The tile is staged in shared memory
//          (16-byte vectors when aligned), each thread scans kScanItems consecutive elements,
//          the block scans the threads' sums (Hillis-Steele, fixed steps), and the tile's
//          prefix comes from a deterministic decoupled look-back: every tile publishes its
//          aggregate A(k), then its inclusive prefix P(k) = f(P(k-1), A(k)) (P(0) = A(0)); a
//          tile that finds only aggregates behind it folds them forward from the nearest
//          published prefix, which by induction gives the same P(k-1) bits whichever statuses
//          it saw. No float atomics; the result is the same from run to run.
//   lines  the axis is not the fast one: one thread per line folds the axis in order
//          (adjacent threads read adjacent lines).
// Host entries: tiles in three steps over the same tiles (aggregates; the chain of prefixes
// per line; each tile's fold with its prefix in front: f(P(k-1), L(e)) with L the fold within
// the tile), so cpu and parallel give the same bits; lines as on the GPU. The work buffer of
// the GPU tiles kernel is scan_work_bytes(); jitvec_scan_clear zeroes its status words first.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/loop_spec.hpp"
#include "kernels/reduce.hpp"

namespace jitvec::kernels {

/// Elements each thread of the tiles kernel scans.
inline constexpr int kScanItems = 16;
/// Elements per tile (GPU and host).
inline constexpr std::int64_t kScanTile = static_cast<std::int64_t>(kCudaBlock) * kScanItems;

enum class ScanKind : std::uint8_t { tiles, lines };
inline constexpr const char* kScanClearKernel = "jitvec_scan_clear";
inline constexpr const char* kScanTilesKernel = "jitvec_scan_tiles";
inline constexpr const char* kScanLinesKernel = "jitvec_scan_lines";
inline constexpr const char* kHostScanAggregates = "jitvec_cpu_scan_aggregates";  // items: tiles
inline constexpr const char* kHostScanChain = "jitvec_cpu_scan_chain";            // items: lines
inline constexpr const char* kHostScanApply = "jitvec_cpu_scan_apply";            // items: tiles
inline constexpr const char* kHostScanLines = "jitvec_cpu_scan_lines";            // items: lines

/// Bytes of the GPU tiles kernel's work buffer for `tiles` tiles with accumulator `acc`: the
/// ticket and a status word per tile (zeroed by jitvec_scan_clear: 1 + tiles words), then
/// the aggregates and the prefixes.
std::size_t scan_work_bytes(std::int64_t tiles, DType acc);
/// 64-bit words jitvec_scan_clear zeroes.
inline std::int64_t scan_clear_words(std::int64_t tiles) { return 1 + tiles; }

std::string scan_kernels(const codegen::LoopSpec& spec);
std::string scan_host_entries(const codegen::LoopSpec& spec);

}  // namespace jitvec::kernels
