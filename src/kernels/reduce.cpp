#include "kernels/reduce.hpp"

#include <fmt/format.h>

#include "codegen/source_parts.hpp"
#include "kernels/kernel_text.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kCommon = R"(typedef ${in_t} jitvec_in_t;
typedef ${acc_t} jitvec_acc_t;
typedef ${out_t} jitvec_out_t;
struct jitvec_reduction_params {
  const void* in;
  void* out;
  void* work;
  long long outputs, length, chunk, chunks, out_ndim, red_ndim, final_pass, has_init;
  unsigned long long init_bits[2];
  long long axis_out_stride, vectorized;
  long long out_sizes[${dims}], out_in_strides[${dims}], out_out_strides[${dims}];
  long long red_sizes[${dims}], red_strides[${dims}];
};
static_assert(sizeof(jitvec_reduction_params) == ${params_bytes}, "jitvec_reduction_params differs from kernels::ReductionParams");
// The offset of flat index i over dimensions given innermost first.
${q} long long jitvec_offset(const long long* sizes, const long long* strides, long long ndim, long long i) {
  long long off = 0;
  for (long long d = 0; d < ndim; ++d) {
    const long long c = i % sizes[d];
    i /= sizes[d];
    off += c * strides[d];
  }
  return off;
}
${q} long long jitvec_red_offset(const jitvec_reduction_params& p, long long r) {
  return p.red_ndim == 1 ? r * p.red_strides[0] : jitvec_offset(p.red_sizes, p.red_strides, p.red_ndim, r);
}
${q} jitvec_acc_t jitvec_init(const jitvec_reduction_params& p) {
  jitvec_acc_t v;
  const unsigned char* from = reinterpret_cast<const unsigned char*>(p.init_bits);
  unsigned char* to = reinterpret_cast<unsigned char*>(&v);
  for (int i = 0; i < static_cast<int>(sizeof(v)); ++i) to[i] = from[i];
  return v;
}
// A result: this pass's partial, or (final pass) init folded in front, stored as the output type.
${q} void jitvec_reduce_store(const jitvec_reduction_params& p, long long o, long long partial, bool any, jitvec_acc_t acc) {
  if (!p.final_pass) {
    static_cast<jitvec_acc_t*>(p.out)[partial] = acc;
    return;
  }
  const jitvec_acc_t r = !any ? jitvec_init(p) : p.has_init ? jitvec_apply(jitvec_init(p), acc) : acc;
  static_cast<jitvec_out_t*>(p.out)[jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, o)] = static_cast<jitvec_out_t>(r);
}
)";

constexpr const char* kRows = R"(template <typename InT>
__device__ __forceinline__ void jitvec_reduce_rows_body(const jitvec_reduction_params& p) {
  constexpr int BLOCK = ${block}, VEC = 16 / sizeof(InT), ITEMS = ${items};
  constexpr long long SLOTS = static_cast<long long>(BLOCK) * VEC;
  __shared__ alignas(16) unsigned char part_bytes[BLOCK * sizeof(jitvec_acc_t)];
  jitvec_acc_t* part = reinterpret_cast<jitvec_acc_t*>(part_bytes);
  const int t = threadIdx.x;
  const long long item = blockIdx.x;
  const long long o = item / p.chunks, c = item - o * p.chunks;
  const long long start = c * p.chunk;
  long long len = p.length - start;
  if (len > p.chunk) len = p.chunk;
  if (len < 0) len = 0;
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, o);
  jitvec_acc_t lane[VEC];
  long long m = len - static_cast<long long>(t) * VEC;  // lanes of this thread that hold elements
  if (m > VEC) m = VEC;
  if (p.vectorized && len == SLOTS * ITEMS) {
    const jitvec_detail::Vec<InT, VEC>* v = reinterpret_cast<const jitvec_detail::Vec<InT, VEC>*>(in + start);
    jitvec_detail::Vec<InT, VEC> r[ITEMS];
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) r[it] = v[it * BLOCK + t];
#pragma unroll
    for (int e = 0; e < VEC; ++e) lane[e] = static_cast<jitvec_acc_t>(r[0].v[e]);
#pragma unroll
    for (int it = 1; it < ITEMS; ++it) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) lane[e] = jitvec_apply(lane[e], static_cast<jitvec_acc_t>(r[it].v[e]));
    }
  } else {
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      const long long i = static_cast<long long>(t) * VEC + e;
      if (i < len) lane[e] = static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start + i)]);
    }
    for (long long base = SLOTS; base < len; base += SLOTS) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        const long long i = base + static_cast<long long>(t) * VEC + e;
        if (i < len) lane[e] = jitvec_apply(lane[e], static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start + i)]));
      }
    }
  }
#pragma unroll
  for (int s = VEC / 2; s >= 1; s /= 2) {
#pragma unroll
    for (int e = 0; e < s; ++e) {
      if (e + s < m) lane[e] = jitvec_apply(lane[e], lane[e + s]);
    }
    if (m > s) m = s;
  }
  if (m > 0) part[t] = lane[0];
  long long valid = (len + VEC - 1) / VEC;  // threads that hold elements: always a prefix
  if (valid > BLOCK) valid = BLOCK;
#pragma unroll
  for (int s = BLOCK / 2; s >= 1; s /= 2) {
    __syncthreads();
    if (t < s && t + s < valid) part[t] = jitvec_apply(part[t], part[t + s]);
    if (valid > s) valid = s;
  }
  if (t == 0) jitvec_reduce_store(p, o, item, len > 0, len > 0 ? part[0] : jitvec_init(p));
}

template <typename InT>
__device__ __forceinline__ void jitvec_reduce_cols_body(const jitvec_reduction_params& p) {
  constexpr int BLOCK = ${block}, UNROLL = 8;
  const long long col_blocks = (p.outputs + BLOCK - 1) / BLOCK;
  const long long item = blockIdx.x;
  const long long c = item / col_blocks;
  const long long o = (item - c * col_blocks) * BLOCK + threadIdx.x;
  if (o >= p.outputs) return;
  const long long start = c * p.chunk;
  long long len = p.length - start;
  if (len > p.chunk) len = p.chunk;
  if (len < 0) len = 0;
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, o);
  jitvec_acc_t acc;
  if (len > 0 && p.red_ndim == 1) {
    const long long s = p.red_strides[0];
    const InT* q = in + start * s;
    acc = static_cast<jitvec_acc_t>(q[0]);
    long long i = 1;
    for (; i + UNROLL <= len; i += UNROLL) {
      InT v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = q[(i + u) * s];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) acc = jitvec_apply(acc, static_cast<jitvec_acc_t>(v[u]));
    }
    for (; i < len; ++i) acc = jitvec_apply(acc, static_cast<jitvec_acc_t>(q[i * s]));
  } else if (len > 0) {
    acc = static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start)]);
    for (long long i = 1; i < len; ++i) acc = jitvec_apply(acc, static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start + i)]));
  }
  jitvec_reduce_store(p, o, c * p.outputs + o, len > 0, len > 0 ? acc : jitvec_init(p));
}

extern "C" __global__ void __launch_bounds__(${block}) ${rows}(const jitvec_reduction_params p) {
  jitvec_reduce_rows_body<jitvec_in_t>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${rows_t}(const jitvec_reduction_params p) {
  jitvec_reduce_rows_body<jitvec_acc_t>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${cols}(const jitvec_reduction_params p) {
  jitvec_reduce_cols_body<jitvec_in_t>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${cols_t}(const jitvec_reduction_params p) {
  jitvec_reduce_cols_body<jitvec_acc_t>(p);
}
)";

// The same slots and trees as the GPU kernels, one item (block) after another.
constexpr const char* kHost = R"(template <typename InT>
static void jitvec_host_reduce_rows(const jitvec_reduction_params* pp, long long begin, long long end) {
  const jitvec_reduction_params& p = *pp;
  constexpr int BLOCK = ${block}, VEC = 16 / sizeof(InT);
  constexpr long long SLOTS = static_cast<long long>(BLOCK) * VEC;
  jitvec_acc_t acc[SLOTS];
  jitvec_acc_t part[BLOCK];
  const bool unit = p.red_ndim == 1 && p.red_strides[0] == 1;
  for (long long item = begin; item < end; ++item) {
    const long long o = item / p.chunks, c = item - o * p.chunks;
    const long long start = c * p.chunk;
    long long len = p.length - start;
    if (len > p.chunk) len = p.chunk;
    if (len < 0) len = 0;
    const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, o);
    const long long first = len < SLOTS ? len : SLOTS;
    if (unit) {
      const InT* __restrict__ q = in + start;
      for (long long j = 0; j < first; ++j) acc[j] = static_cast<jitvec_acc_t>(q[j]);
      for (long long base = SLOTS; base < len; base += SLOTS) {
        const long long n = len - base < SLOTS ? len - base : SLOTS;
        const InT* __restrict__ qb = q + base;
        for (long long j = 0; j < n; ++j) acc[j] = jitvec_apply(acc[j], static_cast<jitvec_acc_t>(qb[j]));
      }
    } else {
      for (long long j = 0; j < first; ++j) acc[j] = static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start + j)]);
      for (long long base = SLOTS; base < len; base += SLOTS) {
        const long long n = len - base < SLOTS ? len - base : SLOTS;
        for (long long j = 0; j < n; ++j) {
          acc[j] = jitvec_apply(acc[j], static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start + base + j)]));
        }
      }
    }
    for (int t = 0; t < BLOCK; ++t) {
      long long m = first - static_cast<long long>(t) * VEC;
      if (m <= 0) break;
      if (m > VEC) m = VEC;
      jitvec_acc_t* lane = acc + static_cast<long long>(t) * VEC;
      for (int s = VEC / 2; s >= 1; s /= 2) {
        for (int e = 0; e < s; ++e) {
          if (e + s < m) lane[e] = jitvec_apply(lane[e], lane[e + s]);
        }
        if (m > s) m = s;
      }
      part[t] = lane[0];
    }
    long long valid = (len + VEC - 1) / VEC;
    if (valid > BLOCK) valid = BLOCK;
    for (int s = BLOCK / 2; s >= 1; s /= 2) {
      for (int t = 0; t < s; ++t) {
        if (t + s < valid) part[t] = jitvec_apply(part[t], part[t + s]);
      }
      if (valid > s) valid = s;
    }
    jitvec_reduce_store(p, o, item, len > 0, len > 0 ? part[0] : jitvec_init(p));
  }
}

template <typename InT>
static void jitvec_host_reduce_cols(const jitvec_reduction_params* pp, long long begin, long long end) {
  const jitvec_reduction_params& p = *pp;
  constexpr int BLOCK = ${block};
  jitvec_acc_t acc[BLOCK];
  long long off[BLOCK];
  const long long col_blocks = (p.outputs + BLOCK - 1) / BLOCK;
  const InT* in = static_cast<const InT*>(p.in);
  for (long long item = begin; item < end; ++item) {
    const long long c = item / col_blocks;
    const long long o0 = (item - c * col_blocks) * BLOCK;
    const int n = static_cast<int>(p.outputs - o0 < BLOCK ? p.outputs - o0 : BLOCK);
    const long long start = c * p.chunk;
    long long len = p.length - start;
    if (len > p.chunk) len = p.chunk;
    if (len < 0) len = 0;
    for (int k = 0; k < n; ++k) off[k] = jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, o0 + k);
    if (len > 0) {
      const long long r0 = jitvec_red_offset(p, start);
      for (int k = 0; k < n; ++k) acc[k] = static_cast<jitvec_acc_t>(in[off[k] + r0]);
      for (long long i = 1; i < len; ++i) {
        const long long r = jitvec_red_offset(p, start + i);
        for (int k = 0; k < n; ++k) acc[k] = jitvec_apply(acc[k], static_cast<jitvec_acc_t>(in[off[k] + r]));
      }
    }
    for (int k = 0; k < n; ++k) {
      jitvec_reduce_store(p, o0 + k, c * p.outputs + o0 + k, len > 0, len > 0 ? acc[k] : jitvec_init(p));
    }
  }
}

JITVEC_EXPORT void ${rows}(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_host_reduce_rows<jitvec_in_t>(p, begin, end);
}
JITVEC_EXPORT void ${rows_t}(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_host_reduce_rows<jitvec_acc_t>(p, begin, end);
}
JITVEC_EXPORT void ${cols}(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_host_reduce_cols<jitvec_in_t>(p, begin, end);
}
JITVEC_EXPORT void ${cols_t}(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_host_reduce_cols<jitvec_acc_t>(p, begin, end);
}
)";

}  // namespace

std::string reduction_common(const codegen::LoopSpec& spec, const char* qualifiers) {
  return fill(kCommon, {{"in_t", codegen::c_type(spec.inputs.at(0))},
                        {"acc_t", codegen::c_type(spec.loop.results.at(0))},
                        {"out_t", codegen::c_type(spec.outputs.at(0))},
                        {"dims", std::to_string(launch::kMaxDims)},
                        {"params_bytes", std::to_string(sizeof(ReductionParams))},
                        {"q", qualifiers}});
}

std::string reduce_kernels(const codegen::LoopSpec&) {
  return fill(kRows, {{"block", std::to_string(kCudaBlock)},
                      {"items", std::to_string(kReduceItems)},
                      {"rows", kReduceRowsKernel},
                      {"rows_t", kReduceRowsPartialKernel},
                      {"cols", kReduceColsKernel},
                      {"cols_t", kReduceColsPartialKernel}});
}

std::string reduce_host_entries(const codegen::LoopSpec&) {
  return fill(kHost, {{"block", std::to_string(kCudaBlock)},
                      {"rows", kHostReduceRows},
                      {"rows_t", kHostReduceRowsPartial},
                      {"cols", kHostReduceCols},
                      {"cols_t", kHostReduceColsPartial}});
}

std::int64_t reduction_items(ReduceKind kind, const ReductionParams& p) {
  if (kind == ReduceKind::rows) return p.outputs * p.chunks;
  return p.chunks * ((p.outputs + kCudaBlock - 1) / kCudaBlock);
}

}  // namespace jitvec::kernels
