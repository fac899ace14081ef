#include "kernels/scan.hpp"

#include <bitset>

#include "kernels/kernel_text.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kDevice = R"(// A value moved between the lanes of a warp 32 bits at a time by `shuffle` (a __shfl_*_sync of
// one word): any accumulator type.
template <typename T, typename Shuffle> __device__ __forceinline__ T jitvec_shfl_words(const T& v, Shuffle shuffle) {
  T r = v;
  if constexpr (sizeof(T) % 4 == 0) {
    unsigned int* w = reinterpret_cast<unsigned int*>(&r);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) w[i] = shuffle(w[i]);
  } else {  // 1 or 2 bytes
    unsigned char* b = reinterpret_cast<unsigned char*>(&r);
    unsigned int word = 0;
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) word |= static_cast<unsigned int>(b[i]) << (8 * i);
    word = shuffle(word);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) b[i] = static_cast<unsigned char>(word >> (8 * i));
  }
  return r;
}
// From `delta` lanes below (__shfl_up_sync), and from lane `src` (__shfl_sync).
template <typename T> __device__ __forceinline__ T jitvec_shfl_up(const T& v, int delta) {
  return jitvec_shfl_words(v, [delta](unsigned int w) { return __shfl_up_sync(0xffffffffu, w, delta); });
}
template <typename T> __device__ __forceinline__ T jitvec_shfl(const T& v, int src) {
  return jitvec_shfl_words(v, [src](unsigned int w) { return __shfl_sync(0xffffffffu, w, src); });
}
template <typename T> __device__ __forceinline__ T jitvec_shfl_down(const T& v, int delta) {
  return jitvec_shfl_words(v, [delta](unsigned int w) { return __shfl_down_sync(0xffffffffu, w, delta); });
}

// One row of a tile. Thread t holds x[0..m) (its VEC elements; m = 0 past the row's end), and
// the `active` threads that hold any are a prefix of the block. On return x[j] is the thread's
// inclusive fold up to j, `excl` the fold of the row's elements before the thread's first
// (none for thread 0), `total` the row's fold. `sums`: one value a warp, in shared memory.
template <int VEC>
__device__ __forceinline__ void jitvec_scan_row(jitvec_acc_t (&x)[VEC], int m, int active, jitvec_acc_t* sums,
                                                jitvec_acc_t& excl, jitvec_acc_t& total) {
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  jitvec_acc_t s = x[0];
#pragma unroll
  for (int j = 1; j < VEC; ++j) {
    if (j < m) {
      x[j] = jitvec_apply(s, x[j]);
      s = x[j];
    }
  }
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const jitvec_acc_t y = jitvec_shfl_up(s, d);
    if (lane >= d && m > 0) s = jitvec_apply(y, s);
  }
  const jitvec_acc_t before = jitvec_shfl_up(s, 1);
  if (m > 0 && (lane == 31 || t == active - 1)) sums[warp] = s;
  __syncthreads();
  const int warps = (active + 31) >> 5;
  jitvec_acc_t run = sums[0];
  jitvec_acc_t wx = run;
#pragma unroll
  for (int i = 1; i < ${warps}; ++i) {
    if (i < warps) {
      if (i == warp) wx = run;
      run = jitvec_apply(run, sums[i]);
    }
  }
  total = run;
  excl = lane == 0 ? wx : warp > 0 ? jitvec_apply(wx, before) : before;
}

// The tiles' status (kernels/scan.hpp): after the counter, a slot for every aligned range of
// every line. Accumulators of at most 4 bytes: one 64-bit word a slot, (value bits << 32) | 1,
// stored and read whole. Wider: a 32-bit flag a slot, then the values; the value is stored,
// fenced, then flagged, and read after the flag and a fence. Reads are volatile (from L2: an
// SM's L1 may hold a stale line).
struct jitvec_scan_status {
  unsigned char* base;  // the slots: p.work + the counter's bytes
  long long slots;      // every line's
  long long per_line;   // one line's: 2 tiles - popcount(tiles)
  long long tiles;      // a line's
};

// The slot of the aligned range of 2^level tiles whose last tile is `last`, in line `line`:
// the levels below take sum_{l < level} floor(tiles / 2^l) = F(tiles) - F(tiles >> level) slots
// (F(x) = 2x - popcount(x)).
__device__ __forceinline__ long long jitvec_scan_slot(const jitvec_scan_status& s, long long line, int level, long long last) {
  const long long high = s.tiles >> level;
  const long long below = 2 * s.tiles - __popcll(s.tiles) - 2 * high + __popcll(high);
  return line * s.per_line + below + ((last + 1) >> level) - 1;
}

template <typename T> __device__ __forceinline__ unsigned char* jitvec_scan_values(const jitvec_scan_status& s) {
  return s.base + ((4 * s.slots + 15) / 16) * 16;
}

template <typename T> __device__ __forceinline__ void jitvec_scan_publish(const jitvec_scan_status& s, long long slot, const T& v) {
  if constexpr (sizeof(T) <= 4) {
    unsigned int bits = 0;
    if constexpr (sizeof(T) == 4) {
      bits = *reinterpret_cast<const unsigned int*>(&v);
    } else {
#pragma unroll
      for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) bits |= static_cast<unsigned int>(reinterpret_cast<const unsigned char*>(&v)[i]) << (8 * i);
    }
    reinterpret_cast<volatile unsigned long long*>(s.base)[slot] = (static_cast<unsigned long long>(bits) << 32) | 1ull;
  } else {
    volatile unsigned int* value = reinterpret_cast<volatile unsigned int*>(jitvec_scan_values<T>(s) + slot * sizeof(T));
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) value[i] = reinterpret_cast<const unsigned int*>(&v)[i];
    __threadfence();
    reinterpret_cast<volatile unsigned int*>(s.base)[slot] = 1u;
  }
}

__device__ __forceinline__ void jitvec_scan_pause() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  __nanosleep(32);
#endif
}

// One read of `slot`: true and its value in `v` when it is published.
template <typename T> __device__ __forceinline__ bool jitvec_scan_try(const jitvec_scan_status& s, long long slot, T& v) {
  if constexpr (sizeof(T) <= 4) {
    const unsigned long long w = reinterpret_cast<const volatile unsigned long long*>(s.base)[slot];
    if (!(w & 1ull)) return false;
    const unsigned int bits = static_cast<unsigned int>(w >> 32);
    if constexpr (sizeof(T) == 4) {
      *reinterpret_cast<unsigned int*>(&v) = bits;
    } else {
#pragma unroll
      for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) reinterpret_cast<unsigned char*>(&v)[i] = static_cast<unsigned char>(bits >> (8 * i));
    }
  } else {
    if (reinterpret_cast<const volatile unsigned int*>(s.base)[slot] == 0u) return false;
    __threadfence();
    const volatile unsigned int* value = reinterpret_cast<const volatile unsigned int*>(jitvec_scan_values<T>(s) + slot * sizeof(T));
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) reinterpret_cast<unsigned int*>(&v)[i] = value[i];
  }
  return true;
}

// Reads `slot` until it is published; its value in `v`.
template <typename T> __device__ __forceinline__ void jitvec_scan_wait(const jitvec_scan_status& s, long long slot, T& v) {
  while (!jitvec_scan_try(s, slot, v)) jitvec_scan_pause();
}

// Warp 0 of tile k of `line`, whose aggregate is `a`: publishes A(k), returns P(k-1) (k > 0) and
// publishes every aligned range ending at k. Every value is the tree's (kernels/scan.hpp), but
// the ranges that end among the last tiles are rebuilt here from those tiles' aggregates rather
// than waited for: with the 64-tile blocks B = [k0, k0 + 64) holding k and the one before it,
// k's digits below 64 are nodes of a tree over B's aggregates (two a lane, joined by
// shuffles); its smallest higher digit, the range ending at k0 - 1, is its halves: ranges of
// 64, 128, ... tiles ending at least 64 tiles before k0 (read) around the previous block's
// tree; its larger digits are read. So a tile waits for its neighbours' aggregates (published
// as soon as they are loaded) and for ranges published long before, never for a chain of
// look-backs. The line's last tile publishes nothing (no tile reads it).
__device__ __forceinline__ jitvec_acc_t jitvec_scan_look_back(const jitvec_scan_status& s, long long line, long long k, const jitvec_acc_t& a) {
  constexpr int LOG_B = 6;  // 64 tiles a block: two aggregates a lane
  const int lane = threadIdx.x & 31;
  const bool publishes = k + 1 < s.tiles;
  if (publishes && lane == 0) jitvec_scan_publish(s, jitvec_scan_slot(s, line, 0, k), a);
  const long long k0 = (k >> LOG_B) << LOG_B;
  const int low = static_cast<int>(k - k0);
  const unsigned int high = static_cast<unsigned int>(k >> LOG_B);
  const int highs = __popc(high);            // k's digits of 64 tiles and more
  const int spine = high ? __ffs(high) - 1 : 0;  // the smallest one is 64 * 2^spine tiles
  // One round of reads: the aggregates of the two blocks below k (unused ones stand in as a),
  // and one range a lane: k's larger digits (lanes 0 .. highs-2, largest first), then the
  // halves of the smallest one (lanes highs-1 .., largest first).
  jitvec_acc_t cur0 = a, cur1 = a, prev0 = a, prev1 = a, range = a;
  const long long c0 = k0 + 2 * lane, p0 = k0 - 64 + 2 * lane;
  bool r_cur0 = c0 >= k, r_cur1 = c0 + 1 >= k, r_prev0 = high == 0, r_prev1 = high == 0, r_range = true;
  long long slot_range = 0;
  if (lane < highs - 1) {
    unsigned int rest = high;  // the lane-th highest digit: drop the `lane` above it
    for (int l = 0; l < lane; ++l) rest &= ~(1u << (31 - __clz(rest)));
    const int level = 31 - __clz(rest);
    const long long first = static_cast<long long>(high & ~((2u << level) - 1u)) << LOG_B;
    slot_range = jitvec_scan_slot(s, line, level + LOG_B, first + (64ll << level) - 1);
    r_range = false;
  } else if (high && lane < highs - 1 + spine) {
    const int level = spine - 1 - (lane - (highs - 1));  // a half of 64 * 2^level tiles ending at k0 - 64 * 2^level - 1
    slot_range = jitvec_scan_slot(s, line, level + LOG_B, k0 - (64ll << level) - 1);
    r_range = false;
  }
  if (!r_cur0) r_cur0 = jitvec_scan_try(s, jitvec_scan_slot(s, line, 0, c0), cur0);
  if (!r_cur1) r_cur1 = jitvec_scan_try(s, jitvec_scan_slot(s, line, 0, c0 + 1), cur1);
  if (!r_prev0) r_prev0 = jitvec_scan_try(s, jitvec_scan_slot(s, line, 0, p0), prev0);
  if (!r_prev1) r_prev1 = jitvec_scan_try(s, jitvec_scan_slot(s, line, 0, p0 + 1), prev1);
  if (!r_range) r_range = jitvec_scan_try(s, slot_range, range);
  if (!r_cur0) jitvec_scan_wait(s, jitvec_scan_slot(s, line, 0, c0), cur0);
  if (!r_cur1) jitvec_scan_wait(s, jitvec_scan_slot(s, line, 0, c0 + 1), cur1);
  if (!r_prev0) jitvec_scan_wait(s, jitvec_scan_slot(s, line, 0, p0), prev0);
  if (!r_prev1) jitvec_scan_wait(s, jitvec_scan_slot(s, line, 0, p0 + 1), prev1);
  if (!r_range) jitvec_scan_wait(s, slot_range, range);
  __syncwarp();
  // The current block's nodes for k's digits below 64 (level b: the aligned range of 2^b
  // tiles at k0 + the digits above b), each sent to every lane.
  jitvec_acc_t small[LOG_B];
  jitvec_acc_t node = jitvec_apply(cur0, cur1);  // level 1: lane q holds node q
  {
    const int at = low & ~1;  // level 0: tile k0 + at, the lane's first or second aggregate
    const jitvec_acc_t first = jitvec_shfl(cur0, at >> 1), second = jitvec_shfl(cur1, at >> 1);
    small[0] = (at & 1) ? second : first;
  }
  small[1] = jitvec_shfl(node, (low & ~3) >> 1);
#pragma unroll
  for (int b = 2; b < LOG_B; ++b) {
    node = jitvec_apply(node, jitvec_shfl_down(node, 1 << (b - 2)));  // level b: lane q * 2^(b-1) holds node q
    small[b] = jitvec_shfl(node, (low & ~((2 << b) - 1)) >> 1);
  }
  // The smallest higher digit: the previous block's tree, then its halves, smallest first.
  jitvec_acc_t smallest_high = a;
  if (high) {
    jitvec_acc_t t = jitvec_apply(prev0, prev1);
#pragma unroll
    for (int d = 1; d < 32; d *= 2) t = jitvec_apply(t, jitvec_shfl_down(t, d));
    smallest_high = jitvec_shfl(t, 0);
    for (int i = 0; i < spine; ++i) smallest_high = jitvec_apply(jitvec_shfl(range, highs - 1 + spine - 1 - i), smallest_high);
  }
  // k's digits, largest first: the larger higher ones, the smallest higher one, the small ones.
  auto high_term = [&](int j) { return j == highs - 1 ? smallest_high : jitvec_shfl(range, j); };
  jitvec_acc_t prefix = a;
  bool has_prefix = false;
  for (int j = 0; j < highs; ++j) {
    const jitvec_acc_t v = high_term(j);
    prefix = has_prefix ? jitvec_apply(prefix, v) : v;
    has_prefix = true;
  }
#pragma unroll
  for (int b = LOG_B - 1; b >= 0; --b) {
    if (low & (1 << b)) {
      prefix = has_prefix ? jitvec_apply(prefix, small[b]) : small[b];
      has_prefix = true;
    }
  }
  if (publishes) {
    // The ranges ending at k: level i joins its left half, k's digit 2^(i-1), with level i-1.
    const int levels = __ffs(~static_cast<unsigned int>(k)) - 1;
    jitvec_acc_t joined = a;
    for (int i = 1; i <= levels; ++i) {
      const int digit = i - 1;
      const jitvec_acc_t half = digit < LOG_B ? small[digit < LOG_B ? digit : 0] : high_term(__popc(high >> (digit - LOG_B + 1)));
      joined = jitvec_apply(half, joined);
      if (lane == 0) jitvec_scan_publish(s, jitvec_scan_slot(s, line, i, k), joined);
    }
  }
  return prefix;
}

// Thread t's elements of one row into its 16 bytes of the tile's stage in shared memory: an
// asynchronous 16-byte copy (cp.async, sm_80 on; waited for by jitvec_scan_stage_wait) when
// `vec`, else loaded one by one and stored.
template <typename InT, int VEC>
__device__ __forceinline__ void jitvec_scan_stage(jitvec_detail::Vec<InT, VEC>* slot, const InT* in, long long first, int m,
                                                  long long s_in, bool vec) {
  if (vec) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned int to = static_cast<unsigned int>(__cvta_generic_to_shared(slot));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(in + first) : "memory");
#else
    *slot = *reinterpret_cast<const jitvec_detail::Vec<InT, VEC>*>(in + first);
#endif
  } else {
    jitvec_detail::Vec<InT, VEC> r;
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      if (e < m) r.v[e] = in[(first + e) * s_in];
    }
    *slot = r;
  }
}

// Waits for this thread's copies of jitvec_scan_stage (each thread reads back only its own).
__device__ __forceinline__ void jitvec_scan_stage_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// One tile (kernels/scan.hpp): staged once into shared memory (ROWS x 16 bytes a thread, all
// copies in flight together), its rows scanned from no carry, A(k) published and P(k-1) found
// (warp 0) when the line has several tiles (p.work: the status), then each element written with
// the carry in front. Each thread's exclusive prefixes and the rows' sums are kept in registers
// for accumulators of up to 8 bytes; wider ones scan the rows again from the stage.
template <typename InT, typename OutT>
__device__ __forceinline__ void jitvec_scan_tiles_body(const jitvec_reduction_params& p) {
  constexpr int BLOCK = ${block}, ROWS = ${rows}, VEC = 16 / sizeof(InT), ROW = BLOCK * VEC, TILE = ROWS * ROW;
  constexpr int OUT_VEC = 16 / sizeof(OutT);
  constexpr bool OUT_FITS = (VEC * sizeof(OutT)) % 16 == 0;
  constexpr bool KEEP = sizeof(jitvec_acc_t) <= 8;
  __shared__ jitvec_detail::Vec<InT, VEC> stage[ROWS * BLOCK];
  __shared__ alignas(16) unsigned char sums_bytes[2 * (BLOCK / 32) * sizeof(jitvec_acc_t)];
  __shared__ alignas(16) unsigned char prefix_bytes[sizeof(jitvec_acc_t)];
  __shared__ long long tile_id;
  jitvec_acc_t* sums = reinterpret_cast<jitvec_acc_t*>(sums_bytes);
  const int t = threadIdx.x;
  if (t == 0) {
    tile_id = p.work ? static_cast<long long>(atomicAdd(static_cast<unsigned long long*>(p.work), 1ull))
                     : static_cast<long long>(blockIdx.x);
  }
  __syncthreads();
  const long long id = tile_id;
  const long long line = id / p.chunks, k = id - line * p.chunks;
  const long long start = k * TILE;
  const long long rest = p.length - start;
  const int len = static_cast<int>(rest < TILE ? rest : TILE);
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line);
  OutT* out = static_cast<OutT*>(p.out) + jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line);
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  const bool vec_in = (p.vectorized & 1) && len == TILE;
  const bool vec_out = OUT_FITS && (p.vectorized & 2) && len == TILE;
#pragma unroll
  for (int u = 0; u < ROWS; ++u) {
    int m = len - u * ROW - t * VEC;
    m = m < 0 ? 0 : m > VEC ? VEC : m;
    if (m > 0) jitvec_scan_stage<InT, VEC>(&stage[u * BLOCK + t], in, start + static_cast<long long>(u) * ROW + static_cast<long long>(t) * VEC, m, s_in, vec_in);
  }
  jitvec_scan_stage_wait();
  // One row from the stage: thread t's inclusive folds in x, its exclusive prefix and the row's sum.
  auto scan_row = [&](int u, jitvec_acc_t (&x)[VEC], int& m, jitvec_acc_t& excl, jitvec_acc_t& total) {
    const int row_len = len - u * ROW;  // the same in every thread, > 0
    const int active = row_len < ROW ? (row_len + VEC - 1) / VEC : BLOCK;
    m = row_len - t * VEC;
    m = m < 0 ? 0 : m > VEC ? VEC : m;
    if (m > 0) {
      const jitvec_detail::Vec<InT, VEC> r = stage[u * BLOCK + t];
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        if (e < m) x[e] = static_cast<jitvec_acc_t>(r.v[e]);
      }
    }
    jitvec_scan_row<VEC>(x, m, active, sums + (u & 1) * (BLOCK / 32), excl, total);
  };
  // The rows from no carry, and the tile's aggregate A(k).
  jitvec_acc_t excl[KEEP ? ROWS : 1], total[KEEP ? ROWS : 1], a;
#pragma unroll
  for (int u = 0; u < ROWS; ++u) {
    if (len <= u * ROW) break;
    jitvec_acc_t x[VEC], e_u, t_u;
    int m;
    scan_row(u, x, m, e_u, t_u);
    if (KEEP) {
      excl[KEEP ? u : 0] = e_u;
      total[KEEP ? u : 0] = t_u;
    }
    a = u == 0 ? t_u : jitvec_apply(a, t_u);
  }
  bool has_carry = false;
  jitvec_acc_t carry;
  if (p.work) {
    if (t < 32) {
      const jitvec_scan_status s{static_cast<unsigned char*>(p.work) + ${header}, p.outputs * (2 * p.chunks - __popcll(p.chunks)),
                                 2 * p.chunks - __popcll(p.chunks), p.chunks};
      const jitvec_acc_t prefix = jitvec_scan_look_back(s, line, k, a);
      if (t == 0) *reinterpret_cast<jitvec_acc_t*>(prefix_bytes) = prefix;
    }
    __syncthreads();
    if (k > 0) {
      carry = *reinterpret_cast<const jitvec_acc_t*>(prefix_bytes);
      has_carry = true;
    }
  }
#pragma unroll
  for (int u = 0; u < ROWS; ++u) {
    if (len <= u * ROW) break;
    jitvec_acc_t x[VEC], e_u, t_u;
    int m;
    if (KEEP) {
      // The thread's inclusive folds again (the same applies as jitvec_scan_row's first loop).
      const int row_len = len - u * ROW;
      m = row_len - t * VEC;
      m = m < 0 ? 0 : m > VEC ? VEC : m;
      if (m > 0) {
        const jitvec_detail::Vec<InT, VEC> r = stage[u * BLOCK + t];
        x[0] = static_cast<jitvec_acc_t>(r.v[0]);
#pragma unroll
        for (int e = 1; e < VEC; ++e) {
          if (e < m) x[e] = jitvec_apply(x[e - 1], static_cast<jitvec_acc_t>(r.v[e]));
        }
      }
      e_u = excl[KEEP ? u : 0];
      t_u = total[KEEP ? u : 0];
    } else {
      scan_row(u, x, m, e_u, t_u);
    }
    if (m > 0) {
      const long long first = start + static_cast<long long>(u) * ROW + static_cast<long long>(t) * VEC;
      const bool has_excl = t > 0;
      if (has_carry || has_excl) {
        const jitvec_acc_t c = has_carry && has_excl ? jitvec_apply(carry, e_u) : has_carry ? carry : e_u;
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          if (e < m) x[e] = jitvec_apply(c, x[e]);
        }
      }
      if constexpr (OUT_FITS) {
        if (vec_out) {
          jitvec_detail::Vec<OutT, OUT_VEC>* w = reinterpret_cast<jitvec_detail::Vec<OutT, OUT_VEC>*>(out + first);
#pragma unroll
          for (int q = 0; q < VEC / OUT_VEC; ++q) {
            jitvec_detail::Vec<OutT, OUT_VEC> y;
#pragma unroll
            for (int e = 0; e < OUT_VEC; ++e) y.v[e] = static_cast<OutT>(x[q * OUT_VEC + e]);
            w[q] = y;
          }
        }
      }
      if (!vec_out) {
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          if (e < m) out[(first + e) * s_out] = static_cast<OutT>(x[e]);
        }
      }
    }
    carry = has_carry ? jitvec_apply(carry, t_u) : t_u;
    has_carry = true;
  }
}

// The lines kind: thread i folds chunk k = i / outputs of line i % outputs.
template <typename InT, typename OutT, bool APPLY>
__device__ __forceinline__ void jitvec_scan_line_body(const jitvec_reduction_params& p) {
  constexpr int UNROLL = 8;
  const long long item = static_cast<long long>(blockIdx.x) * ${block} + threadIdx.x;
  if (item >= p.outputs * p.chunks) return;
  const long long k = item / p.outputs, line = item - k * p.outputs;
  const long long start = k * p.chunk;
  const long long len = p.length - start < p.chunk ? p.length - start : p.chunk;
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  const InT* q = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line) + start * s_in;
  OutT* w = static_cast<OutT*>(p.out);
  if (APPLY) w += jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line) + start * s_out;
  const bool has_prefix = APPLY && k > 0 && p.work;
  jitvec_acc_t prefix;
  if (has_prefix) prefix = static_cast<const jitvec_acc_t*>(p.work)[item - p.outputs];
  jitvec_acc_t run = static_cast<jitvec_acc_t>(q[0]);
  if (APPLY) w[0] = static_cast<OutT>(has_prefix ? jitvec_apply(prefix, run) : run);
  long long i = 1;
  for (; i + UNROLL <= len; i += UNROLL) {
    InT v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = q[(i + u) * s_in];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      run = jitvec_apply(run, static_cast<jitvec_acc_t>(v[u]));
      if (APPLY) w[(i + u) * s_out] = static_cast<OutT>(has_prefix ? jitvec_apply(prefix, run) : run);
    }
  }
  for (; i < len; ++i) {
    run = jitvec_apply(run, static_cast<jitvec_acc_t>(q[i * s_in]));
    if (APPLY) w[i * s_out] = static_cast<OutT>(has_prefix ? jitvec_apply(prefix, run) : run);
  }
  if (!APPLY) static_cast<jitvec_acc_t*>(p.out)[item] = run;
}

extern "C" __global__ void __launch_bounds__(${block}, sizeof(jitvec_acc_t) <= 4 ? ${min_blocks_4} : sizeof(jitvec_acc_t) <= 8 ? ${min_blocks_8} : ${min_blocks_wide})
    ${tiles}(const jitvec_reduction_params p) {
  jitvec_scan_tiles_body<jitvec_in_t, jitvec_out_t>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${line_aggregates}(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_in_t, jitvec_acc_t, false>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${line_apply}(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_in_t, jitvec_out_t, true>(p);
}
// The chunks' aggregates of each line ([chunk][line] in work) chained in order, in place.
extern "C" __global__ void __launch_bounds__(${block}) ${line_chain}(const jitvec_reduction_params p) {
  const long long line = static_cast<long long>(blockIdx.x) * ${block} + threadIdx.x;
  if (line >= p.outputs) return;
  jitvec_acc_t* a = static_cast<jitvec_acc_t*>(p.work) + line;
  jitvec_acc_t run = a[0];
  for (long long k = 1; k < p.chunks; ++k) {
    run = jitvec_apply(run, a[k * p.outputs]);
    a[k * p.outputs] = run;
  }
}
)";

// The host entries: the GPU's orders run one work item after another. A tile's threads,
// lanes and warps become loops (the Kogge-Stone steps walk the lanes downwards so that each
// reads its partner's value of the step before, as the shuffles do).
constexpr const char* kHost = R"(template <typename InT, typename OutT, bool APPLY>
static jitvec_acc_t jitvec_host_scan_tile(const jitvec_reduction_params& p, long long id) {
  constexpr int BLOCK = ${block}, ROWS = ${rows}, VEC = 16 / sizeof(InT), ROW = BLOCK * VEC, TILE = ROWS * ROW;
  jitvec_acc_t x[ROW];
  jitvec_acc_t s[BLOCK];
  jitvec_acc_t before[BLOCK / 32];
  const long long line = id / p.chunks, k = id - line * p.chunks;
  const long long start = k * TILE;
  const long long len = p.length - start < TILE ? p.length - start : TILE;
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line);
  OutT* out = static_cast<OutT*>(p.out);
  if (APPLY) out += jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line);
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  bool has_carry = false;
  jitvec_acc_t carry{};
  if (APPLY && k > 0 && p.work) {
    carry = static_cast<const jitvec_acc_t*>(p.work)[id - 1];
    has_carry = true;
  }
  for (int u = 0; u < ROWS; ++u) {
    const long long row_len = len - static_cast<long long>(u) * ROW;
    if (row_len <= 0) break;
    const int active = row_len < ROW ? static_cast<int>((row_len + VEC - 1) / VEC) : BLOCK;
    const long long row_start = start + static_cast<long long>(u) * ROW;
    for (int t = 0; t < active; ++t) {
      const long long left = row_len - static_cast<long long>(t) * VEC;
      const int m = left < VEC ? static_cast<int>(left) : VEC;
      jitvec_acc_t* xt = x + t * VEC;
      const InT* q = in + (row_start + t * VEC) * s_in;
      jitvec_acc_t run = static_cast<jitvec_acc_t>(q[0]);
      xt[0] = run;
      for (int j = 1; j < m; ++j) {
        run = jitvec_apply(run, static_cast<jitvec_acc_t>(q[j * s_in]));
        xt[j] = run;
      }
      s[t] = run;
    }
    for (int d = 1; d < 32; d *= 2) {
      for (int t = active - 1; t >= 0; --t) {
        if ((t & 31) >= d) s[t] = jitvec_apply(s[t - d], s[t]);
      }
    }
    const int warps = (active + 31) / 32;
    jitvec_acc_t total = s[active - 1 < 31 ? active - 1 : 31];
    for (int w = 1; w < warps; ++w) {
      before[w] = total;
      const int last = 32 * w + 31 < active - 1 ? 32 * w + 31 : active - 1;
      total = jitvec_apply(total, s[last]);
    }
    if (APPLY) {
      for (int t = 0; t < active; ++t) {
        const long long left = row_len - static_cast<long long>(t) * VEC;
        const int m = left < VEC ? static_cast<int>(left) : VEC;
        const int lane = t & 31, w = t >> 5;
        const bool has_excl = t > 0;
        jitvec_acc_t excl{};
        if (has_excl) excl = lane == 0 ? before[w] : w > 0 ? jitvec_apply(before[w], s[t - 1]) : s[t - 1];
        jitvec_acc_t* xt = x + t * VEC;
        OutT* o = out + (row_start + t * VEC) * s_out;
        if (has_carry || has_excl) {
          const jitvec_acc_t c = has_carry && has_excl ? jitvec_apply(carry, excl) : has_carry ? carry : excl;
          for (int j = 0; j < m; ++j) o[j * s_out] = static_cast<OutT>(jitvec_apply(c, xt[j]));
        } else {
          for (int j = 0; j < m; ++j) o[j * s_out] = static_cast<OutT>(xt[j]);
        }
      }
    }
    carry = has_carry ? jitvec_apply(carry, total) : total;
    has_carry = true;
  }
  return carry;
}

// A chunk of the lines kind: folded in order, with `prefix` in front of every element when
// writing.
template <typename InT, typename OutT>
static jitvec_acc_t jitvec_host_scan_chunk(const jitvec_reduction_params& p, long long chunk, bool write) {
  const long long line = chunk / p.chunks, k = chunk - line * p.chunks;
  const long long start = k * p.chunk;
  const long long len = p.length - start < p.chunk ? p.length - start : p.chunk;
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line) + start * p.red_strides[0];
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  const jitvec_acc_t* prefix = write && k > 0 && p.work ? static_cast<const jitvec_acc_t*>(p.work) + chunk - 1 : nullptr;
  jitvec_acc_t run = static_cast<jitvec_acc_t>(in[0]);
  if (write) {
    OutT* o = static_cast<OutT*>(p.out) + jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line) + start * s_out;
    o[0] = static_cast<OutT>(prefix ? jitvec_apply(*prefix, run) : run);
    for (long long i = 1; i < len; ++i) {
      run = jitvec_apply(run, static_cast<jitvec_acc_t>(in[i * s_in]));
      o[i * s_out] = static_cast<OutT>(prefix ? jitvec_apply(*prefix, run) : run);
    }
  } else {
    for (long long i = 1; i < len; ++i) run = jitvec_apply(run, static_cast<jitvec_acc_t>(in[i * s_in]));
  }
  return run;
}

JITVEC_EXPORT void ${aggregates}(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long id = begin; id < end; ++id) static_cast<jitvec_acc_t*>(p->out)[id] = jitvec_host_scan_tile<jitvec_in_t, jitvec_acc_t, false>(*p, id);
}
JITVEC_EXPORT void ${tiles}(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long id = begin; id < end; ++id) jitvec_host_scan_tile<jitvec_in_t, jitvec_out_t, true>(*p, id);
}
JITVEC_EXPORT void ${line_aggregates}(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long c = begin; c < end; ++c) static_cast<jitvec_acc_t*>(p->out)[c] = jitvec_host_scan_chunk<jitvec_in_t, jitvec_acc_t>(*p, c, false);
}
// The tiles' aggregates of each line ([line][tile] in work) turned in place into the prefixes
// P(k) of tiles 0..k in the aligned-tree order: a stack holds the aligned ranges of k + 1's
// digits, largest first (a new tile is a range of one; two of the same size join, left first),
// folded in order.
JITVEC_EXPORT void ${tree}(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_acc_t* aggs = static_cast<jitvec_acc_t*>(p->work);
  for (long long line = begin; line < end; ++line) {
    jitvec_acc_t* a = aggs + line * p->chunks;
    jitvec_acc_t range[64];
    int level[64];
    int top = 0;
    for (long long k = 0; k < p->chunks; ++k) {
      range[top] = a[k];
      level[top] = 0;
      ++top;
      while (top >= 2 && level[top - 2] == level[top - 1]) {
        range[top - 2] = jitvec_apply(range[top - 2], range[top - 1]);
        ++level[top - 2];
        --top;
      }
      jitvec_acc_t run = range[0];
      for (int i = 1; i < top; ++i) run = jitvec_apply(run, range[i]);
      a[k] = run;
    }
  }
}
// The chunks' aggregates of each line ([line][chunk] in work) chained in order, in place.
JITVEC_EXPORT void ${line_chain}(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_acc_t* aggs = static_cast<jitvec_acc_t*>(p->work);
  for (long long line = begin; line < end; ++line) {
    jitvec_acc_t* a = aggs + line * p->chunks;
    for (long long k = 1; k < p->chunks; ++k) a[k] = jitvec_apply(a[k - 1], a[k]);
  }
}
JITVEC_EXPORT void ${line_apply}(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long c = begin; c < end; ++c) jitvec_host_scan_chunk<jitvec_in_t, jitvec_out_t>(*p, c, true);
}
)";

}  // namespace

std::int64_t scan_tree_slots(std::int64_t tiles) {
  return 2 * tiles - static_cast<std::int64_t>(std::bitset<64>(static_cast<unsigned long long>(tiles)).count());
}

std::int64_t scan_status_clear_bytes(std::int64_t lines, std::int64_t tiles, std::size_t acc_size) {
  const std::int64_t slots = lines * scan_tree_slots(tiles);
  return kScanStatusHeader + (acc_size <= 4 ? 8 * slots : (4 * slots + 15) / 16 * 16);
}

std::int64_t scan_status_bytes(std::int64_t lines, std::int64_t tiles, std::size_t acc_size) {
  const std::int64_t slots = lines * scan_tree_slots(tiles);
  const std::int64_t clear = scan_status_clear_bytes(lines, tiles, acc_size);
  return acc_size <= 4 ? clear : clear + slots * static_cast<std::int64_t>(acc_size);
}

std::string scan_kernels(const codegen::LoopSpec&) {
  return fill(kDevice, {{"block", std::to_string(kCudaBlock)},
                        {"rows", std::to_string(kScanRows)},
                        {"warps", std::to_string(kCudaBlock / 32)},
                        {"header", std::to_string(kScanStatusHeader)},
                        {"min_blocks_4", std::to_string(kScanMinBlocks4)},
                        {"min_blocks_8", std::to_string(kScanMinBlocks8)},
                        {"min_blocks_wide", std::to_string(kScanMinBlocksWide)},
                        {"tiles", kScanTilesKernel},
                        {"line_aggregates", kScanLineAggregatesKernel},
                        {"line_chain", kScanLineChainKernel},
                        {"line_apply", kScanLineApplyKernel}});
}

std::string scan_host_entries(const codegen::LoopSpec&) {
  return fill(kHost, {{"block", std::to_string(kCudaBlock)},
                      {"rows", std::to_string(kScanRows)},
                      {"aggregates", kHostScanAggregates},
                      {"tree", kHostScanTree},
                      {"tiles", kHostScanTiles},
                      {"line_aggregates", kHostScanLineAggregates},
                      {"line_chain", kHostScanLineChain},
                      {"line_apply", kHostScanLineApply}});
}

}  // namespace jitvec::kernels
