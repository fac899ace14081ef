#include "engine/reduce_where.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <vector>

#include "engine/call_plan.hpp"
#include "engine/cuda_launcher.hpp"
#include "engine/engine_impl.hpp"
#include "engine/host_launcher.hpp"
#include "engine/reduction.hpp"
#include "engine/reduction_scalar.hpp"
#include "engine/type_resolution.hpp"

namespace jitvec {

detail::UfuncImpl& Engine::Impl::where_select_ufunc() {
  std::call_once(where_select_once_, [this] {
    where_select_ = std::make_unique<detail::UfuncImpl>(
        *this, nullptr, engine::kWhereSelectName, engine::where_select_signatures(),
        codegen::UfuncSource{engine::kWhereSelectName, engine::kWhereSelectSource, "", 1, ""}, Target::cuda);
  });
  return *where_select_;
}

}  // namespace jitvec

namespace jitvec::engine {

std::vector<Signature> where_select_signatures() {
  std::vector<Signature> signatures;
  for (const char* t : {"bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64",
                        "float16", "bfloat16", "float32", "float64", "complex64", "complex128"}) {
    signatures.push_back(Signature::parse(fmt::format("{}(bool, {}, {})", t, t, t)));
  }
  return signatures;
}

Signature where_select_signature(DType t) {
  for (const Signature& s : where_select_signatures()) {
    if (s.args[1] == t) return s;
  }
  throw ArgumentError(fmt::format("reduce(): where= has no select loop for {} arrays", dtype_name(t)));
}

namespace {

// The dimension order of x's memory, outermost first: decreasing |stride|; a reduced dimension
// goes inside a kept one of equal |stride| (so the reduce of a dense copy laid out this way
// picks the kind x would get: plan_reduce_passes compares the innermost reduced and kept
// strides); otherwise the logical order.
std::vector<int> memory_order(const Array& x, const std::vector<bool>& reduced) {
  std::vector<int> order(static_cast<std::size_t>(x.ndim()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const std::int64_t sa = std::llabs(x.strides()[a]), sb = std::llabs(x.strides()[b]);
    if (sa != sb) return sa > sb;
    return !reduced[a] && reduced[b];
  });
  return order;
}

// Which dimensions reduce() will reduce; axes out of range or repeated are left for reduce() to
// report (this only shapes the temporary's layout).
std::vector<bool> reduced_dims(const Array& x, const ReduceOptions& options) {
  const int ndim = x.ndim();
  std::vector<bool> reduced(static_cast<std::size_t>(ndim), !options.axes.has_value());
  if (options.axes) {
    for (int axis : *options.axes) {
      if (axis >= -ndim && axis < ndim) reduced[axis < 0 ? axis + ndim : axis] = true;
    }
  }
  return reduced;
}

// An uninitialized array of x's shape and dtype, dense in x's memory order.
Array like_in_memory_order(const Array& x, const std::vector<bool>& reduced, Memory memory, int device,
                           Stream stream) {
  const std::vector<int> order = memory_order(x, reduced);
  Shape storage;
  for (int d : order) storage.push_back(x.shape()[d]);
  std::vector<int> position(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int>(i);
  return Array::empty(x.dtype(), storage, memory, device, stream).permute(position);
}

void check_mask(const detail::UfuncImpl& ufunc, const Array& x, const Array& mask) {
  if (mask.dtype() != DType::bool_) {
    throw ArgumentError(fmt::format("ufunc '{}': reduce(): where= must be a bool array (as NumPy, which "
                                    "casts it to bool only safely); it is a {} array",
                                    ufunc.name, dtype_name(mask.dtype())));
  }
  bool fits = mask.ndim() <= x.ndim();
  for (int d = 1; fits && d <= mask.ndim(); ++d) {
    const std::int64_t m = mask.shape()[mask.ndim() - d];
    fits = m == 1 || m == x.shape()[x.ndim() - d];
  }
  if (!fits) {
    throw BroadcastError(fmt::format("ufunc '{}': reduce(): where= of shape {} does not broadcast to the "
                                     "input's shape {}",
                                     ufunc.name, shape_to_string(mask.shape()), shape_to_string(x.shape())));
  }
}

// The identity as the select's scalar argument, in x's dtype exactly.
Arg identity_argument(const detail::UfuncImpl& ufunc, DType dtype) {
  if (!ufunc.identity) {
    throw ArgumentError(fmt::format(
        "ufunc '{}': reduce(): where= needs the ufunc's identity: masked elements take its value, and "
        "'{}' declares none; declare VectorizeOptions::identity (`identity = ...` in a definition "
        "file). ReduceOptions::initial cannot stand in for it: it would be folded in once for every "
        "masked element",
        ufunc.name, ufunc.name));
  }
  return Arg(Scalar(exact_value(ufunc.name, "reduce", "identity", *ufunc.identity, dtype)));
}

[[noreturn]] void throw_device_on_host(const detail::UfuncImpl& ufunc, const char* what, const Array& a,
                                       Target target) {
  throw TargetError(fmt::format("ufunc '{}': reduce(): {} is in device memory (cuda:{}), but target {} runs on "
                                "the host; copy it with to_host() or use target cuda",
                                ufunc.name, what, a.device(), target_name(target)));
}

}  // namespace

Array reduce_where(const detail::UfuncImpl& ufunc, const Array& x, const ReduceOptions& options) {
  const Array& mask = *options.where;
  check_mask(ufunc, x, mask);
  const Arg identity = identity_argument(ufunc, x.dtype());
  Engine::Impl& engine = ufunc.engine;
  const Target target = options.target ? *options.target : ufunc.target ? *ufunc.target : engine.default_target();
  int device = 0;
  if (target == Target::cuda) {
    device = x.is_device()                               ? x.device()
             : mask.is_device()                          ? mask.device()
             : options.out && options.out->is_device() ? options.out->device()
                                                         : 0;
    if (x.is_device() && mask.is_device() && mask.device() != x.device()) {
      throw ArgumentError(fmt::format("ufunc '{}': reduce(): the input is on cuda:{} but where= is on cuda:{}; "
                                      "move them to one device",
                                      ufunc.name, x.device(), mask.device()));
    }
  } else {
    if (x.is_device()) throw_device_on_host(ufunc, "the input", x, target);
    if (mask.is_device()) throw_device_on_host(ufunc, "where=", mask, target);
  }
  // Laid out as the reduce without where= would see x: a host input on cuda is reduced from its
  // C-ordered device copy (Array::to_device), anything else where it lies.
  const Array selected = target == Target::cuda && !x.is_device()
                             ? Array::empty(x.dtype(), x.shape(), Memory::device, device, options.stream)
                             : like_in_memory_order(x, reduced_dims(x, options),
                                                    target == Target::cuda ? Memory::device : Memory::host, device,
                                                    options.stream);
  if (x.size() > 0) {
    detail::UfuncImpl& select = engine.where_select_ufunc();
    const Arg args[] = {Arg(mask), Arg(x), identity, Arg(out(selected)), Arg(on(options.stream)),
                        Arg(jitvec::target(target))};
    const CallPlan plan = make_call_plan(select, target, args, std::size(args));
    if (target == Target::cuda) {
      run_on_gpu(select, plan);
    } else {
      run_on_host(select, plan);
    }
  }
  ReduceOptions rest = options;
  rest.where.reset();
  Array result = reduce(ufunc, selected, rest);
  // Without where=, a host input and no out= give a host result on every target.
  if (target == Target::cuda && !x.is_device() && !options.out) return result.to_host(options.stream);
  return result;
}

}  // namespace jitvec::engine
