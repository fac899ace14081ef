#include "engine/reduction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/strided_copy.hpp"
#include "cpu/host_fault.hpp"
#include "cuda/context.hpp"
#include "cuda/driver.hpp"
#include "cuda/launch.hpp"
#include "engine/engine_impl.hpp"
#include "engine/method_module.hpp"
#include "engine/out_overlap.hpp"
#include "engine/reduce_where.hpp"
#include "engine/reduction_scalar.hpp"
#include "engine/type_resolution.hpp"
#include "kernels/reduction_source.hpp"
#include "launch/broadcast.hpp"

namespace jitvec::engine {
namespace {

using kernels::ReduceKind;
using kernels::ReductionParams;
using kernels::ScanKind;

std::int64_t product(const std::vector<std::int64_t>& sizes) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) n *= s;
  return n;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

void check_binary(const detail::UfuncImpl& ufunc, const char* method) {
  const Signature& first = ufunc.signatures.front();
  const std::size_t nin = first.args.size();
  const std::size_t nout = first.results.size();
  if (nin != 2 || nout != 1) {
    throw ArgumentError(fmt::format(
        "ufunc '{}' takes {} input{} and returns {} result{}: {}() is defined only for ufuncs of "
        "two inputs and one output (as NumPy's binary ufuncs)",
        ufunc.name, nin, nin == 1 ? "" : "s", nout, nout == 1 ? "" : "s", method));
  }
}

int normalize_axis(int axis, int ndim, const detail::UfuncImpl& ufunc, const char* method) {
  if (axis < -ndim || axis >= ndim) {
    throw ArgumentError(fmt::format("ufunc '{}': {}(): axis {} is out of bounds for an array of {} "
                                    "dimension{}",
                                    ufunc.name, method, axis, ndim, ndim == 1 ? "" : "s"));
  }
  return axis < 0 ? axis + ndim : axis;
}

void check_out(const detail::UfuncImpl& ufunc, const char* method, const Array& out,
               const Shape& shape, DType result) {
  if (out.shape() != shape) {
    throw BroadcastError(fmt::format("ufunc '{}': {}(): out= has shape {}, but the result has shape {}",
                                     ufunc.name, method, shape_to_string(out.shape()),
                                     shape_to_string(shape)));
  }
  if (!can_cast_same_kind(result, out.dtype())) {
    throw ArgumentError(fmt::format(
        "ufunc '{}': {}(): out= is a {} array, but the accumulator is {}, which does not cast to "
        "{} (casting='same_kind')",
        ufunc.name, method, dtype_name(out.dtype()), dtype_name(result), dtype_name(out.dtype())));
  }
  if (const int d = launch::repeated_dimension(out.shape(), out.strides()); d >= 0) {
    throw ArgumentError(fmt::format("ufunc '{}': {}(): out= has stride 0 in dimension {} (a "
                                    "broadcast view): several results would land on one element",
                                    ufunc.name, method, d));
  }
}

Target choose_target(const detail::UfuncImpl& ufunc, std::optional<Target> asked) {
  return asked ? *asked : ufunc.target ? *ufunc.target : ufunc.engine.default_target();
}

// The value `v` in the accumulator type, as the kernels read it (ReductionParams::init_bits).
void set_init(const detail::UfuncImpl& ufunc, const char* method, const char* what, const Scalar& v,
              DType acc, ReductionParams& p) {
  const ScalarSlot slot = accumulator_value(ufunc.name, method, what, v, acc);
  static_assert(sizeof(slot.bytes) <= sizeof(p.init_bits), "init_bits holds a scalar slot");
  std::memcpy(p.init_bits, slot.bytes, sizeof(slot.bytes));
  p.has_init = 1;
}

MethodDefinition method_definition(const detail::UfuncImpl& ufunc, const codegen::LoopSpec& spec,
                                   kernels::ReductionMethod which) {
  const bool reduce = which == kernels::ReductionMethod::reduce;
  MethodDefinition method;
  method.function = &ufunc.source;
  method.what = reduce ? kReduceMethod : kAccumulateMethod;
  method.source = [&ufunc, spec, which](bool host, const std::vector<const codegen::HelperSource*>& helpers) {
    return kernels::generate_reduction_source(host, ufunc.source, helpers, spec, which);
  };
  method.cuda_kernel = reduce ? kernels::kReduceRowsKernel : kernels::kScanTilesKernel;
  method.host_symbol = reduce ? kernels::kHostReduceRows : kernels::kHostScanTiles;
  return method;
}

void copy_dims(const MergedDims& dims, long long* sizes, long long* in, long long* out) {
  for (int d = 0; d < dims.ndim(); ++d) {
    sizes[d] = dims.sizes[d];
    if (in) in[d] = dims.in[d];
    if (out && !dims.out.empty()) out[d] = dims.out[d];
  }
}

void check_dims(const detail::UfuncImpl& ufunc, const char* method, const MergedDims& dims,
                const char* what) {
  if (dims.ndim() > launch::kMaxDims) {
    throw ArgumentError(fmt::format("ufunc '{}': {}(): the {} dimensions merge to {}, more than "
                                    "the {} jitvec supports",
                                    ufunc.name, method, what, dims.ndim(), launch::kMaxDims));
  }
}

// Where a call runs and where its arrays are: the input (moved to the device when needed) and
// the output the kernels write (out= itself, or a new array).
struct Placement {
  Target target = Target::cpu;
  int device = 0;
  std::optional<Array> moved_input;  // x on the device, or a copy that does not overlap out=
  const Array* input = nullptr;
  Array result;                      // what the kernels write
  bool copy_back = false;            // result is a device array to be copied to the host
};

Placement place(const detail::UfuncImpl& ufunc, const char* method, Target target, const Array& x,
                const std::optional<Array>& out, DType out_dtype, const Shape& shape, Stream stream) {
  Placement at;
  at.target = target;
  at.input = &x;
  if (target != Target::cuda) {
    if (x.is_device() || (out && out->is_device())) {
      throw TargetError(fmt::format(
          "ufunc '{}': {}(): {} is in device memory (cuda:{}), but target {} runs on the host; copy "
          "it with to_host() or use target cuda",
          ufunc.name, method, x.is_device() ? "the input" : "out=",
          x.is_device() ? x.device() : out->device(), target_name(target)));
    }
    if (out && may_overlap(*out, x) && !is_exact_alias(*out, x)) {
      at.moved_input = Array::empty(x.dtype(), x.shape());
      detail::copy_strided_to_contiguous(x, at.moved_input->data());
      at.input = &*at.moved_input;
    }
    at.result = out ? *out : Array::empty(out_dtype, shape);
    return at;
  }
  int device = x.is_device() ? x.device() : out && out->is_device() ? out->device() : 0;
  if (x.is_device() && out && out->is_device() && out->device() != x.device()) {
    throw ArgumentError(fmt::format("ufunc '{}': {}(): the input is on cuda:{} but out= is on "
                                    "cuda:{}; move them to one device",
                                    ufunc.name, method, x.device(), out->device()));
  }
  at.device = device;
  if (!x.is_device()) {
    at.moved_input = x.to_device(device, stream);
    at.input = &*at.moved_input;
  } else if (out && out->is_device() && may_overlap(*out, x) && !is_exact_alias(*out, x)) {
    at.moved_input = x.to_host(stream).to_device(device, stream);  // rare: a plain copy
    at.input = &*at.moved_input;
  }
  if (out && out->is_device()) {
    at.result = *out;
  } else {
    at.result = Array::empty(out ? out->dtype() : out_dtype, shape, Memory::device, device, stream);
    at.copy_back = true;
  }
  return at;
}

// The call's answer: the device result, or its copy into out= or a new host array.
Array finish(Placement& at, const Array& x, const std::optional<Array>& out, Stream stream) {
  if (!at.copy_back) return at.result;
  if (!out && x.is_device()) return at.result;
  Array host = at.result.to_host(stream);  // synchronizes
  if (!out) return host;
  detail::copy_contiguous_to_strided(host.data(), *out);
  return *out;
}

// entry(params, begin, end) guarded against integer division faults in the user's function
// (cpu/host_fault.hpp): a fault is a jitvec::Error naming the ufunc and the target, not SIGFPE.
void call_guarded(kernels::ReductionEntry entry, const ReductionParams* params, std::int64_t begin,
                  std::int64_t end, const std::string& ufunc_name, Target target) {
  struct Call {
    kernels::ReductionEntry entry;
    const ReductionParams* params;
    long long begin, end;
  } call{entry, params, begin, end};
  const bool faulted = cpu::run_catching_division_faults(
      [](void* context) {
        const Call& c = *static_cast<const Call*>(context);
        c.entry(c.params, c.begin, c.end);
      },
      &call);
  if (faulted) throw Error(cpu::division_fault_message(ufunc_name, target_name(target)));
}

// Runs `entry` over [0, items): at once (cpu) or over the thread pool (parallel); the items are
// the same either way, so is the result.
void run_items(Engine::Impl& engine, Target target, const std::string& ufunc_name,
               kernels::ReductionEntry entry, const ReductionParams& p, std::int64_t items,
               std::int64_t elements_per_item) {
  const ReductionParams* params = &p;
  if (target == Target::parallel) {
    const std::int64_t min_items = std::max<std::int64_t>(1, (1 << 15) / std::max<std::int64_t>(1, elements_per_item));
    engine.thread_pool().parallel_for(0, items, min_items, [&](std::int64_t b, std::int64_t e) {
      call_guarded(entry, params, b, e, ufunc_name, target);
    });
  } else {
    call_guarded(entry, params, 0, items, ufunc_name, target);
  }
}

kernels::ReductionEntry host_entry(const HostMethodModule& module, const char* name) {
  return reinterpret_cast<kernels::ReductionEntry>(module.module.symbol(name));
}

void launch(const CudaMethodModule& module, const char* name, std::int64_t blocks,
            ReductionParams& p, CUstream stream) {
  if (blocks <= 0) return;
  if (blocks > 0x7fffffff) {
    throw ArgumentError(fmt::format("a reduction of {} blocks is beyond one launch", blocks));
  }
  void* params[] = {&p};
  cuda::launch(module.module.function(name), static_cast<unsigned>(blocks), 1, 1,
               kernels::kCudaBlock, 0, stream, params);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Whether a rows pass (or a scan) may use 16-byte vectors of `t` at `in` with these strides.
bool vectorizable(const void* in, DType t, const ReductionParams& p, const long long* line_strides) {
  const long long vec = kernels::vector_elements(t);
  if (!aligned16(in) || p.red_ndim != 1 || p.red_strides[0] != 1) return false;
  for (int d = 0; d < p.out_ndim; ++d) {
    if (line_strides[d] % vec != 0) return false;
  }
  return true;
}

// One step of a scan: its GPU kernel (null: the GPU does not run it) and host entry;
// per_thread: a GPU thread per work item (else a block per item).
struct ScanStep {
  const char* gpu;
  const char* host;
  bool per_thread;
};
constexpr ScanStep kTileAggregates{nullptr, kernels::kHostScanAggregates, false};
constexpr ScanStep kTileTree{nullptr, kernels::kHostScanTree, false};
constexpr ScanStep kTileScans{kernels::kScanTilesKernel, kernels::kHostScanTiles, false};
constexpr ScanStep kLineAggregates{kernels::kScanLineAggregatesKernel, kernels::kHostScanLineAggregates, true};
constexpr ScanStep kLineChain{kernels::kScanLineChainKernel, kernels::kHostScanLineChain, true};
constexpr ScanStep kLineApply{kernels::kScanLineApplyKernel, kernels::kHostScanLineApply, true};

// Where a scan runs: the GPU module and stream, or the host module and the target's threads.
struct ScanRunner {
  Engine::Impl& engine;
  const std::string& ufunc_name;
  Target target;
  const CudaMethodModule* gpu = nullptr;
  const HostMethodModule* host = nullptr;
  DType input, output, acc;
  int device = 0;
  Stream stream;

  void run(const ScanStep& step, ReductionParams& p, std::int64_t items, std::int64_t elements_per_item) const {
    if (gpu) {
      const std::int64_t blocks = step.per_thread ? ceil_div(items, kernels::kCudaBlock) : items;
      launch(*gpu, step.gpu, blocks, p, stream.handle());
    } else {
      run_items(engine, target, ufunc_name, host_entry(*host, step.host), p, items, elements_per_item);
    }
  }
  Array buffer(std::int64_t values) const {
    return gpu ? Array::empty(acc, Shape{values}, Memory::device, device, stream) : Array::empty(acc, Shape{values});
  }
};

// ReductionParams::vectorized of the GPU tiles kernel: 16-byte loads of `in_type` when the axis
// is unit-stride and every line starts on 16 bytes; the same for stores of `out_type`.
long long scan_vector_bits(const ReductionParams& p, DType in_type, DType out_type) {
  auto lines_aligned = [&](const void* base, const long long* strides, DType t) {
    if (!aligned16(base)) return false;
    for (int d = 0; d < p.out_ndim; ++d) {
      if (p.out_sizes[d] > 1 && strides[d] % kernels::vector_elements(t) != 0) return false;
    }
    return true;
  };
  long long bits = 0;
  if (p.red_strides[0] == 1 && lines_aligned(p.in, p.out_in_strides, in_type)) bits |= kernels::kScanVectorLoads;
  if (p.axis_out_stride == 1 && lines_aligned(p.out, p.out_out_strides, out_type)) bits |= kernels::kScanVectorStores;
  return bits;
}

// Runs the scan `p` (in, out and the lines set) in the order of kernels/scan.hpp, on the GPU's
// stream or on the host. The GPU's tiles are one launch, after the status (the tile counter and
// the ranges' flags) is zeroed on the same stream; everything else (the lines kind, and the
// tiles on the host) is aggregates, their prefixes per line (the tiles' tree, the lines'
// chain), then each chunk again with its prefix. GPU buffers are stream-ordered allocations,
// freed after the launches that use them.
void run_scan(const ScanRunner& runner, ReductionParams p, ScanKind kind) {
  const bool tiles = kind == ScanKind::tiles;
  p.chunk = tiles ? kernels::scan_tile(runner.input) : kernels::kScanLineChunk;
  p.chunks = ceil_div(p.length, p.chunk);
  p.work = nullptr;
  const std::int64_t chunks = p.outputs * p.chunks;
  if (tiles && runner.gpu) {
    std::optional<Array> status;
    if (p.chunks > 1) {
      if (p.chunks > kernels::kScanMaxTiles) {
        throw ArgumentError(fmt::format("ufunc '{}': accumulate() over an axis of {} elements needs {} tiles a line; "
                                        "the GPU scan takes at most {}",
                                        runner.ufunc_name, p.length, p.chunks, kernels::kScanMaxTiles));
      }
      const std::size_t acc_size = dtype_size(runner.acc);
      status = Array::empty(DType::uint8, Shape{kernels::scan_status_bytes(p.outputs, p.chunks, acc_size)},
                            Memory::device, runner.device, runner.stream);
      cuda::check(cuda::driver().memsetD8Async(
                      reinterpret_cast<CUdeviceptr>(status->data()), 0,
                      static_cast<std::size_t>(kernels::scan_status_clear_bytes(p.outputs, p.chunks, acc_size)),
                      runner.stream.handle()),
                  "cuMemsetD8Async");
      p.work = status->data();
    }
    p.vectorized = scan_vector_bits(p, runner.input, runner.output);
    runner.run(kTileScans, p, chunks, p.chunk);
    return;
  }
  std::optional<Array> aggregates;
  if (p.chunks > 1) {
    aggregates = runner.buffer(chunks);
    ReductionParams a = p;
    a.out = aggregates->data();
    runner.run(tiles ? kTileAggregates : kLineAggregates, a, chunks, p.chunk);
    a.work = aggregates->data();
    runner.run(tiles ? kTileTree : kLineChain, a, p.outputs, p.chunks);
    p.work = aggregates->data();
  }
  runner.run(tiles ? kTileScans : kLineApply, p, chunks, p.chunk);
}

}  // namespace

MergedDims merge_dims(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& in,
                      const std::vector<std::int64_t>* out) {
  MergedDims m;  // outermost first while building
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (!m.sizes.empty() && m.in.back() == in[d] * sizes[d] &&
        (!out || m.out.back() == (*out)[d] * sizes[d])) {
      m.sizes.back() *= sizes[d];
      m.in.back() = in[d];
      if (out) m.out.back() = (*out)[d];
      continue;
    }
    m.sizes.push_back(sizes[d]);
    m.in.push_back(in[d]);
    if (out) m.out.push_back((*out)[d]);
  }
  std::reverse(m.sizes.begin(), m.sizes.end());
  std::reverse(m.in.begin(), m.in.end());
  std::reverse(m.out.begin(), m.out.end());
  return m;
}

std::vector<ReductionPass> plan_reduce_passes(const MergedDims& kept, const MergedDims& reduced,
                                              DType input, DType accumulator) {
  const std::int64_t outputs = product(kept.sizes);
  const std::int64_t length = product(reduced.sizes);
  ReduceKind kind = ReduceKind::rows;
  if (length == 0) {
    kind = ReduceKind::cols;
  } else if (outputs > 1) {
    const std::int64_t inner_red = reduced.ndim() ? std::llabs(reduced.in[0]) : 0;
    const std::int64_t inner_out = std::llabs(kept.in[0]);
    const bool rows = length >= kernels::kReduceRowsMinLength && inner_red <= inner_out;
    kind = rows ? ReduceKind::rows : ReduceKind::cols;
  }
  std::vector<ReductionPass> passes;
  std::int64_t n = length;
  MergedDims red = reduced;
  for (;;) {
    ReductionPass pass;
    pass.kind = kind;
    pass.reads_partials = !passes.empty();
    ReductionParams& p = pass.params;
    const DType in_type = pass.reads_partials ? accumulator : input;
    p.outputs = outputs;
    p.length = n;
    p.chunk = kind == ReduceKind::rows ? kernels::rows_chunk(in_type) : kernels::kReduceColChunk;
    p.chunks = n == 0 ? 1 : ceil_div(n, p.chunk);
    p.out_ndim = kept.ndim();
    copy_dims(kept, p.out_sizes, nullptr, p.out_out_strides);
    if (!pass.reads_partials) {
      copy_dims(kept, p.out_sizes, p.out_in_strides, nullptr);
    } else {
      // The partials of the pass before: [output][chunk] (rows) or [chunk][output] (cols).
      const std::int64_t before = passes.back().params.chunks;
      std::int64_t stride = kind == ReduceKind::rows ? before : 1;
      for (int d = 0; d < kept.ndim(); ++d) {
        p.out_in_strides[d] = stride;
        stride *= kept.sizes[d];
      }
    }
    p.red_ndim = red.ndim();
    copy_dims(red, p.red_sizes, p.red_strides, nullptr);
    p.final_pass = p.chunks == 1 ? 1 : 0;
    passes.push_back(pass);
    if (p.chunks == 1) break;
    red = MergedDims{{p.chunks}, {kind == ReduceKind::rows ? 1 : outputs}, {}};
    n = p.chunks;
  }
  return passes;
}

ScanKind choose_scan(const MergedDims& lines, std::int64_t length, std::int64_t axis_stride) {
  if (lines.ndim() == 0) return ScanKind::tiles;
  std::int64_t fastest = std::llabs(lines.in[0]);
  for (std::int64_t s : lines.in) fastest = std::min<std::int64_t>(fastest, std::llabs(s));
  return std::llabs(axis_stride) <= fastest && length >= kernels::kScanTilesMinLength ? ScanKind::tiles
                                                                                     : ScanKind::lines;
}

std::size_t resolve_accumulator(const detail::UfuncImpl& ufunc, DType input,
                                std::optional<DType> dtype, const char* method) {
  auto homogeneous = [](const Signature& s) {
    return s.args.size() == 2 && s.results.size() == 1 && s.args[0] == s.args[1] &&
           s.args[0] == s.results[0];
  };
  std::optional<std::size_t> found;
  for (int exact = dtype ? 1 : 0; exact >= 0 && !found; --exact) {
    for (std::size_t i = 0; i < ufunc.signatures.size() && !found; ++i) {
      const Signature& s = ufunc.signatures[i];
      if (!homogeneous(s)) continue;
      const DType t = s.results[0];
      if (exact ? t == *dtype : can_cast_safe(dtype ? *dtype : input, t)) found = i;
    }
  }
  if (!found) {
    std::vector<std::string> loops;
    for (const Signature& s : ufunc.signatures) loops.push_back(s.to_string());
    throw ArgumentError(fmt::format(
        "ufunc '{}': {}() folds each result back into the function's first argument, so it needs "
        "a loop T(T, T) to which {} {} casts safely; the loops are {}",
        ufunc.name, method, dtype ? "the dtype" : "the input's", dtype_name(dtype ? *dtype : input),
        fmt::join(loops, ", ")));
  }
  const DType t = ufunc.signatures[*found].results[0];
  if (!can_cast_same_kind(input, t)) {
    throw ArgumentError(fmt::format("ufunc '{}': {}(): a {} input cannot be accumulated in {} "
                                    "(casting='same_kind')",
                                    ufunc.name, method, dtype_name(input), dtype_name(t)));
  }
  return *found;
}

codegen::LoopSpec reduction_spec(const Signature& signature, DType input, DType out) {
  codegen::LoopSpec spec;
  spec.loop = signature;
  spec.inputs = {input, signature.results[0]};
  spec.outputs = {out};
  return spec;
}

LoopDefinition reduction_loop_definition(Engine::Impl& engine, const detail::UfuncImpl& ufunc,
                                         const codegen::LoopSpec& spec, const std::string& method) {
  if (method != kReduceMethod && method != kAccumulateMethod) {
    throw ArgumentError(fmt::format("ufunc '{}': no reduction module serves '{}' (only {} and {})",
                                    ufunc.name, method, kReduceMethod, kAccumulateMethod));
  }
  const auto which = method == kReduceMethod ? kernels::ReductionMethod::reduce
                                             : kernels::ReductionMethod::accumulate;
  return method_loop_definition(engine, method_definition(ufunc, spec, which), spec);
}

Array reduce(const detail::UfuncImpl& ufunc, const Array& x, const ReduceOptions& options) {
  check_binary(ufunc, "reduce");
  if (options.where) return reduce_where(ufunc, x, options);  // a pre-pass, then this without where=
  ufunc.engine.calls++;
  const int ndim = x.ndim();
  std::vector<bool> reduced(static_cast<std::size_t>(ndim), !options.axes.has_value());
  if (options.axes) {
    for (int axis : *options.axes) {
      const int d = normalize_axis(axis, ndim, ufunc, "reduce");
      if (reduced[d]) {
        throw ArgumentError(fmt::format("ufunc '{}': reduce(): axis {} is given twice", ufunc.name, d));
      }
      reduced[d] = true;
    }
  }
  Shape shape;
  std::int64_t outputs = 1, length = 1;
  for (int d = 0; d < ndim; ++d) {
    if (reduced[d]) {
      length *= x.shape()[d];
      if (options.keepdims) shape.push_back(1);
    } else {
      outputs *= x.shape()[d];
      shape.push_back(x.shape()[d]);
    }
  }
  const std::size_t index = resolve_accumulator(ufunc, x.dtype(), options.dtype, "reduce");
  const Signature& loop = ufunc.signatures[index];
  const DType acc = loop.results[0];
  if (options.out) check_out(ufunc, "reduce", *options.out, shape, acc);
  ReductionParams init;
  if (options.initial) {
    set_init(ufunc, "reduce", "initial", *options.initial, acc, init);
  } else if (length == 0 && outputs > 0) {
    if (!ufunc.identity) {
      throw ArgumentError(fmt::format(
          "ufunc '{}': reduce() of a zero-size reduction (shape {}) needs an identity, and '{}' "
          "declares none; pass ReduceOptions::initial, or declare one with the ufunc "
          "(VectorizeOptions::identity, `identity = ...` in a definition file)",
          ufunc.name, shape_to_string(x.shape()), ufunc.name));
    }
    set_init(ufunc, "reduce", "identity", *ufunc.identity, acc, init);
  }
  const Target target = choose_target(ufunc, options.target);
  Placement at = place(ufunc, "reduce", target, x, options.out, acc, shape, options.stream);
  if (outputs == 0) return finish(at, x, options.out, options.stream);

  const Array& in = *at.input;
  std::vector<std::int64_t> kept_sizes, kept_in, kept_out, red_sizes, red_in;
  for (int d = 0, r = 0; d < ndim; ++d) {
    if (reduced[d]) {
      red_sizes.push_back(in.shape()[d]);
      red_in.push_back(in.strides()[d]);
      if (options.keepdims) ++r;
    } else {
      kept_sizes.push_back(in.shape()[d]);
      kept_in.push_back(in.strides()[d]);
      kept_out.push_back(at.result.strides()[r++]);
    }
  }
  const MergedDims kept = merge_dims(kept_sizes, kept_in, &kept_out);
  MergedDims red = merge_dims(red_sizes, red_in, nullptr);
  if (length == 0) red = MergedDims{{0}, {0}, {}};
  check_dims(ufunc, "reduce", kept, "kept");
  check_dims(ufunc, "reduce", red, "reduced");
  std::vector<ReductionPass> passes = plan_reduce_passes(kept, red, in.dtype(), acc);
  ReductionPass& last = passes.back();
  last.params.has_init = init.has_init;
  std::memcpy(last.params.init_bits, init.init_bits, sizeof(init.init_bits));

  const codegen::LoopSpec spec = reduction_spec(loop, in.dtype(), at.result.dtype());
  const MethodDefinition method = method_definition(ufunc, spec, kernels::ReductionMethod::reduce);
  Engine::Impl& engine = ufunc.engine;
  const bool gpu = target == Target::cuda;
  std::optional<cuda::ContextGuard> guard;
  if (gpu) guard.emplace(at.device);
  std::array<std::optional<Array>, 2> partials;  // alternate between passes
  const void* source = in.data();
  for (std::size_t i = 0; i < passes.size(); ++i) {
    ReductionParams& p = passes[i].params;
    const bool rows = passes[i].kind == ReduceKind::rows;
    p.in = source;
    if (p.final_pass) {
      p.out = at.result.data();
    } else {
      partials[i % 2] = Array::empty(acc, Shape{p.outputs * p.chunks}, gpu ? Memory::device : Memory::host,
                                     at.device, options.stream);
      p.out = partials[i % 2]->data();
    }
    const char* name = nullptr;
    const std::int64_t items = kernels::reduction_items(passes[i].kind, p);
    if (gpu) {
      const DType pass_in = passes[i].reads_partials ? acc : in.dtype();
      p.vectorized = rows && vectorizable(p.in, pass_in, p, p.out_in_strides) ? 1 : 0;
      name = rows ? (passes[i].reads_partials ? kernels::kReduceRowsPartialKernel : kernels::kReduceRowsKernel)
                  : (passes[i].reads_partials ? kernels::kReduceColsPartialKernel : kernels::kReduceColsKernel);
      auto module = cuda_method(engine, ufunc.reduce_modules, spec, at.device, method);
      launch(*module, name, items, p, options.stream.handle());
    } else {
      name = rows ? (passes[i].reads_partials ? kernels::kHostReduceRowsPartial : kernels::kHostReduceRows)
                  : (passes[i].reads_partials ? kernels::kHostReduceColsPartial : kernels::kHostReduceCols);
      auto module = host_method(engine, ufunc.reduce_modules, spec, method);
      run_items(engine, target, ufunc.name, host_entry(*module, name), p, items,
                rows ? p.chunk : p.chunk * kernels::kCudaBlock);
    }
    source = p.out;
  }
  return finish(at, x, options.out, options.stream);
}

Array accumulate(const detail::UfuncImpl& ufunc, const Array& x, int axis,
                 const AccumulateOptions& options) {
  check_binary(ufunc, "accumulate");
  ufunc.engine.calls++;
  if (x.ndim() == 0) {
    throw ArgumentError(fmt::format("ufunc '{}': accumulate() needs an array of at least one "
                                    "dimension; the input is 0-d",
                                    ufunc.name));
  }
  axis = normalize_axis(axis, x.ndim(), ufunc, "accumulate");
  const std::size_t index = resolve_accumulator(ufunc, x.dtype(), options.dtype, "accumulate");
  const Signature& loop = ufunc.signatures[index];
  const DType acc = loop.results[0];
  if (options.out) check_out(ufunc, "accumulate", *options.out, x.shape(), acc);
  const Target target = choose_target(ufunc, options.target);
  Placement at = place(ufunc, "accumulate", target, x, options.out, acc, x.shape(), options.stream);
  if (x.size() == 0) return finish(at, x, options.out, options.stream);

  const Array& in = *at.input;
  std::vector<std::int64_t> sizes, in_strides, out_strides;
  for (int d = 0; d < x.ndim(); ++d) {
    if (d == axis) continue;
    sizes.push_back(in.shape()[d]);
    in_strides.push_back(in.strides()[d]);
    out_strides.push_back(at.result.strides()[d]);
  }
  const MergedDims lines = merge_dims(sizes, in_strides, &out_strides);
  check_dims(ufunc, "accumulate", lines, "other");
  ReductionParams p;
  p.outputs = product(lines.sizes);
  p.length = in.shape()[axis];
  p.out_ndim = lines.ndim();
  copy_dims(lines, p.out_sizes, p.out_in_strides, p.out_out_strides);
  p.red_ndim = 1;
  p.red_sizes[0] = p.length;
  p.red_strides[0] = in.strides()[axis];
  p.axis_out_stride = at.result.strides()[axis];
  p.final_pass = 1;
  p.in = in.data();
  p.out = at.result.data();
  const ScanKind kind = choose_scan(lines, p.length, p.red_strides[0]);

  const codegen::LoopSpec spec = reduction_spec(loop, in.dtype(), at.result.dtype());
  const MethodDefinition method = method_definition(ufunc, spec, kernels::ReductionMethod::accumulate);
  Engine::Impl& engine = ufunc.engine;
  ScanRunner runner{engine, ufunc.name, target, nullptr, nullptr, in.dtype(), at.result.dtype(), acc, at.device,
                    options.stream};
  if (target == Target::cuda) {
    cuda::ContextGuard guard(at.device);
    auto module = cuda_method(engine, ufunc.accumulate_modules, spec, at.device, method);
    runner.gpu = module.get();
    run_scan(runner, p, kind);
    return finish(at, x, options.out, options.stream);
  }
  auto module = host_method(engine, ufunc.accumulate_modules, spec, method);
  runner.host = module.get();
  run_scan(runner, p, kind);
  return at.result;
}

}  // namespace jitvec::engine

namespace jitvec {
namespace {

const detail::UfuncImpl& method_target(const std::shared_ptr<detail::UfuncImpl>& impl,
                                       const char* method) {
  if (!impl) {
    throw Error(fmt::format("Ufunc::{}: this Ufunc is empty: get one from Engine::vectorize or "
                            "Engine::ufunc",
                            method));
  }
  return *impl;
}

}  // namespace

Array Ufunc::reduce(const Array& x, const ReduceOptions& options) const {
  return engine::reduce(method_target(impl_, "reduce"), x, options);
}

Array Ufunc::accumulate(const Array& x, int axis, const AccumulateOptions& options) const {
  return engine::accumulate(method_target(impl_, "accumulate"), x, axis, options);
}

}  // namespace jitvec
