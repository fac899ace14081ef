#include "engine/ufunc_at.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>
#include <vector>

#include "core/strided_copy.hpp"
#include "cpu/host_fault.hpp"
#include "cuda/context.hpp"
#include "cuda/launch.hpp"
#include "engine/engine_impl.hpp"
#include "engine/method_module.hpp"
#include "engine/out_overlap.hpp"
#include "engine/type_resolution.hpp"
#include "kernels/kernel_abi.hpp"
#include "kernels/ufunc_at.hpp"
#include "launch/broadcast.hpp"

namespace jitvec::engine {
namespace {

// A signature's (first) result, whichever way Signature holds it (one `result`, or `results`).
template <class S> auto first_result(const S& s, int) -> decltype(s.results.front()) {
  return s.results.front();
}
template <class S> DType first_result(const S& s, long) { return s.result; }

std::int64_t read_integer(const unsigned char* p, DType t) {
  switch (t) {
    case DType::int8: return *reinterpret_cast<const std::int8_t*>(p);
    case DType::int16: return *reinterpret_cast<const std::int16_t*>(p);
    case DType::int32: return *reinterpret_cast<const std::int32_t*>(p);
    case DType::int64: return *reinterpret_cast<const std::int64_t*>(p);
    case DType::uint8: return *p;
    case DType::uint16: return *reinterpret_cast<const std::uint16_t*>(p);
    case DType::uint32: return *reinterpret_cast<const std::uint32_t*>(p);
    case DType::uint64: {
      const std::uint64_t v = *reinterpret_cast<const std::uint64_t*>(p);
      return v > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(v);
    }
    default: return 0;  // refused by the caller
  }
}

// The indices as int64 positions in [0, size), each checked before anything is written.
std::vector<std::int64_t> checked_indices(const std::string& name, const Array& indices,
                                          std::int64_t size, Stream stream) {
  const DTypeKind kind = dtype_kind(indices.dtype());
  if (kind != DTypeKind::signed_int && kind != DTypeKind::unsigned_int) {
    throw ArgumentError(fmt::format("ufunc '{}': at() takes integer indices; they are a {} array",
                                    name, dtype_name(indices.dtype())));
  }
  if (indices.ndim() != 1) {
    throw ArgumentError(fmt::format("ufunc '{}': at() takes a 1-d array of indices along a's first "
                                    "axis; they have shape {}",
                                    name, shape_to_string(indices.shape())));
  }
  const Array host = indices.to_host(stream);  // C-contiguous; device indices: after the call's stream
  const auto* bytes = static_cast<const unsigned char*>(host.data());
  const std::size_t item = dtype_size(indices.dtype());
  std::vector<std::int64_t> out(static_cast<std::size_t>(host.size()));
  for (std::size_t j = 0; j < out.size(); ++j) {
    const std::int64_t given = read_integer(bytes + j * item, indices.dtype());
    const std::int64_t i = given < 0 ? given + size : given;
    if (i < 0 || i >= size) {
      throw ArgumentError(fmt::format("ufunc '{}': at(): index {} (indices[{}]) is out of bounds "
                                      "for axis 0 of a, of size {}; nothing was written",
                                      name, given, j, size));
    }
    out[j] = i;
  }
  return out;
}

// The update positions sorted stably by index, cut into segments of one index each.
struct Segments {
  std::vector<std::int64_t> order, start, row;
};

Segments segments_of(const std::vector<std::int64_t>& indices) {
  Segments s;
  s.order.resize(indices.size());
  std::iota(s.order.begin(), s.order.end(), std::int64_t{0});
  std::stable_sort(s.order.begin(), s.order.end(),
                   [&](std::int64_t x, std::int64_t y) { return indices[x] < indices[y]; });
  for (std::size_t j = 0; j < s.order.size(); ++j) {
    const std::int64_t row = indices[static_cast<std::size_t>(s.order[j])];
    if (s.row.empty() || s.row.back() != row) {
      s.row.push_back(row);
      s.start.push_back(static_cast<std::int64_t>(j));
    }
  }
  s.start.push_back(static_cast<std::int64_t>(s.order.size()));
  return s;
}

struct AtCall {
  Target target = Target::cpu;
  Stream stream;
  const Array* a = nullptr;
  const Array* indices = nullptr;
  const Arg* b = nullptr;
};

AtCall sort_arguments(const detail::UfuncImpl& ufunc, const Arg* args, std::size_t count) {
  AtCall call;
  std::vector<const Arg*> operands;
  std::optional<Target> target;
  for (std::size_t i = 0; i < count; ++i) {
    switch (args[i].kind()) {
      case Arg::Kind::array:
      case Arg::Kind::scalar: operands.push_back(&args[i]); break;
      case Arg::Kind::out:
        throw ArgumentError(fmt::format("ufunc '{}': at() updates its first operand in place and "
                                        "takes no out=",
                                        ufunc.name));
      case Arg::Kind::stream: call.stream = args[i].stream(); break;
      case Arg::Kind::target: target = args[i].target_value(); break;
      case Arg::Kind::loop:
        throw ArgumentError(fmt::format("ufunc '{}': at() takes no loop() (its loop is the one a(indices), b resolve to)",
                                        ufunc.name));
    }
  }
  if (operands.size() != 3) {
    throw ArgumentError(fmt::format("ufunc '{}': at() takes three operands (a, indices, b) and "
                                    "options; it was given {} operands",
                                    ufunc.name, operands.size()));
  }
  if (operands[0]->kind() != Arg::Kind::array || operands[1]->kind() != Arg::Kind::array) {
    throw ArgumentError(fmt::format("ufunc '{}': at(a, indices, b): a and indices must be arrays",
                                    ufunc.name));
  }
  call.a = &operands[0]->array();
  call.indices = &operands[1]->array();
  call.b = operands[2];
  call.target = target ? *target : ufunc.target ? *ufunc.target : ufunc.engine.default_target();
  if (call.a->ndim() == 0) {
    throw ArgumentError(fmt::format("ufunc '{}': at() needs an array a of at least one dimension; "
                                    "a is 0-d",
                                    ufunc.name));
  }
  if (call.target != Target::cuda &&
      (call.a->is_device() || (call.b->kind() == Arg::Kind::array && call.b->array().is_device()))) {
    throw TargetError(fmt::format("ufunc '{}': at(): an operand is in device memory, but target {} "
                                  "runs on the host",
                                  ufunc.name, target_name(call.target)));
  }
  if (call.a->ndim() - 1 > launch::kMaxDims) {
    throw ArgumentError(fmt::format("ufunc '{}': at(): a has {} dimensions; at() supports at most {}",
                                    ufunc.name, call.a->ndim(), launch::kMaxDims + 1));
  }
  return call;
}

// The shape, strides and b's place in the parameter block (pointers are set by the caller).
void fill_shape(kernels::AtParams& p, const Array& a, const Strides& b_strides) {
  const int nd = a.ndim() - 1;
  p.ndim = nd;
  p.row = 1;
  for (int d = 0; d < nd; ++d) {
    const int from = a.ndim() - 1 - d;  // innermost first
    p.sizes[d] = a.shape()[from];
    p.a_strides[d] = a.strides()[from];
    p.b_strides[d] = b_strides.empty() ? 0 : b_strides[from];
    p.row *= a.shape()[from];
  }
  p.a_stride0 = a.strides()[0];
  p.b_stride0 = b_strides.empty() ? 0 : b_strides[0];
}

}  // namespace

void run_at(detail::UfuncImpl& ufunc, const Arg* args, std::size_t count) {
  Engine::Impl& engine = ufunc.engine;
  engine.calls++;
  const AtCall call = sort_arguments(ufunc, args, count);
  const Array& a = *call.a;
  const bool b_scalar = call.b->kind() == Arg::Kind::scalar;

  // The loop, from a's and b's dtypes; its result must go back into a.
  const CallInput typed[] = {CallInput{false, a.dtype(), nullptr},
                             CallInput{b_scalar, b_scalar ? call.b->scalar().type : call.b->array().dtype(),
                                       b_scalar ? &call.b->scalar() : nullptr}};
  const std::size_t index = resolve_loop(ufunc.name, ufunc.signatures, typed, 2);
  const Signature& loop = ufunc.signatures[index];
  const DType result = first_result(loop, 0);
  if (!can_cast_same_kind(result, a.dtype())) {
    throw ArgumentError(fmt::format("ufunc '{}': at(): loop {} returns {}, which does not cast to "
                                    "a's dtype {} (casting='same_kind')",
                                    ufunc.name, loop.to_string(), dtype_name(result),
                                    dtype_name(a.dtype())));
  }
  ScalarSlot scalar{};
  if (b_scalar && dtype_size(loop.args[1]) > sizeof(std::uint64_t)) {  // at()'s slot: 8 bytes
    throw ArgumentError(fmt::format("ufunc '{}'.at: b is a scalar of the loop's type {}, wider "
                                    "than the 8 bytes at()'s scalar travels in; pass it as a "
                                    "0-d array instead",
                                    ufunc.name, dtype_name(loop.args[1])));
  }
  if (b_scalar) convert_scalar(call.b->scalar(), loop.args[1], scalar);

  // Every index checked before anything is written; b must broadcast to the updated rows.
  const std::vector<std::int64_t> indices = checked_indices(ufunc.name, *call.indices, a.shape()[0], call.stream);
  Shape rows = a.shape();
  rows[0] = static_cast<std::int64_t>(indices.size());
  Strides b_strides;
  if (!b_scalar) {
    const Array& b = call.b->array();
    const launch::NamedShape shapes[] = {{&rows, 1}, {&b.shape(), 3}};
    Shape common;
    try {
      common = launch::broadcast_shapes(shapes, 2);
    } catch (const BroadcastError&) {
      common.clear();
    }
    if (common != rows) {
      throw BroadcastError(fmt::format("ufunc '{}': at(): b has shape {}, which does not broadcast "
                                       "to the updated rows' shape {} ((len(indices),) + "
                                       "a.shape[1:])",
                                       ufunc.name, shape_to_string(b.shape()), shape_to_string(rows)));
    }
  }
  if (indices.empty() || a.size() == 0) return;
  const Segments segments = segments_of(indices);

  codegen::LoopSpec key = codegen::LoopSpec::exact(loop);
  key.inputs = {a.dtype(), b_scalar ? loop.args[1] : call.b->array().dtype()};
  const detail::UfuncImpl* owner = &ufunc;
  const MethodDefinition method{
      &ufunc.source,
      fmt::format("at [a {}, b {}]", dtype_name(key.inputs[0]), dtype_name(key.inputs[1])),
      [owner, key](bool host, const std::vector<const codegen::HelperSource*>& helpers) {
        return host ? kernels::generate_at_host_source(owner->source, helpers, key)
                    : kernels::generate_at_cuda_source(owner->source, helpers, key);
      },
      kernels::kAtKernel, kernels::kAtHostSymbol};

  kernels::AtParams p;
  std::memset(&p, 0, sizeof p);
  std::memcpy(&p.b_scalar, scalar.bytes, sizeof p.b_scalar);
  p.segments = static_cast<long long>(segments.row.size());

  if (call.target != Target::cuda) {
    std::optional<Array> b_copy;  // b read from a copy when it shares memory with a
    const Array* b = b_scalar ? nullptr : &call.b->array();
    if (b && may_overlap(*b, a)) {
      b_copy = converted_copy(engine, *b, b->dtype(), call.target, call.stream);
      b = &*b_copy;
    }
    if (b) b_strides = launch::broadcast_strides(b->shape(), b->strides(), rows);
    fill_shape(p, a, b_strides);
    p.a = a.data();
    p.b = b ? b->data() : nullptr;
    // int64_t is long here and long long in the block: the same 8 bytes.
    p.order = reinterpret_cast<const long long*>(segments.order.data());
    p.segment_start = reinterpret_cast<const long long*>(segments.start.data());
    p.segment_row = reinterpret_cast<const long long*>(segments.row.data());
    auto module = host_method(engine, ufunc.method_modules, key, method);
    const auto entry = reinterpret_cast<kernels::HostEntry>(module->entry);
    const void* image = &p;
    auto run = [entry, image, &ufunc, &call](std::int64_t begin, std::int64_t end) {
      cpu::call_host_entry(entry, image, begin, end, ufunc.name, target_name(call.target));
    };
    const std::int64_t n = p.segments * p.row;
    if (call.target == Target::parallel) {
      engine.thread_pool().parallel_for(0, n, 1 << 10, run);
    } else {
      run(0, n);
    }
    return;
  }

  // cuda: a, b and the segments on one device.
  int device = a.is_device() ? a.device() : -1;
  if (!b_scalar && call.b->array().is_device()) {
    if (device >= 0 && call.b->array().device() != device) {
      throw ArgumentError(fmt::format("ufunc '{}': at(): a is on cuda:{} but b is on cuda:{}",
                                      ufunc.name, device, call.b->array().device()));
    }
    device = call.b->array().device();
  }
  if (device < 0) device = 0;
  cuda::ContextGuard guard(device);
  const Array work = a.is_device() ? a : a.to_device(device, call.stream);
  std::optional<Array> b_device;
  const Array* b = nullptr;
  if (!b_scalar) {
    const Array& given = call.b->array();
    if (!given.is_device()) {
      b_device = given.to_device(device, call.stream);
    } else if (may_overlap(given, work)) {
      b_device = converted_copy(engine, given, given.dtype(), Target::cuda, call.stream);
    }
    b = b_device ? &*b_device : &given;
    b_strides = launch::broadcast_strides(b->shape(), b->strides(), rows);
  }
  fill_shape(p, work, b_strides);
  std::vector<std::int64_t> table = segments.order;
  table.insert(table.end(), segments.start.begin(), segments.start.end());
  table.insert(table.end(), segments.row.begin(), segments.row.end());
  const Array device_table = from_vector(table).to_device(device, call.stream);
  const auto* t = static_cast<const long long*>(device_table.data());
  p.a = work.data();
  p.b = b ? b->data() : nullptr;
  p.order = t;
  p.segment_start = t + segments.order.size();
  p.segment_row = p.segment_start + segments.start.size();
  auto module = cuda_method(engine, ufunc.method_modules, key, device, method);
  void* kernel_params[] = {&p};
  const std::int64_t n = p.segments * p.row;
  cuda::launch(module->kernel,
               static_cast<unsigned>(std::min<std::int64_t>(kernels::blocks_for(n, kernels::kCudaBlock), 1 << 30)),
               1, 1, kernels::kCudaBlock, 0, call.stream.handle(), kernel_params);
  if (!a.is_device()) {
    const Array back = work.to_host(call.stream);  // synchronizes
    detail::copy_contiguous_to_strided(back.data(), a);
  }
}

}  // namespace jitvec::engine
