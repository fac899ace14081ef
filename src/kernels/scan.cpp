#include "kernels/scan.hpp"

#include "kernels/kernel_text.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kDevice = R"(// A copy through volatile bytes: the look-back reads values other blocks wrote (never L1).
template <typename T> __device__ __forceinline__ T jitvec_volatile_load(const T* at) {
  T v;
  const volatile unsigned char* from = reinterpret_cast<const volatile unsigned char*>(at);
  unsigned char* to = reinterpret_cast<unsigned char*>(&v);
#pragma unroll
  for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) to[i] = from[i];
  return v;
}

extern "C" __global__ void __launch_bounds__(${block}) ${clear}(const jitvec_reduction_params p) {
  long long* words = static_cast<long long*>(p.work);
  const long long n = 1 + p.outputs * p.chunks;
  const long long step = static_cast<long long>(gridDim.x) * ${block};
  for (long long i = static_cast<long long>(blockIdx.x) * ${block} + threadIdx.x; i < n; i += step) words[i] = 0;
}

extern "C" __global__ void __launch_bounds__(${block}) ${tiles}(const jitvec_reduction_params p) {
  constexpr int BLOCK = ${block}, ITEMS = ${items}, TILE = BLOCK * ITEMS;
  constexpr int VEC_IN = 16 / sizeof(jitvec_in_t), VEC_OUT = 16 / sizeof(jitvec_out_t);
  __shared__ alignas(16) unsigned char buf_bytes[(TILE + TILE / 32) * sizeof(jitvec_acc_t)];
  __shared__ alignas(16) unsigned char sums_bytes[BLOCK * sizeof(jitvec_acc_t)];
  __shared__ alignas(16) unsigned char carry_bytes[sizeof(jitvec_acc_t)];
  __shared__ long long tile_id;
  jitvec_acc_t* buf = reinterpret_cast<jitvec_acc_t*>(buf_bytes);
  jitvec_acc_t* sums = reinterpret_cast<jitvec_acc_t*>(sums_bytes);
  jitvec_acc_t* carry = reinterpret_cast<jitvec_acc_t*>(carry_bytes);
  const int t = threadIdx.x;
  const long long total = p.outputs * p.chunks;
  unsigned long long* ticket = static_cast<unsigned long long*>(p.work);
  unsigned long long* flags = ticket + 1;
  jitvec_acc_t* aggs = reinterpret_cast<jitvec_acc_t*>(flags + total);
  jitvec_acc_t* pres = aggs + total;
  if (t == 0) tile_id = static_cast<long long>(atomicAdd(ticket, 1ull));
  __syncthreads();
  const long long id = tile_id;
  const long long line = id / p.chunks, k = id - line * p.chunks;
  const long long start = k * TILE;
  const int len = static_cast<int>(p.length - start < TILE ? p.length - start : TILE);
  const jitvec_in_t* in = static_cast<const jitvec_in_t*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line);
  jitvec_out_t* out = static_cast<jitvec_out_t*>(p.out) + jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line);
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  if (p.vectorized && len == TILE) {
    const jitvec_detail::Vec<jitvec_in_t, VEC_IN>* v = reinterpret_cast<const jitvec_detail::Vec<jitvec_in_t, VEC_IN>*>(in + start);
#pragma unroll
    for (int u = 0; u < TILE / VEC_IN / BLOCK; ++u) {
      const jitvec_detail::Vec<jitvec_in_t, VEC_IN> x = v[u * BLOCK + t];
#pragma unroll
      for (int e = 0; e < VEC_IN; ++e) {
        const int i = (u * BLOCK + t) * VEC_IN + e;
        buf[i + i / 32] = static_cast<jitvec_acc_t>(x.v[e]);
      }
    }
  } else {
    for (int i = t; i < len; i += BLOCK) buf[i + i / 32] = static_cast<jitvec_acc_t>(in[(start + i) * s_in]);
  }
  __syncthreads();
  // Each thread: an inclusive fold of its ITEMS consecutive elements, in place.
  const int first = t * ITEMS;
  const int mine = len - first < ITEMS ? len - first : ITEMS;
  if (mine > 0) {
    jitvec_acc_t run = buf[first + first / 32];
#pragma unroll
    for (int j = 1; j < ITEMS; ++j) {
      const int i = first + j;
      if (j < mine) {
        run = jitvec_apply(run, buf[i + i / 32]);
        buf[i + i / 32] = run;
      }
    }
    sums[t] = run;
  }
  // The block: an inclusive scan of the threads' sums (those that hold elements: a prefix).
  const int valid = (len + ITEMS - 1) / ITEMS;
#pragma unroll
  for (int s = 1; s < BLOCK; s *= 2) {
    __syncthreads();
    const bool update = t >= s && t < valid;
    jitvec_acc_t v;
    if (update) v = jitvec_apply(sums[t - s], sums[t]);
    __syncthreads();
    if (update) sums[t] = v;
  }
  __syncthreads();
  // The look-back: P(k-1) into *carry (k > 0), and this tile's P(k) published.
  if (t == 0) {
    const jitvec_acc_t a = sums[valid - 1];
    if (k == 0) {
      pres[id] = a;
      __threadfence();
      atomicExch(&flags[id], 2ull);
    } else {
      aggs[id] = a;
      __threadfence();
      atomicExch(&flags[id], 1ull);
      long long j = id - 1;
      for (;;) {
        const unsigned long long f = *reinterpret_cast<volatile unsigned long long*>(&flags[j]);
        if (f == 2ull) break;
        if (f == 1ull) --j;  // never past the line's first tile, which publishes a prefix
      }
      __threadfence();
      jitvec_acc_t excl = jitvec_volatile_load(&pres[j]);
      for (long long m = j + 1; m < id; ++m) excl = jitvec_apply(excl, jitvec_volatile_load(&aggs[m]));
      pres[id] = jitvec_apply(excl, a);
      __threadfence();
      atomicExch(&flags[id], 2ull);
      *carry = excl;
    }
  }
  __syncthreads();
  if (mine > 0 && (t > 0 || k > 0)) {
    jitvec_acc_t e = t > 0 ? sums[t - 1] : *carry;
    if (t > 0 && k > 0) e = jitvec_apply(*carry, e);
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const int i = first + j;
      if (j < mine) buf[i + i / 32] = jitvec_apply(e, buf[i + i / 32]);
    }
  }
  __syncthreads();
  if (p.vectorized && len == TILE) {
    jitvec_detail::Vec<jitvec_out_t, VEC_OUT>* v = reinterpret_cast<jitvec_detail::Vec<jitvec_out_t, VEC_OUT>*>(out + start);
#pragma unroll
    for (int u = 0; u < TILE / VEC_OUT / BLOCK; ++u) {
      jitvec_detail::Vec<jitvec_out_t, VEC_OUT> x;
#pragma unroll
      for (int e = 0; e < VEC_OUT; ++e) {
        const int i = (u * BLOCK + t) * VEC_OUT + e;
        x.v[e] = static_cast<jitvec_out_t>(buf[i + i / 32]);
      }
      v[u * BLOCK + t] = x;
    }
  } else {
    for (int i = t; i < len; i += BLOCK) out[(start + i) * s_out] = static_cast<jitvec_out_t>(buf[i + i / 32]);
  }
}

extern "C" __global__ void __launch_bounds__(${block}) ${lines}(const jitvec_reduction_params p) {
  const long long line = static_cast<long long>(blockIdx.x) * ${block} + threadIdx.x;
  if (line >= p.outputs) return;
  const jitvec_in_t* in = static_cast<const jitvec_in_t*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line);
  jitvec_out_t* out = static_cast<jitvec_out_t*>(p.out) + jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line);
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  jitvec_acc_t acc = static_cast<jitvec_acc_t>(in[0]);
  out[0] = static_cast<jitvec_out_t>(acc);
  for (long long i = 1; i < p.length; ++i) {
    acc = jitvec_apply(acc, static_cast<jitvec_acc_t>(in[i * s_in]));
    out[i * s_out] = static_cast<jitvec_out_t>(acc);
  }
}
)";

constexpr const char* kHost = R"(static inline jitvec_acc_t jitvec_tile_fold(const jitvec_reduction_params& p, long long tile, jitvec_out_t* write, const jitvec_acc_t* prefix) {
  const long long line = tile / p.chunks, k = tile - line * p.chunks;
  const long long start = k * p.chunk;
  const long long len = p.length - start < p.chunk ? p.length - start : p.chunk;
  const jitvec_in_t* in = static_cast<const jitvec_in_t*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line) + start * p.red_strides[0];
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  jitvec_acc_t run = static_cast<jitvec_acc_t>(in[0]);
  if (write) {
    write += jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line) + start * s_out;
    write[0] = static_cast<jitvec_out_t>(prefix ? jitvec_apply(*prefix, run) : run);
    for (long long i = 1; i < len; ++i) {
      run = jitvec_apply(run, static_cast<jitvec_acc_t>(in[i * s_in]));
      write[i * s_out] = static_cast<jitvec_out_t>(prefix ? jitvec_apply(*prefix, run) : run);
    }
  } else {
    for (long long i = 1; i < len; ++i) run = jitvec_apply(run, static_cast<jitvec_acc_t>(in[i * s_in]));
  }
  return run;
}

JITVEC_EXPORT void ${aggregates}(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_acc_t* aggs = static_cast<jitvec_acc_t*>(p->work);
  for (long long tile = begin; tile < end; ++tile) aggs[tile] = jitvec_tile_fold(*p, tile, nullptr, nullptr);
}

JITVEC_EXPORT void ${chain}(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_acc_t* aggs = static_cast<jitvec_acc_t*>(p->work);
  for (long long line = begin; line < end; ++line) {
    jitvec_acc_t* a = aggs + line * p->chunks;
    for (long long k = 1; k < p->chunks; ++k) a[k] = jitvec_apply(a[k - 1], a[k]);
  }
}

JITVEC_EXPORT void ${apply}(const jitvec_reduction_params* p, long long begin, long long end) {
  const jitvec_acc_t* prefixes = static_cast<const jitvec_acc_t*>(p->work);
  for (long long tile = begin; tile < end; ++tile) {
    const bool first = tile % p->chunks == 0;
    jitvec_tile_fold(*p, tile, static_cast<jitvec_out_t*>(p->out), first ? nullptr : prefixes + tile - 1);
  }
}

JITVEC_EXPORT void ${lines}(const jitvec_reduction_params* p, long long begin, long long end) {
  const long long s_in = p->red_strides[0], s_out = p->axis_out_stride;
  for (long long line = begin; line < end; ++line) {
    const jitvec_in_t* in = static_cast<const jitvec_in_t*>(p->in) + jitvec_offset(p->out_sizes, p->out_in_strides, p->out_ndim, line);
    jitvec_out_t* out = static_cast<jitvec_out_t*>(p->out) + jitvec_offset(p->out_sizes, p->out_out_strides, p->out_ndim, line);
    jitvec_acc_t acc = static_cast<jitvec_acc_t>(in[0]);
    out[0] = static_cast<jitvec_out_t>(acc);
    for (long long i = 1; i < p->length; ++i) {
      acc = jitvec_apply(acc, static_cast<jitvec_acc_t>(in[i * s_in]));
      out[i * s_out] = static_cast<jitvec_out_t>(acc);
    }
  }
}
)";

}  // namespace

std::size_t scan_work_bytes(std::int64_t tiles, DType acc) {
  const std::size_t values = static_cast<std::size_t>(tiles) * dtype_size(acc);
  return 8 * static_cast<std::size_t>(scan_clear_words(tiles)) + 2 * values;
}

std::string scan_kernels(const codegen::LoopSpec&) {
  return fill(kDevice, {{"block", std::to_string(kCudaBlock)},
                        {"items", std::to_string(kScanItems)},
                        {"clear", kScanClearKernel},
                        {"tiles", kScanTilesKernel},
                        {"lines", kScanLinesKernel}});
}

std::string scan_host_entries(const codegen::LoopSpec&) {
  return fill(kHost, {{"aggregates", kHostScanAggregates},
                      {"chain", kHostScanChain},
                      {"apply", kHostScanApply},
                      {"lines", kHostScanLines}});
}

}  // namespace jitvec::kernels
