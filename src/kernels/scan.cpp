#include "kernels/scan.hpp"

#include "kernels/kernel_text.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kDevice = R"(// A value moved up the lanes of a warp (__shfl_up_sync), 32 bits at a time: any accumulator type.
template <typename T> __device__ __forceinline__ T jitvec_shfl_up(const T& v, int delta) {
  T r = v;
  if constexpr (sizeof(T) % 4 == 0) {
    unsigned int* w = reinterpret_cast<unsigned int*>(&r);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) w[i] = __shfl_up_sync(0xffffffffu, w[i], delta);
  } else {  // 1 or 2 bytes
    unsigned char* b = reinterpret_cast<unsigned char*>(&r);
    unsigned int word = 0;
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) word |= static_cast<unsigned int>(b[i]) << (8 * i);
    word = __shfl_up_sync(0xffffffffu, word, delta);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) b[i] = static_cast<unsigned char>(word >> (8 * i));
  }
  return r;
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

// A tile: its aggregate (APPLY false, into out[tile]) or its scan with the prefix of the tiles
// before it (APPLY true: work[tile - 1] when work is set and the tile is not a line's first).
template <typename InT, typename OutT, bool APPLY>
__device__ __forceinline__ void jitvec_scan_tile_body(const jitvec_reduction_params& p) {
  constexpr int BLOCK = ${block}, ROWS = ${rows}, VEC = 16 / sizeof(InT), ROW = BLOCK * VEC, TILE = ROWS * ROW;
  constexpr int OUT_VEC = 16 / sizeof(OutT);
  constexpr bool OUT_FITS = (VEC * sizeof(OutT)) % 16 == 0;
  __shared__ alignas(16) unsigned char sums_bytes[2 * (BLOCK / 32) * sizeof(jitvec_acc_t)];
  jitvec_acc_t* sums = reinterpret_cast<jitvec_acc_t*>(sums_bytes);
  const int t = threadIdx.x;
  const long long tiles = p.outputs * p.chunks;
  const long long id = APPLY ? tiles - 1 - static_cast<long long>(blockIdx.x) : static_cast<long long>(blockIdx.x);
  const long long line = id / p.chunks, k = id - line * p.chunks;
  const long long start = k * TILE;
  const long long rest = p.length - start;
  const int len = static_cast<int>(rest < TILE ? rest : TILE);
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line);
  OutT* out = static_cast<OutT*>(p.out);
  if (APPLY) out += jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line);
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  bool has_carry = false;
  jitvec_acc_t carry;
  if (APPLY && k > 0 && p.work) {
    carry = static_cast<const jitvec_acc_t*>(p.work)[id - 1];
    has_carry = true;
  }
  const bool vec_in = (p.vectorized & 1) && len == TILE;
  const bool vec_out = OUT_FITS && (p.vectorized & 2) && len == TILE;
  jitvec_detail::Vec<InT, VEC> raw[ROWS];
  if (vec_in) {
    const jitvec_detail::Vec<InT, VEC>* v = reinterpret_cast<const jitvec_detail::Vec<InT, VEC>*>(in + start);
#pragma unroll
    for (int u = 0; u < ROWS; ++u) raw[u] = v[u * BLOCK + t];
  }
#pragma unroll
  for (int u = 0; u < ROWS; ++u) {
    const int row_len = len - u * ROW;  // the same in every thread
    if (row_len <= 0) break;
    const int active = row_len < ROW ? (row_len + VEC - 1) / VEC : BLOCK;
    int m = row_len - t * VEC;
    m = m < 0 ? 0 : m > VEC ? VEC : m;
    const long long first = start + static_cast<long long>(u) * ROW + static_cast<long long>(t) * VEC;
    jitvec_acc_t x[VEC];
    if (vec_in) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) x[e] = static_cast<jitvec_acc_t>(raw[u].v[e]);
    } else {
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        if (e < m) x[e] = static_cast<jitvec_acc_t>(in[(first + e) * s_in]);
      }
    }
    jitvec_acc_t excl, total;
    jitvec_scan_row<VEC>(x, m, active, sums + (u & 1) * (BLOCK / 32), excl, total);
    if (APPLY && m > 0) {
      const bool has_excl = t > 0;
      if (has_carry || has_excl) {
        const jitvec_acc_t c = has_carry && has_excl ? jitvec_apply(carry, excl) : has_carry ? carry : excl;
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
    carry = has_carry ? jitvec_apply(carry, total) : total;
    has_carry = true;
  }
  if (!APPLY && t == 0) static_cast<jitvec_acc_t*>(p.out)[id] = carry;
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

extern "C" __global__ void __launch_bounds__(${block}) ${aggregates}(const jitvec_reduction_params p) {
  jitvec_scan_tile_body<jitvec_in_t, jitvec_acc_t, false>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${aggregates_t}(const jitvec_reduction_params p) {
  jitvec_scan_tile_body<jitvec_acc_t, jitvec_acc_t, false>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${tiles}(const jitvec_reduction_params p) {
  jitvec_scan_tile_body<jitvec_in_t, jitvec_out_t, true>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${tiles_t}(const jitvec_reduction_params p) {
  jitvec_scan_tile_body<jitvec_acc_t, jitvec_acc_t, true>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${line_aggregates}(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_in_t, jitvec_acc_t, false>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${line_aggregates_t}(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_acc_t, jitvec_acc_t, false>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${line_apply}(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_in_t, jitvec_out_t, true>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${line_apply_t}(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_acc_t, jitvec_acc_t, true>(p);
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
JITVEC_EXPORT void ${aggregates_t}(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long id = begin; id < end; ++id) static_cast<jitvec_acc_t*>(p->out)[id] = jitvec_host_scan_tile<jitvec_acc_t, jitvec_acc_t, false>(*p, id);
}
JITVEC_EXPORT void ${tiles}(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long id = begin; id < end; ++id) jitvec_host_scan_tile<jitvec_in_t, jitvec_out_t, true>(*p, id);
}
JITVEC_EXPORT void ${tiles_t}(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long id = begin; id < end; ++id) jitvec_host_scan_tile<jitvec_acc_t, jitvec_acc_t, true>(*p, id);
}
JITVEC_EXPORT void ${line_aggregates}(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long c = begin; c < end; ++c) static_cast<jitvec_acc_t*>(p->out)[c] = jitvec_host_scan_chunk<jitvec_in_t, jitvec_acc_t>(*p, c, false);
}
JITVEC_EXPORT void ${line_aggregates_t}(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long c = begin; c < end; ++c) static_cast<jitvec_acc_t*>(p->out)[c] = jitvec_host_scan_chunk<jitvec_acc_t, jitvec_acc_t>(*p, c, false);
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
JITVEC_EXPORT void ${line_apply_t}(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long c = begin; c < end; ++c) jitvec_host_scan_chunk<jitvec_acc_t, jitvec_acc_t>(*p, c, true);
}
)";

}  // namespace

std::string scan_kernels(const codegen::LoopSpec&) {
  return fill(kDevice, {{"block", std::to_string(kCudaBlock)},
                        {"rows", std::to_string(kScanRows)},
                        {"warps", std::to_string(kCudaBlock / 32)},
                        {"aggregates", kScanAggregatesKernel},
                        {"aggregates_t", kScanAggregatesPartialKernel},
                        {"tiles", kScanTilesKernel},
                        {"tiles_t", kScanTilesPartialKernel},
                        {"line_aggregates", kScanLineAggregatesKernel},
                        {"line_aggregates_t", kScanLineAggregatesPartialKernel},
                        {"line_chain", kScanLineChainKernel},
                        {"line_apply", kScanLineApplyKernel},
                        {"line_apply_t", kScanLineApplyPartialKernel}});
}

std::string scan_host_entries(const codegen::LoopSpec&) {
  return fill(kHost, {{"block", std::to_string(kCudaBlock)},
                      {"rows", std::to_string(kScanRows)},
                      {"aggregates", kHostScanAggregates},
                      {"aggregates_t", kHostScanAggregatesPartial},
                      {"tiles", kHostScanTiles},
                      {"tiles_t", kHostScanTilesPartial},
                      {"line_aggregates", kHostScanLineAggregates},
                      {"line_aggregates_t", kHostScanLineAggregatesPartial},
                      {"line_chain", kHostScanLineChain},
                      {"line_apply", kHostScanLineApply},
                      {"line_apply_t", kHostScanLineApplyPartial}});
}

}  // namespace jitvec::kernels
