#include "kernels/scan.hpp"

#include "kernels/kernel_text.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kDevice = R"(// A value moved across the lanes of a warp, 32 bits at a time (any accumulator type): up by
// `arg` lanes (UP, __shfl_up_sync) or from lane `arg` (__shfl_sync).
template <bool UP, typename T> __device__ __forceinline__ T jitvec_shfl_move(const T& v, int arg) {
  T r = v;
  if constexpr (sizeof(T) % 4 == 0) {
    unsigned int* w = reinterpret_cast<unsigned int*>(&r);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) w[i] = UP ? __shfl_up_sync(0xffffffffu, w[i], arg) : __shfl_sync(0xffffffffu, w[i], arg);
  } else {  // 1 or 2 bytes
    unsigned char* b = reinterpret_cast<unsigned char*>(&r);
    unsigned int word = 0;
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) word |= static_cast<unsigned int>(b[i]) << (8 * i);
    word = UP ? __shfl_up_sync(0xffffffffu, word, arg) : __shfl_sync(0xffffffffu, word, arg);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) b[i] = static_cast<unsigned char>(word >> (8 * i));
  }
  return r;
}
template <typename T> __device__ __forceinline__ T jitvec_shfl_up(const T& v, int delta) { return jitvec_shfl_move<true>(v, delta); }

// A thread's VEC elements of a row folded in order: x[0], f(x[0], x[1]), ... (m of them).
template <typename InT, int VEC>
__device__ __forceinline__ jitvec_acc_t jitvec_scan_thread_fold(const jitvec_detail::Vec<InT, VEC>& raw, int m) {
  jitvec_acc_t s = static_cast<jitvec_acc_t>(raw.v[0]);
#pragma unroll
  for (int j = 1; j < VEC; ++j) {
    if (j < m) s = jitvec_apply(s, static_cast<jitvec_acc_t>(raw.v[j]));
  }
  return s;
}

// One row of a tile. Thread t holds its VEC elements (m of them; m = 0 past the row's end),
// and the `active` threads that hold any are a prefix of the block. Gives `excl`, the fold of
// the row's elements before the thread's first (none for thread 0), and `total`, the row's
// fold. `sums`: one value a warp, in shared memory.
template <typename InT, int VEC>
__device__ __forceinline__ void jitvec_scan_row(const jitvec_detail::Vec<InT, VEC>& raw, int m, int active,
                                                jitvec_acc_t* sums, jitvec_acc_t& excl, jitvec_acc_t& total) {
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  jitvec_acc_t s = jitvec_scan_thread_fold<InT, VEC>(raw, m);
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

// The look-back's status (p.work; scan.hpp's scan_status_* say the same): bytes [0, 16) hold
// the tile counter, then one state a tile (tiles = lines x tiles a line), then one state a
// group of 32 tiles (groups = lines x groups a line), all zeroed before the launch; then, from
// the next 16-byte boundary, the value slots.
//   accumulators of at most 4 bytes (PACKED): a state is a 64-bit word, (value bits << 32) |
//     state (1: the aggregate, 2: the prefix), so that one load gives a state and its value
//     together. A tile's word only ever holds its aggregate; a group's holds GA(g), then
//     GP(g), so the slots are the groups' aggregates [groups] (read only after the group's
//     state was seen, and a fence, when its word may already hold GP).
//   wider ones: a state is a 32-bit flag (0 nothing, 1 aggregate, 2 prefix); the slots are
//     the tiles' aggregates [tiles], the groups' aggregates [groups], the groups' prefixes
//     [groups].
// A writer stores a slot, fences, then the state; a reader sees the state, fences, then reads a
// slot. Status reads are volatile (from L2, never a stale L1 line). One jitvec_scan_status is
// one of the two arrays (the tiles' or the groups').
struct jitvec_scan_status {
  static constexpr bool PACKED = sizeof(jitvec_acc_t) <= 4;
  unsigned char* states;
  jitvec_acc_t* aggregates;  // null for the tiles' when PACKED (their words hold them)
  jitvec_acc_t* prefixes;    // the wide kind's groups only
  // The tiles' (groups false) or the groups' (true) array of the status at `base`.
  static __device__ __forceinline__ jitvec_scan_status at(unsigned char* base, long long tiles, long long groups, bool of_groups) {
    constexpr long long STATE = PACKED ? 8 : 4;
    jitvec_acc_t* slots = reinterpret_cast<jitvec_acc_t*>(base + (16 + STATE * (tiles + groups) + 15) / 16 * 16);
    jitvec_scan_status s;
    s.states = base + 16 + (of_groups ? STATE * tiles : 0);
    if constexpr (PACKED) {
      s.aggregates = of_groups ? slots : nullptr;
      s.prefixes = nullptr;
    } else {
      s.aggregates = of_groups ? slots + tiles : slots;
      s.prefixes = of_groups ? slots + tiles + groups : nullptr;
    }
    return s;
  }
  __device__ __forceinline__ volatile unsigned long long* words() const { return reinterpret_cast<volatile unsigned long long*>(states); }
  __device__ __forceinline__ volatile unsigned int* flags() const { return reinterpret_cast<volatile unsigned int*>(states); }
  static __device__ __forceinline__ unsigned long long pack(const jitvec_acc_t& v) {
    const unsigned char* b = reinterpret_cast<const unsigned char*>(&v);
    unsigned int bits = 0;
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(jitvec_acc_t)); ++i) bits |= static_cast<unsigned int>(b[i]) << (8 * i);
    return static_cast<unsigned long long>(bits) << 32;
  }
  static __device__ __forceinline__ jitvec_acc_t unpack(unsigned long long w) {
    jitvec_acc_t r;
    unsigned char* b = reinterpret_cast<unsigned char*>(&r);
    const unsigned int bits = static_cast<unsigned int>(w >> 32);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(jitvec_acc_t)); ++i) b[i] = static_cast<unsigned char>(bits >> (8 * i));
    return r;
  }
  static __device__ __forceinline__ jitvec_acc_t load(const jitvec_acc_t* slot) {
    jitvec_acc_t r;
    if constexpr (sizeof(jitvec_acc_t) % 4 == 0) {
      const volatile unsigned int* from = reinterpret_cast<const volatile unsigned int*>(slot);
      unsigned int* to = reinterpret_cast<unsigned int*>(&r);
#pragma unroll
      for (int i = 0; i < static_cast<int>(sizeof(jitvec_acc_t) / 4); ++i) to[i] = from[i];
    } else {
      const volatile unsigned char* from = reinterpret_cast<const volatile unsigned char*>(slot);
      unsigned char* to = reinterpret_cast<unsigned char*>(&r);
#pragma unroll
      for (int i = 0; i < static_cast<int>(sizeof(jitvec_acc_t)); ++i) to[i] = from[i];
    }
    return r;
  }
  // Entry i's aggregate (prefix false) or prefix (true), published.
  __device__ __forceinline__ void publish(long long i, const jitvec_acc_t& v, bool prefix) const {
    if constexpr (PACKED) {
      if (!prefix && aggregates) {
        aggregates[i] = v;
        __threadfence();
      }
      words()[i] = pack(v) | (prefix ? 2ull : 1ull);
    } else {
      (prefix ? prefixes : aggregates)[i] = v;
      __threadfence();
      flags()[i] = prefix ? 2u : 1u;
    }
  }
  // Entry i's state as it is now (PACKED: the word, state and value; else the flag).
  __device__ __forceinline__ unsigned long long read(long long i) const {
    if constexpr (PACKED) return words()[i];
    else return flags()[i];
  }
  static __device__ __forceinline__ unsigned int state(unsigned long long word) {
    return static_cast<unsigned int>(PACKED ? word & 3ull : word);
  }
  // Entry i's value whose state `word` was read (the wide kind: then a fence); it never changes.
  __device__ __forceinline__ jitvec_acc_t value(long long i, unsigned long long word) const {
    if constexpr (PACKED) return unpack(word);
    else return load((state(word) == 2 ? prefixes : aggregates) + i);
  }
  // Entry i's aggregate, its state seen at least aggregate-ready earlier (then a fence).
  __device__ __forceinline__ jitvec_acc_t aggregate(long long i) const { return load(aggregates + i); }
};

// Every lane of warp 0 calls this with the same `from`, `to` and `has`: lane 0 folds the lanes'
// values `v` of lanes from..to-1 in order onto `run` (has: run holds a value; else it starts
// from lane from's). One shuffle a step; 4 shuffles issued ahead of their applies for
// accumulators of up to 4 bytes (ptxas sm_90: no spills at 64 registers for float32; the wider
// ones spill at 80 and 128 registers unless the loop is left rolled).
__device__ __forceinline__ void jitvec_warp_fold(const jitvec_acc_t& v, int from, int to, jitvec_acc_t& run, bool& has) {
#pragma unroll (sizeof(jitvec_acc_t) <= 4 ? 4 : 1)
  for (int i = from; i < to; ++i) {
    const jitvec_acc_t y = jitvec_shfl_move<false>(v, i);
    if (threadIdx.x == 0) run = has ? jitvec_apply(run, y) : y;
    has = true;
  }
}

// Spins (warp 0, every lane) until `read` gives every lane a state that is not 0; the words
// of the last round, one a lane.
template <typename Read> __device__ __forceinline__ unsigned long long jitvec_scan_wait(const Read& read) {
  for (unsigned int pause = 32;; pause = pause < 1024 ? 2 * pause : pause) {
    const unsigned long long word = read();
    if (__all_sync(0xffffffffu, jitvec_scan_status::state(word) != 0)) return word;
#if __CUDA_ARCH__ >= 700
    __nanosleep(pause);
#endif
  }
}

// Step 1 of tile k's look-back (warp 0; n = k mod 32 >= 1 tiles before it in its group, the
// first of them `first`): lane l < n waits for tile first + l's aggregate, and lane 0 folds
// them in order: LocalExcl(k) = f(...f(A(first), A(first+1))..., A(k-1)).
__device__ __forceinline__ jitvec_acc_t jitvec_scan_local(const jitvec_scan_status& tiles, long long first, int n) {
  const int lane = threadIdx.x & 31;
  const unsigned long long word = jitvec_scan_wait([&] { return lane < n ? tiles.read(first + lane) : 1ull; });
  jitvec_acc_t v{};
  if constexpr (!jitvec_scan_status::PACKED) __threadfence();
  if (lane < n) v = tiles.value(first + lane, word);
  jitvec_acc_t run;
  bool has = false;
  jitvec_warp_fold(v, 0, n, run, has);
  return run;
}

// Step 3 of the look-back, for group g (> the line's first group, `first`; indices in the
// groups' array), warp 0: GP(g-1), exact, in lane 0. Lane l watches group lo + l of a window
// of the 32 groups [lo, hi) below, spinning until each is at least GA-ready; the nearest
// GP-ready one j ends the search (none: the window steps back; the line's first group always
// publishes GP). Then lane 0 folds left and in order from GP(j): f(...f(GP(j), GA(j+1))...,
// GA(g-1)) (the window's values by shuffles; the groups above it, seen GA-ready in the
// windows before, read again from their slots). GP(j) is the exact chain value and GAs never
// change once published, so this is GP(g-1) bit for bit whichever j the timing found.
__device__ __forceinline__ jitvec_acc_t jitvec_scan_group_look_back(const jitvec_scan_status& groups, long long first, long long g) {
  const int lane = threadIdx.x & 31;
  long long hi = g, lo;
  unsigned long long word;
  unsigned int prefixes;
  for (;;) {
    lo = hi - 32 > first ? hi - 32 : first;
    const long long at = lo + lane;
    word = jitvec_scan_wait([&] { return at < hi ? groups.read(at) : 1ull; });  // past hi: never a prefix
    prefixes = __ballot_sync(0xffffffffu, jitvec_scan_status::state(word) == 2);
    if (prefixes != 0) break;
    hi = lo;
  }
  const int nearest = 31 - __clz(static_cast<int>(prefixes)), n = static_cast<int>(hi - lo);
  jitvec_acc_t v{};
  if (!jitvec_scan_status::PACKED || hi < g) __threadfence();
  if (lane >= nearest && lane < n) v = groups.value(lo + lane, word);
  jitvec_acc_t run;
  bool has = false;
  jitvec_warp_fold(v, nearest, n, run, has);
  for (long long next = hi; next < g; next += 32) {
    const int m = g - next < 32 ? static_cast<int>(g - next) : 32;
    if (lane < m) v = groups.aggregate(next + lane);
    jitvec_warp_fold(v, 0, m, run, has);
  }
  return run;
}

// The tiles kind in one pass. The block takes the next tile g = (line, k) from the counter
// (p.work set) or blockIdx.x (p.work null: every line a single tile), loads it once into
// registers, computes its rows' exclusive prefixes and sums and the aggregate A(k), publishes
// A(k), then warp 0 looks back (scan.hpp's two-level order; k in group j at position q):
// LocalExcl(k) from the q tiles before it in its group; the group's last tile publishes GA(j)
// (GP(0) for the line's first group); for j > 0 GP(j-1) from the groups' look-back, and the
// group's last tile publishes GP(j) = f(GP(j-1), GA(j)); carry(k) = f(GP(j-1), LocalExcl(k))
// (missing terms left out). Then it folds each thread's elements again from the registers and
// writes them with the rows' carry starting from carry(k).
template <typename InT, typename OutT>
__device__ __forceinline__ void jitvec_scan_tiles_body(const jitvec_reduction_params& p) {
  constexpr int BLOCK = ${block}, ROWS = ${rows}, VEC = 16 / sizeof(InT), ROW = BLOCK * VEC, TILE = ROWS * ROW;
  constexpr int OUT_VEC = 16 / sizeof(OutT);
  constexpr bool OUT_FITS = (VEC * sizeof(OutT)) % 16 == 0;
  __shared__ alignas(16) unsigned char sums_bytes[2 * (BLOCK / 32) * sizeof(jitvec_acc_t)];
  __shared__ alignas(16) unsigned char carry_bytes[sizeof(jitvec_acc_t)];
  __shared__ long long taken;
  jitvec_acc_t* sums = reinterpret_cast<jitvec_acc_t*>(sums_bytes);
  jitvec_acc_t* shared_carry = reinterpret_cast<jitvec_acc_t*>(carry_bytes);
  const int t = threadIdx.x;
  const long long tiles = p.outputs * p.chunks;
  unsigned int* counter = static_cast<unsigned int*>(p.work);  // the status's first word
  if (t == 0) taken = counter ? static_cast<long long>(atomicAdd(counter, 1u)) : static_cast<long long>(blockIdx.x);
  __syncthreads();
  const long long g = taken;
  const long long line = g / p.chunks, k = g - line * p.chunks;
  const long long start = k * TILE;
  const long long rest = p.length - start;
  const int len = static_cast<int>(rest < TILE ? rest : TILE);
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line);
  OutT* out = static_cast<OutT*>(p.out) + jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line);
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  const bool vec_in = (p.vectorized & 1) && len == TILE;
  const bool vec_out = OUT_FITS && (p.vectorized & 2) && len == TILE;
  jitvec_detail::Vec<InT, VEC> raw[ROWS];
  if (vec_in) {
    const jitvec_detail::Vec<InT, VEC>* v = reinterpret_cast<const jitvec_detail::Vec<InT, VEC>*>(in + start);
#pragma unroll
    for (int u = 0; u < ROWS; ++u) raw[u] = v[u * BLOCK + t];
  } else {
#pragma unroll
    for (int u = 0; u < ROWS; ++u) {
      const long long first = start + static_cast<long long>(u) * ROW + static_cast<long long>(t) * VEC;
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        if (u * ROW + t * VEC + e < len) raw[u].v[e] = in[(first + e) * s_in];
      }
    }
  }
  // Every row's exclusive thread prefix and sum; the aggregate: the rows chained from no carry.
  jitvec_acc_t excl[ROWS], total[ROWS];
  jitvec_acc_t aggregate;
#pragma unroll
  for (int u = 0; u < ROWS; ++u) {
    const int row_len = len - u * ROW;  // the same in every thread
    if (row_len <= 0) break;
    const int active = row_len < ROW ? (row_len + VEC - 1) / VEC : BLOCK;
    int m = row_len - t * VEC;
    m = m < 0 ? 0 : m > VEC ? VEC : m;
    jitvec_scan_row<InT, VEC>(raw[u], m, active, sums + (u & 1) * (BLOCK / 32), excl[u], total[u]);
    aggregate = u == 0 ? total[0] : jitvec_apply(aggregate, total[u]);
  }
  bool has_carry = false;
  jitvec_acc_t carry;
  if (counter) {
    constexpr int GROUP = ${group};
    const long long groups_a_line = (p.chunks + GROUP - 1) / GROUP;
    unsigned char* base = static_cast<unsigned char*>(p.work);
    const long long groups = p.outputs * groups_a_line;
    const int q = static_cast<int>(k % GROUP);
    const long long first_group = line * groups_a_line, group = first_group + k / GROUP;
    // Only the tiles after it in its group read A(k); only the later groups read GA and GP.
    const bool publishes_group = q == GROUP - 1 && k + 1 < p.chunks;
    if (t == 0 && q < GROUP - 1 && k + 1 < p.chunks) jitvec_scan_status::at(base, tiles, groups, false).publish(g, aggregate, false);
    if (k > 0 && t < 32) {
      const jitvec_scan_status group_status = jitvec_scan_status::at(base, tiles, groups, true);
      jitvec_acc_t local, before, ga;
      if (q > 0) local = jitvec_scan_local(jitvec_scan_status::at(base, tiles, groups, false), g - q, q);
      if (publishes_group && t == 0) {
        ga = jitvec_apply(local, aggregate);  // q = GROUP - 1 > 0
        group_status.publish(group, ga, group == first_group);
      }
      if (group > first_group) {
        before = jitvec_scan_group_look_back(group_status, first_group, group);
        if (publishes_group && t == 0) group_status.publish(group, jitvec_apply(before, ga), true);
      }
      if (t == 0) *shared_carry = group == first_group ? local : q == 0 ? before : jitvec_apply(before, local);
    }
    if (k > 0) {
      __syncthreads();
      carry = *shared_carry;
      has_carry = true;
    }
  }
#pragma unroll
  for (int u = 0; u < ROWS; ++u) {
    const int row_len = len - u * ROW;
    if (row_len <= 0) break;
    int m = row_len - t * VEC;
    m = m < 0 ? 0 : m > VEC ? VEC : m;
    if (m > 0) {
      const long long first = start + static_cast<long long>(u) * ROW + static_cast<long long>(t) * VEC;
      const bool has_excl = t > 0;
      const bool has_c = has_carry || has_excl;
      jitvec_acc_t c;
      if (has_c) c = has_carry && has_excl ? jitvec_apply(carry, excl[u]) : has_carry ? carry : excl[u];
      jitvec_acc_t x[VEC];
      jitvec_acc_t s = static_cast<jitvec_acc_t>(raw[u].v[0]);
      x[0] = has_c ? jitvec_apply(c, s) : s;
#pragma unroll
      for (int e = 1; e < VEC; ++e) {
        if (e < m) {
          s = jitvec_apply(s, static_cast<jitvec_acc_t>(raw[u].v[e]));
          x[e] = has_c ? jitvec_apply(c, s) : s;
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
    carry = has_carry ? jitvec_apply(carry, total[u]) : total[u];
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

// Blocks a multiprocessor must hold (ptxas sm_90, no spills): 4 (64 registers) where a row's
// accumulators are 16 bytes of 4-byte values (float32), 3 (80) for 8-byte ones (float64),
// else 2 (128: complex128, int8 in int64).
constexpr int jitvec_scan_tiles_min_blocks() {
  return 16 / sizeof(jitvec_in_t) * sizeof(jitvec_acc_t) > 16 ? 2 : sizeof(jitvec_acc_t) <= 4 ? 4 : sizeof(jitvec_acc_t) <= 8 ? 3 : 2;
}
extern "C" __global__ void __launch_bounds__(${block}, jitvec_scan_tiles_min_blocks()) ${tiles}(const jitvec_reduction_params p) {
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
// The chunks' aggregates of each line ([line][chunk] in work) chained in order, in place:
// P(k) = f(P(k-1), A(k)).
JITVEC_EXPORT void ${line_chain}(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_acc_t* aggs = static_cast<jitvec_acc_t*>(p->work);
  for (long long line = begin; line < end; ++line) {
    jitvec_acc_t* a = aggs + line * p->chunks;
    for (long long k = 1; k < p->chunks; ++k) a[k] = jitvec_apply(a[k - 1], a[k]);
  }
}
// The tiles' aggregates of each line ([line][tile] in work) turned in place into what the next
// tile puts in front of its rows, a[k] = carry(k+1), in scan.hpp's two-level order: groups of
// GROUP tiles, GA(j) folded in order inside group j, GP(j) = f(GP(j-1), GA(j)), carry(k) =
// f(GP(j-1), LocalExcl(k)) (missing terms left out).
JITVEC_EXPORT void ${tile_chain}(const jitvec_reduction_params* p, long long begin, long long end) {
  constexpr long long GROUP = ${group};
  jitvec_acc_t* aggs = static_cast<jitvec_acc_t*>(p->work);
  for (long long line = begin; line < end; ++line) {
    jitvec_acc_t* a = aggs + line * p->chunks;
    jitvec_acc_t before{}, local{};  // GP(j-1) for tile k's group j > 0; LocalExcl(k), then f(LocalExcl(k), A(k))
    for (long long k = 0; k < p->chunks; ++k) {
      const bool first_group = k < GROUP;
      local = k % GROUP == 0 ? a[k] : jitvec_apply(local, a[k]);
      if (k % GROUP == GROUP - 1) {  // GA(j) complete: carry(k+1) = GP(j)
        before = first_group ? local : jitvec_apply(before, local);
        a[k] = before;
      } else {
        a[k] = first_group ? local : jitvec_apply(before, local);
      }
    }
  }
}
JITVEC_EXPORT void ${line_apply}(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long c = begin; c < end; ++c) jitvec_host_scan_chunk<jitvec_in_t, jitvec_out_t>(*p, c, true);
}
)";

}  // namespace

std::string scan_kernels(const codegen::LoopSpec&) {
  return fill(kDevice, {{"block", std::to_string(kCudaBlock)},
                        {"rows", std::to_string(kScanRows)},
                        {"warps", std::to_string(kCudaBlock / 32)},
                        {"group", std::to_string(kScanGroupTiles)},
                        {"tiles", kScanTilesKernel},
                        {"line_aggregates", kScanLineAggregatesKernel},
                        {"line_chain", kScanLineChainKernel},
                        {"line_apply", kScanLineApplyKernel}});
}

std::string scan_host_entries(const codegen::LoopSpec&) {
  return fill(kHost, {{"block", std::to_string(kCudaBlock)},
                      {"rows", std::to_string(kScanRows)},
                      {"aggregates", kHostScanAggregates},
                      {"tiles", kHostScanTiles},
                      {"line_aggregates", kHostScanLineAggregates},
                      {"line_chain", kHostScanLineChain},
                      {"tile_chain", kHostScanTileChain},
                      {"group", std::to_string(kScanGroupTiles)},
                      {"line_apply", kHostScanLineApply}});
}

std::int64_t scan_status_bytes(std::int64_t lines, std::int64_t tiles_a_line, DType accumulator) {
  const std::int64_t size = static_cast<std::int64_t>(dtype_size(accumulator));
  const std::int64_t tiles = lines * tiles_a_line, groups = lines * scan_groups(tiles_a_line);
  const std::int64_t slots = scan_status_packed(accumulator) ? groups : tiles + 2 * groups;
  return (scan_status_zeroed_bytes(lines, tiles_a_line, accumulator) + 15) / 16 * 16 + slots * size;
}

}  // namespace jitvec::kernels
