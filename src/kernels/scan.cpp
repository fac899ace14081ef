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

// Warp 0 of tile k of `line`, whose aggregate is `a`: publishes A(k), returns P(k-1) (k > 0) and
// publishes every aligned range ending at k. Every value is the tree's (kernels/scan.hpp), but
// the ranges that end among the last tiles are rebuilt here from those tiles' aggregates rather
// than waited for: with the windows of W = 2^LOG_B tiles, B = [k0, k0 + W) holding k and the
// one before it, k's digits below W are nodes of a tree over B's aggregates (AGG a lane, joined
// in the lane, then by shuffles); its smallest higher digit, the range ending at k0 - 1, is its
// halves: ranges of W, 2W, ... tiles ending at least W tiles before k0 (read) around the
// previous window's tree; its larger digits are read. So a tile waits for its neighbours'
// aggregates (published as soon as they are loaded) and for ranges published by tiles that
// started at least W tiles earlier, whose look-backs have long ended: a chain of look-backs
// advances W tiles a look-back, more than the GPU starts meanwhile. The line's last tile
// publishes nothing (no tile reads it).
template <int LOG_B>
__device__ __forceinline__ jitvec_acc_t jitvec_scan_look_back(const jitvec_scan_status& s, long long line, long long k, const jitvec_acc_t& a) {
  constexpr int W = 1 << LOG_B, A = LOG_B - 5, AGG = 1 << A;  // tiles a window; AGG = 2^A aggregates a lane
  const int lane = threadIdx.x & 31;
  const bool publishes = k + 1 < s.tiles;
  if (publishes && lane == 0) jitvec_scan_publish(s, jitvec_scan_slot(s, line, 0, k), a);
  const long long k0 = (k >> LOG_B) << LOG_B;
  const int low = static_cast<int>(k - k0);
  const unsigned int high = static_cast<unsigned int>(k >> LOG_B);
  const int highs = __popc(high);                // k's digits of W tiles and more
  const int spine = high ? __ffs(high) - 1 : 0;  // the smallest one is W * 2^spine tiles
  // One round of reads: the aggregates of the two windows below k (unused ones stand in as a),
  // and one range a lane: k's larger digits (lanes 0 .. highs-2, largest first), then the
  // halves of the smallest one (lanes highs-1 .., largest first).
  jitvec_acc_t cur[AGG], prev[AGG], range = a;
  bool r_cur[AGG], r_prev[AGG], r_range = true;
  const long long c0 = k0 + AGG * lane, p0 = k0 - W + AGG * lane;
#pragma unroll
  for (int j = 0; j < AGG; ++j) {
    cur[j] = a;
    prev[j] = a;
    r_cur[j] = c0 + j >= k;
    r_prev[j] = high == 0;
  }
  long long slot_range = 0;
  if (lane < highs - 1) {
    unsigned int rest = high;  // the lane-th highest digit: drop the `lane` above it
    for (int l = 0; l < lane; ++l) rest &= ~(1u << (31 - __clz(rest)));
    const int level = 31 - __clz(rest);
    const long long first = static_cast<long long>(high & ~((2u << level) - 1u)) << LOG_B;
    slot_range = jitvec_scan_slot(s, line, level + LOG_B, first + (static_cast<long long>(W) << level) - 1);
    r_range = false;
  } else if (high && lane < highs - 1 + spine) {
    const int level = spine - 1 - (lane - (highs - 1));  // a half of W * 2^level tiles ending at k0 - W * 2^level - 1
    slot_range = jitvec_scan_slot(s, line, level + LOG_B, k0 - (static_cast<long long>(W) << level) - 1);
    r_range = false;
  }
  auto read_unpublished = [&] {
#pragma unroll
    for (int j = 0; j < AGG; ++j) {
      if (!r_cur[j]) r_cur[j] = jitvec_scan_try(s, jitvec_scan_slot(s, line, 0, c0 + j), cur[j]);
    }
#pragma unroll
    for (int j = 0; j < AGG; ++j) {
      if (!r_prev[j]) r_prev[j] = jitvec_scan_try(s, jitvec_scan_slot(s, line, 0, p0 + j), prev[j]);
    }
    if (!r_range) r_range = jitvec_scan_try(s, slot_range, range);
  };
  auto all_read = [&] {
    bool all = r_range;
#pragma unroll
    for (int j = 0; j < AGG; ++j) all = all && r_cur[j] && r_prev[j];
    return all;
  };
  read_unpublished();
  // Then every slot still unpublished is read again, all together, until none is left (one
  // round trip a retry, however many a lane waits for).
  while (!all_read()) {
    jitvec_scan_pause();
    read_unpublished();
  }
  __syncwarp();
  // The current window's nodes for k's digits below W (level b: the aligned range of 2^b tiles
  // at k0 + the digits of low above b), each sent to every lane. Levels below A are inside a
  // lane (node `index` of lane base / AGG); level A is a lane's AGG aggregates; higher levels
  // join lanes: level b's node q sits in lane q * 2^(b - A).
  jitvec_acc_t small[LOG_B];
#pragma unroll
  for (int b = 0; b < A; ++b) {
    const int base = low & ~((2 << b) - 1);
    const int index = (base & (AGG - 1)) >> b;  // the same in every lane
    jitvec_acc_t pick = cur[0];
#pragma unroll
    for (int j = 1; j < (AGG >> b); ++j) {
      if (j == index) pick = cur[j];
    }
    small[b] = jitvec_shfl(pick, base >> A);
#pragma unroll
    for (int j = 0; j < (AGG >> (b + 1)); ++j) cur[j] = jitvec_apply(cur[2 * j], cur[2 * j + 1]);
  }
  jitvec_acc_t node = cur[0];
  small[A] = jitvec_shfl(node, (low & ~((2 << A) - 1)) >> A);
#pragma unroll
  for (int b = A + 1; b < LOG_B; ++b) {
    node = jitvec_apply(node, jitvec_shfl_down(node, 1 << (b - A - 1)));
    small[b] = jitvec_shfl(node, (low & ~((2 << b) - 1)) >> A);
  }
  // The smallest higher digit: the previous window's tree, then its halves, smallest first.
  jitvec_acc_t smallest_high = a;
  if (high) {
#pragma unroll
    for (int b = 0; b < A; ++b) {
#pragma unroll
      for (int j = 0; j < (AGG >> (b + 1)); ++j) prev[j] = jitvec_apply(prev[2 * j], prev[2 * j + 1]);
    }
    jitvec_acc_t t = prev[0];
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

// One tile (kernels/scan.hpp), in three steps: jitvec_scan_tile_rows stages it in shared memory
// (ROWS x 16 bytes a thread, all copies in flight together) and scans its rows from no carry,
// giving A(k); the kernel's warp 0 then publishes A(k) and finds P(k-1) when the line has
// several tiles (p.work: the status); jitvec_scan_tile_write writes each element with the carry
// in front. Accumulators of up to 8 bytes keep each thread's exclusive prefixes in registers and
// the rows' sums in shared memory between the steps; wider ones scan the rows again from the
// stage. FULL: the tile has TILE elements (every tile but a line's last) and is read and written
// 16 bytes at a time, so that every count is a constant and the bounds checks fold away; the
// folds are the same either way.
template <typename InT>
struct jitvec_scan_tile_shape {
  static constexpr int BLOCK = ${block}, ROWS = ${rows}, VEC = 16 / sizeof(InT), ROW = BLOCK * VEC, TILE = ROWS * ROW;
  static constexpr bool KEEP = sizeof(jitvec_acc_t) <= 8;
};

// Row u of a tile of `len` elements from the stage: thread t's inclusive folds in x (m of them),
// its exclusive prefix and the row's sum.
template <typename InT, bool FULL>
__device__ __forceinline__ void jitvec_scan_tile_row(const jitvec_detail::Vec<InT, 16 / sizeof(InT)>* stage, int len, int u,
                                                     jitvec_acc_t (&x)[16 / sizeof(InT)], int& m, jitvec_acc_t* sums,
                                                     jitvec_acc_t& excl, jitvec_acc_t& total) {
  using S = jitvec_scan_tile_shape<InT>;
  const int t = threadIdx.x;
  const int row_len = FULL ? S::ROW : len - u * S::ROW;  // the same in every thread, > 0
  const int active = FULL ? S::BLOCK : row_len < S::ROW ? (row_len + S::VEC - 1) / S::VEC : S::BLOCK;
  m = FULL ? S::VEC : row_len - t * S::VEC;
  m = m < 0 ? 0 : m > S::VEC ? S::VEC : m;
  if (m > 0) {
    const jitvec_detail::Vec<InT, S::VEC> r = stage[u * S::BLOCK + t];
#pragma unroll
    for (int e = 0; e < S::VEC; ++e) {
      if (e < m) x[e] = static_cast<jitvec_acc_t>(r.v[e]);
    }
  }
  jitvec_scan_row<S::VEC>(x, m, active, sums + (u & 1) * (S::BLOCK / 32), excl, total);
}

// Stages tile k of `line` (`len` elements) and scans its rows from no carry: each thread's
// exclusive prefixes in excl and the rows' sums in totals (KEEP); returns A(k).
template <typename InT, bool FULL>
__device__ __forceinline__ jitvec_acc_t jitvec_scan_tile_rows(const jitvec_reduction_params& p, long long line, long long k, int len,
                                                              jitvec_detail::Vec<InT, 16 / sizeof(InT)>* stage, jitvec_acc_t* sums,
                                                              jitvec_acc_t* totals, jitvec_acc_t (&excl)[${rows}]) {
  using S = jitvec_scan_tile_shape<InT>;
  const int t = threadIdx.x;
  if (FULL) len = S::TILE;
  const long long start = k * S::TILE;
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line);
  const bool vec_in = FULL;
#pragma unroll
  for (int u = 0; u < S::ROWS; ++u) {
    int m = FULL ? S::VEC : len - u * S::ROW - t * S::VEC;
    m = m < 0 ? 0 : m > S::VEC ? S::VEC : m;
    if (m > 0) jitvec_scan_stage<InT, S::VEC>(&stage[u * S::BLOCK + t], in, start + static_cast<long long>(u) * S::ROW + static_cast<long long>(t) * S::VEC, m, p.red_strides[0], vec_in);
  }
  jitvec_scan_stage_wait();
  jitvec_acc_t a;
#pragma unroll
  for (int u = 0; u < S::ROWS; ++u) {
    if (len <= u * S::ROW) break;
    jitvec_acc_t x[S::VEC], e_u, t_u;
    int m;
    jitvec_scan_tile_row<InT, FULL>(stage, len, u, x, m, sums, e_u, t_u);
    if (S::KEEP) {
      excl[u] = e_u;
      if (t == 0) totals[u] = t_u;
    }
    a = u == 0 ? t_u : jitvec_apply(a, t_u);
  }
  return a;
}

// Writes tile k of `line` (`len` elements) from the stage: each row's elements with the carry in
// front (P(k-1) when has_carry, then the rows' sums chained).
template <typename InT, typename OutT, bool FULL>
__device__ __forceinline__ void jitvec_scan_tile_write(const jitvec_reduction_params& p, long long line, long long k, int len,
                                                       const jitvec_detail::Vec<InT, 16 / sizeof(InT)>* stage, jitvec_acc_t* sums,
                                                       const jitvec_acc_t* totals, const jitvec_acc_t (&excl)[${rows}],
                                                       bool has_carry, jitvec_acc_t carry) {
  using S = jitvec_scan_tile_shape<InT>;
  constexpr int VEC = S::VEC, OUT_VEC = 16 / sizeof(OutT);
  constexpr bool OUT_FITS = (VEC * sizeof(OutT)) % 16 == 0;
  const int t = threadIdx.x;
  if (FULL) len = S::TILE;
  const long long start = k * S::TILE;
  OutT* out = static_cast<OutT*>(p.out) + jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line);
  const long long s_out = p.axis_out_stride;
  const bool vec_out = FULL && OUT_FITS;
#pragma unroll
  for (int u = 0; u < S::ROWS; ++u) {
    if (len <= u * S::ROW) break;
    jitvec_acc_t x[VEC], e_u, t_u;
    int m;
    if (S::KEEP) {
      // The thread's inclusive folds again (the same applies as jitvec_scan_row's first loop).
      m = FULL ? VEC : len - u * S::ROW - t * VEC;
      m = m < 0 ? 0 : m > VEC ? VEC : m;
      if (m > 0) {
        const jitvec_detail::Vec<InT, VEC> r = stage[u * S::BLOCK + t];
        x[0] = static_cast<jitvec_acc_t>(r.v[0]);
#pragma unroll
        for (int e = 1; e < VEC; ++e) {
          if (e < m) x[e] = jitvec_apply(x[e - 1], static_cast<jitvec_acc_t>(r.v[e]));
        }
      }
      e_u = excl[u];
      t_u = totals[u];
    } else {
      jitvec_scan_tile_row<InT, FULL>(stage, len, u, x, m, sums, e_u, t_u);
    }
    if (m > 0) {
      const long long first = start + static_cast<long long>(u) * S::ROW + static_cast<long long>(t) * VEC;
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
  using S = jitvec_scan_tile_shape<jitvec_in_t>;
  __shared__ jitvec_detail::Vec<jitvec_in_t, S::VEC> stage[S::ROWS * S::BLOCK];
  __shared__ alignas(16) unsigned char sums_bytes[2 * (S::BLOCK / 32) * sizeof(jitvec_acc_t)];
  __shared__ alignas(16) unsigned char totals_bytes[S::ROWS * sizeof(jitvec_acc_t)];
  __shared__ alignas(16) unsigned char prefix_bytes[sizeof(jitvec_acc_t)];
  __shared__ alignas(16) unsigned char parked_bytes[S::KEEP ? S::ROWS * 32 * sizeof(jitvec_acc_t) : 16];
  __shared__ long long tile_id;
  jitvec_acc_t* parked = reinterpret_cast<jitvec_acc_t*>(parked_bytes);
  jitvec_acc_t* sums = reinterpret_cast<jitvec_acc_t*>(sums_bytes);
  jitvec_acc_t* totals = reinterpret_cast<jitvec_acc_t*>(totals_bytes);
  const int t = threadIdx.x;
  if (t == 0) {
    tile_id = p.work ? static_cast<long long>(atomicAdd(static_cast<unsigned long long*>(p.work), 1ull))
                     : static_cast<long long>(blockIdx.x);
  }
  __syncthreads();
  const long long id = tile_id;
  const long long line = id / p.chunks, k = id - line * p.chunks;
  const long long rest = p.length - k * S::TILE;
  constexpr bool OUT_FITS = (S::VEC * sizeof(jitvec_out_t)) % 16 == 0;
  const bool full = rest >= S::TILE && (p.vectorized & ${vector_loads}) && (!OUT_FITS || (p.vectorized & ${vector_stores}));  // the same in the whole block
  const int len = full ? S::TILE : static_cast<int>(rest);
  jitvec_acc_t excl[S::ROWS];
  const jitvec_acc_t a = full ? jitvec_scan_tile_rows<jitvec_in_t, true>(p, line, k, len, stage, sums, totals, excl)
                              : jitvec_scan_tile_rows<jitvec_in_t, false>(p, line, k, len, stage, sums, totals, excl);
  if (p.work && t < 32) {
    // Warp 0 parks its prefixes (KEEP: without it there are none) in shared memory during the
    // look-back, whose registers they would otherwise take (spilled to local memory).
    if constexpr (S::KEEP) {
#pragma unroll
      for (int u = 0; u < S::ROWS; ++u) parked[u * 32 + t] = excl[u];
    }
    const jitvec_scan_status s{static_cast<unsigned char*>(p.work) + ${header}, p.outputs * (2 * p.chunks - __popcll(p.chunks)),
                               2 * p.chunks - __popcll(p.chunks), p.chunks};
    const jitvec_acc_t prefix = jitvec_scan_look_back<${window_log}>(s, line, k, a);
    if (t == 0) *reinterpret_cast<jitvec_acc_t*>(prefix_bytes) = prefix;
    if constexpr (S::KEEP) {
#pragma unroll
      for (int u = 0; u < S::ROWS; ++u) excl[u] = parked[u * 32 + t];
    }
  }
  // The rows' sums (KEEP) and the prefix; and without KEEP, the write step's first row must not
  // store its warps' sums before every thread has read the last row's (the same buffer when the
  // tile has an odd number of rows).
  __syncthreads();
  const bool has_carry = p.work && k > 0;
  jitvec_acc_t carry;
  if (has_carry) carry = *reinterpret_cast<const jitvec_acc_t*>(prefix_bytes);
  if (full) {
    jitvec_scan_tile_write<jitvec_in_t, jitvec_out_t, true>(p, line, k, len, stage, sums, totals, excl, has_carry, carry);
  } else {
    jitvec_scan_tile_write<jitvec_in_t, jitvec_out_t, false>(p, line, k, len, stage, sums, totals, excl, has_carry, carry);
  }
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
                        {"window_log", std::to_string(kScanWindowLog)},
                        {"vector_loads", std::to_string(kScanVectorLoads)},
                        {"vector_stores", std::to_string(kScanVectorStores)},
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
