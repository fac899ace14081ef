#include "engine/gufunc.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "core/strided_copy.hpp"
#include "cpu/host_fault.hpp"
#include "cuda/context.hpp"
#include "cuda/launch.hpp"
#include "engine/call_plan.hpp"
#include "engine/cuda_launcher.hpp"
#include "engine/engine_impl.hpp"
#include "engine/host_launcher.hpp"
#include "engine/out_overlap.hpp"
#include "engine/type_resolution.hpp"
#include "jitvec/gufunc.hpp"
#include "kernels/kernel_abi.hpp"
#include "launch/broadcast.hpp"
#include "launch/iteration_space.hpp"

namespace jitvec {
namespace detail {
namespace {

// "result(arg, ...)": a ufunc signature of `result` and `args` (written as text, which reads
// the same whatever fields Signature has).
Signature signature_of(DType result, std::vector<DType>::const_iterator begin,
                       std::vector<DType>::const_iterator end) {
  std::string args;
  for (auto it = begin; it != end; ++it) args += (args.empty() ? "" : ", ") + std::string(dtype_name(*it));
  return Signature::parse(fmt::format("{}({})", dtype_name(result), args));
}

std::vector<Signature> signatures_of_inputs(const std::vector<std::vector<DType>>& types, int nin) {
  std::vector<Signature> signatures;
  for (const std::vector<DType>& t : types) {
    signatures.push_back(signature_of(t[static_cast<std::size_t>(nin)], t.begin(), t.begin() + nin));
  }
  return signatures;
}

}  // namespace

GufuncImpl::GufuncImpl(Engine::Impl& engine, std::shared_ptr<Engine::Impl> keep_alive,
                       std::string name, std::vector<std::string> signature_texts,
                       kernels::GufuncLayout layout, std::vector<std::vector<DType>> types,
                       codegen::UfuncSource source, std::optional<Target> target)
    : keep_alive_(std::move(keep_alive)),
      engine(engine),
      name(std::move(name)),
      signature_texts(std::move(signature_texts)),
      layout(std::move(layout)),
      types(std::move(types)),
      input_signatures(signatures_of_inputs(this->types, this->layout.nin)),
      source(std::move(source)),
      target(target) {}

kernels::GufuncSpec GufuncImpl::spec(std::size_t index) const {
  return kernels::GufuncSpec{layout, types[index]};
}

codegen::LoopSpec GufuncImpl::module_key(std::size_t index) const {
  // Unique within this gufunc: every operand's type.
  return codegen::LoopSpec::exact(signature_of(types[index].back(), types[index].begin(), types[index].end()));
}

engine::MethodDefinition GufuncImpl::method(std::size_t index) const {
  const kernels::GufuncSpec spec = this->spec(index);
  const codegen::UfuncSource* function = &source;
  return engine::MethodDefinition{
      function, "gufunc " + spec.describe(),
      [function, spec](bool host, const std::vector<const codegen::HelperSource*>& helpers) {
        return host ? kernels::generate_gufunc_host_source(*function, helpers, spec)
                    : kernels::generate_gufunc_cuda_source(*function, helpers, spec);
      },
      kernels::kGufuncKernel, kernels::kGufuncHostSymbol};
}

}  // namespace detail

namespace engine {
namespace {

using detail::GufuncImpl;

// ---- signatures ----

std::string trimmed(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// ---- a call ----

std::string operand_name(const GufuncImpl& g, int k) {
  return k < g.layout.nin ? fmt::format("argument {}", k + 1)
                          : fmt::format("out= {}", k - g.layout.nin + 1);
}

std::string core_text(const GufuncImpl& g, int k) {
  std::string text = "(";
  for (std::size_t d = 0; d < g.layout.core[k].size(); ++d) {
    if (d) text += ",";
    text += g.layout.names[g.layout.core[k][d]];
  }
  return text + ")";
}

struct Operand {
  const Array* array = nullptr;  // null: a scalar input
  ScalarSlot scalar{};
};

struct GufuncCall {
  Target target = Target::cpu;
  Stream stream;
  int device = 0;
  std::size_t signature = 0;
  std::vector<Operand> operands;    // inputs, then outputs
  std::vector<Array> held;          // arrays the call made (copies, outputs); reserved up front
  std::vector<const Array*> outs;   // the caller's out= arrays (or empty)
  Shape loop_shape;
  std::vector<std::int64_t> dim_size;
};

// Keeps `a` alive for the call and returns it.
const Array* hold(GufuncCall& call, Array a) {
  call.held.push_back(std::move(a));
  return &call.held.back();
}

int choose_device(const GufuncImpl& g, const std::vector<const Arg*>& inputs,
                  const std::vector<const Array*>& outs) {
  int device = -1;
  auto consider = [&](const Array& a, const std::string& what) {
    if (!a.is_device()) return;
    if (device >= 0 && a.device() != device) {
      throw ArgumentError(fmt::format("gufunc '{}': {} is on cuda:{} but another argument is on "
                                      "cuda:{}; move them to one device",
                                      g.name, what, a.device(), device));
    }
    device = a.device();
  };
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k]->kind() == Arg::Kind::array) consider(inputs[k]->array(), fmt::format("argument {}", k + 1));
  }
  for (std::size_t j = 0; j < outs.size(); ++j) consider(*outs[j], fmt::format("out= {}", j + 1));
  return device < 0 ? 0 : device;
}

// Binds operand k's core dimensions to its trailing dimensions.
void bind_core(const GufuncImpl& g, GufuncCall& call, std::vector<int>& bound_by, int k,
               const Array& a) {
  const std::vector<int>& core = g.layout.core[k];
  const int m = static_cast<int>(core.size());
  if (a.ndim() < m) {
    throw ArgumentError(fmt::format(
        "gufunc '{}': {} has shape {}, but its core dimensions {} need at least {} dimension{}",
        g.name, operand_name(g, k), shape_to_string(a.shape()), core_text(g, k), m, m == 1 ? "" : "s"));
  }
  for (int d = 0; d < m; ++d) {
    const int id = core[d];
    const std::int64_t size = a.shape()[a.ndim() - m + d];
    if (call.dim_size[id] < 0) {
      call.dim_size[id] = size;
      bound_by[id] = k;
    } else if (call.dim_size[id] != size) {
      const int first = bound_by[id];
      throw BroadcastError(fmt::format(
          "gufunc '{}' {}: core dimension '{}' is {} in {} (shape {}) but {} in {} (shape {})",
          g.name, g.layout.to_string(), g.layout.names[id], call.dim_size[id],
          operand_name(g, first), shape_to_string(call.operands[first].array->shape()), size,
          operand_name(g, k), shape_to_string(a.shape())));
    }
  }
}

Shape loop_part(const Array& a, int core) { return Shape(a.shape().begin(), a.shape().end() - core); }

void check_out(const GufuncImpl& g, const GufuncCall& call, int k, const Array& o) {
  const DType want = g.types[call.signature][k];
  if (o.dtype() != want) {
    throw ArgumentError(fmt::format("gufunc '{}': {} is a {} array, but signature \"{}\" writes "
                                    "{} there (a gufunc's out= must have the loop's dtype)",
                                    g.name, operand_name(g, k), dtype_name(o.dtype()),
                                    g.signature_texts[call.signature], dtype_name(want)));
  }
  Shape expected = call.loop_shape;
  for (int id : g.layout.core[k]) expected.push_back(call.dim_size[id]);
  if (o.shape() != expected) {
    throw BroadcastError(fmt::format("gufunc '{}': {} has shape {}, but the call's result has "
                                     "shape {} (loop dimensions {} + core dimensions {})",
                                     g.name, operand_name(g, k), shape_to_string(o.shape()),
                                     shape_to_string(expected), shape_to_string(call.loop_shape),
                                     core_text(g, k)));
  }
  if (const int d = launch::repeated_dimension(o.shape(), o.strides()); d >= 0) {
    throw ArgumentError(fmt::format("gufunc '{}': {} has stride 0 in dimension {} (a broadcast "
                                    "view): several results would land on one element",
                                    g.name, operand_name(g, k), d));
  }
  if (call.target != Target::cuda && o.is_device()) {
    throw TargetError(fmt::format("gufunc '{}': {} is in device memory, but target {} runs on "
                                  "the host",
                                  g.name, operand_name(g, k), target_name(call.target)));
  }
}

// Steps 1-4 of the header comment: everything but the launch.
GufuncCall plan_call(const GufuncImpl& g, const Arg* args, std::size_t count) {
  const int nin = g.layout.nin, nout = g.layout.nout();
  GufuncCall call;
  std::vector<const Arg*> inputs;
  std::optional<Target> target;
  for (std::size_t i = 0; i < count; ++i) {
    switch (args[i].kind()) {
      case Arg::Kind::array:
      case Arg::Kind::scalar: inputs.push_back(&args[i]); break;
      case Arg::Kind::out: call.outs.push_back(&args[i].array()); break;
      case Arg::Kind::stream: call.stream = args[i].stream(); break;
      case Arg::Kind::target: target = args[i].target_value(); break;
      case Arg::Kind::loop:
        throw ArgumentError(fmt::format("gufunc '{}' takes no loop(): its loop is the first signature the inputs cast to",
                                        g.name));
    }
  }
  if (static_cast<int>(inputs.size()) != nin) {
    throw ArgumentError(fmt::format("gufunc '{}' {} takes {} inputs, but {} were given", g.name,
                                    g.layout.to_string(), nin, inputs.size()));
  }
  if (!call.outs.empty() && static_cast<int>(call.outs.size()) != nout) {
    throw ArgumentError(fmt::format("gufunc '{}' has {} outputs, but {} out= were given: give "
                                    "out= for every output or for none",
                                    g.name, nout, call.outs.size()));
  }
  call.target = target ? *target : g.target ? *g.target : g.engine.default_target();

  std::vector<CallInput> typed;
  for (const Arg* a : inputs) {
    const bool scalar = a->kind() == Arg::Kind::scalar;
    typed.push_back(CallInput{scalar, scalar ? a->scalar().type : a->array().dtype(),
                              scalar ? &a->scalar() : nullptr});
  }
  call.signature = resolve_loop(g.name, g.input_signatures, typed);
  const std::vector<DType>& types = g.types[call.signature];

  if (call.target == Target::cuda) {
    call.device = choose_device(g, inputs, call.outs);
  } else {
    for (int k = 0; k < nin; ++k) {
      if (inputs[k]->kind() == Arg::Kind::array && inputs[k]->array().is_device()) {
        throw TargetError(fmt::format(
            "gufunc '{}': argument {} is in device memory (cuda:{}), but target {} runs on the "
            "host; copy it with to_host() or call with target(Target::cuda)",
            g.name, k + 1, inputs[k]->array().device(), target_name(call.target)));
      }
    }
  }

  // Inputs in the target's memory and the loop's dtype. `held` never reallocates (pointers
  // into it are kept): at most one copy per input, a cast per input, and every output.
  call.held.reserve(static_cast<std::size_t>(3 * nin + 2 * nout));
  call.operands.resize(static_cast<std::size_t>(nin + nout));
  for (int k = 0; k < nin; ++k) {
    Operand& op = call.operands[k];
    if (inputs[k]->kind() == Arg::Kind::scalar) {
      if (!g.layout.core[k].empty()) {
        throw ArgumentError(fmt::format("gufunc '{}': argument {} is a scalar, but its core "
                                        "dimensions {} need an array",
                                        g.name, k + 1, core_text(g, k)));
      }
      if (dtype_size(types[k]) > sizeof(std::uint64_t)) {  // the kernels' scalar slots: 8 bytes
        throw ArgumentError(fmt::format("gufunc '{}': argument {} is a scalar of the loop's type {}, "
                                        "wider than the 8 bytes a gufunc scalar travels in; pass "
                                        "it as a 0-d array instead",
                                        g.name, k + 1, dtype_name(types[k])));
      }
      convert_scalar(inputs[k]->scalar(), types[k], op.scalar);
      continue;
    }
    const Array* a = &inputs[k]->array();
    if (call.target == Target::cuda && !a->is_device()) {
      a = hold(call, a->to_device(call.device, call.stream));
    }
    if (a->dtype() != types[k]) a = hold(call, converted_copy(g.engine, *a, types[k], call.target, call.stream));
    op.array = a;
  }

  // Core dimensions, then the loop shape.
  call.dim_size.assign(g.layout.names.size(), -1);
  std::vector<int> bound_by(g.layout.names.size(), -1);
  std::vector<Shape> loop_shapes;
  loop_shapes.reserve(static_cast<std::size_t>(nin));
  std::vector<launch::NamedShape> named;
  for (int k = 0; k < nin; ++k) {
    if (!call.operands[k].array) continue;
    bind_core(g, call, bound_by, k, *call.operands[k].array);
    loop_shapes.push_back(loop_part(*call.operands[k].array, static_cast<int>(g.layout.core[k].size())));
    named.push_back(launch::NamedShape{&loop_shapes.back(), k + 1});
  }
  try {
    call.loop_shape = named.empty() ? Shape{} : launch::broadcast_shapes(named);
  } catch (const BroadcastError& e) {
    throw BroadcastError(fmt::format("gufunc '{}' {}: the loop dimensions (each input's shape "
                                     "without its core dimensions) {}",
                                     g.name, g.layout.to_string(), e.what()));
  }

  // Outputs: out= (which may also bind core dimensions no input has) or new arrays.
  for (int j = 0; j < nout; ++j) {
    const int k = nin + j;
    if (!call.outs.empty()) {
      call.operands[k].array = call.outs[j];
      bind_core(g, call, bound_by, k, *call.outs[j]);
    }
    for (int id : g.layout.core[k]) {
      if (call.dim_size[id] < 0) {
        throw ArgumentError(fmt::format("gufunc '{}' {}: core dimension '{}' of output {} is in "
                                        "no input, so its size is unknown: pass out=",
                                        g.name, g.layout.to_string(), g.layout.names[id], j + 1));
      }
    }
  }
  for (int j = 0; j < nout; ++j) {
    const int k = nin + j;
    if (!call.outs.empty()) {
      check_out(g, call, k, *call.outs[j]);
      if (call.target == Target::cuda && !call.outs[j]->is_device()) {
        Shape shape = call.outs[j]->shape();
        call.operands[k].array =
            hold(call, Array::empty(types[k], shape, Memory::device, call.device, call.stream));
      }
      continue;
    }
    Shape shape = call.loop_shape;
    for (int id : g.layout.core[k]) shape.push_back(call.dim_size[id]);
    call.operands[k].array =
        call.target == Target::cuda
            ? hold(call, Array::empty(types[k], shape, Memory::device, call.device, call.stream))
            : hold(call, Array::empty(types[k], shape, Memory::host));
  }

  // Inputs that share memory with an output are read from copies (a core element may be read
  // after another loop element's result overwrote it, even for the same view).
  for (int k = 0; k < nin; ++k) {
    const Array* in = call.operands[k].array;
    if (!in) continue;
    for (int j = 0; j < nout; ++j) {
      if (may_overlap(*in, *call.operands[nin + j].array)) {
        call.operands[k].array = hold(call, converted_copy(g.engine, *in, in->dtype(), call.target, call.stream));
        break;
      }
    }
  }
  return call;
}

// Whether operand k of `a` (core C-contiguous, rows adjacent along the one loop dimension of
// stride `loop_stride`) can be staged; its elements per loop element, else 0.
std::int64_t stageable_elements(const Array& a, int core, std::int64_t loop_stride) {
  if (core == 0) return 0;
  std::int64_t elements = 1;
  for (int d = a.ndim() - 1; d >= a.ndim() - core; --d) {
    if (a.shape()[d] != 1 && a.strides()[d] != elements) return 0;
    elements *= a.shape()[d];
  }
  return elements > 0 && elements <= kernels::kGufuncStageBlock && loop_stride == elements ? elements : 0;
}

// Fills the staging fields of `p` (a 1-d loop space) for the operands that can be staged, as
// long as their stages fit kGufuncStageBytes together; returns the stage's bytes (0: none).
std::size_t plan_stages(const GufuncImpl& g, const GufuncCall& call, kernels::GufuncParams& p) {
  if (p.ndim != 1) return 0;
  std::size_t bytes = 0;
  for (int k = 0; k < g.layout.operands(); ++k) {
    const Array* a = call.operands[k].array;
    if (!a) continue;
    const std::int64_t elements =
        stageable_elements(*a, static_cast<int>(g.layout.core[k].size()), p.strides[k][0]);
    if (elements == 0) continue;
    const std::int64_t row = elements % 2 == 1 ? elements : elements + 1;  // odd: no bank conflicts
    const std::size_t size =
        (static_cast<std::size_t>(kernels::kGufuncStageBlock * row) * dtype_size(a->dtype()) + 15) / 16 * 16;
    if (bytes + size > kernels::kGufuncStageBytes) continue;
    p.stage_elems[k] = elements;
    p.stage_row[k] = row;
    p.stage_offset[k] = static_cast<long long>(bytes);
    bytes += size;
  }
  return bytes;
}

// Step 5: the parameter block; `stage_bytes` is set to the staged kernel's stage (0: the plain
// kernel).
kernels::GufuncParams make_params(const GufuncImpl& g, const GufuncCall& call, std::size_t& stage_bytes) {
  const int operands = g.layout.operands();
  std::vector<Strides> strides;
  std::uint32_t scalars = 0;
  for (int k = 0; k < operands; ++k) {
    const Array* a = call.operands[k].array;
    if (!a) {
      strides.emplace_back(call.loop_shape.size(), 0);
      scalars |= 1u << k;
      continue;
    }
    const int m = static_cast<int>(g.layout.core[k].size());
    const Strides loop_strides(a->strides().begin(), a->strides().end() - m);
    strides.push_back(launch::broadcast_strides(loop_part(*a, m), loop_strides, call.loop_shape));
  }
  const launch::IterationSpace space = launch::plan_iteration(call.loop_shape, strides, scalars);
  kernels::GufuncParams p;
  std::memset(&p, 0, sizeof p);
  p.n = space.numel;
  p.ndim = space.ndim();
  for (int d = 0; d < space.ndim(); ++d) {
    const int from = space.ndim() - 1 - d;  // innermost first
    p.sizes[d] = space.sizes[from];
    for (int k = 0; k < operands; ++k) p.strides[k][d] = space.strides[k][from];
  }
  for (int k = 0; k < operands; ++k) {
    const Array* a = call.operands[k].array;
    if (!a) {
      std::memcpy(&p.scalar[k], call.operands[k].scalar.bytes, sizeof p.scalar[k]);
      continue;
    }
    p.data[k] = a->data();
    const int m = static_cast<int>(g.layout.core[k].size());
    for (int d = 0; d < m; ++d) {
      p.core_extent[k][d] = a->shape()[a->ndim() - m + d];
      p.core_stride[k][d] = a->strides()[a->ndim() - m + d];
    }
  }
  stage_bytes = p.n > 0 ? plan_stages(g, call, p) : 0;
  return p;
}

// Below this many loop elements a chunk is not worth a thread.
constexpr std::int64_t kMinChunk = 1 << 12;

}  // namespace

std::vector<DType> parse_gufunc_signature(const std::string& name, std::string_view text,
                                          const kernels::GufuncLayout& layout) {
  std::string body = trimmed(text);
  auto malformed = [&](const std::string& what) {
    return SignatureError(fmt::format("gufunc '{}': signature \"{}\": {}", name, text, what));
  };
  if (body.compare(0, 4, "void") == 0) body = trimmed(std::string_view(body).substr(4));
  if (body.size() < 2 || body.front() != '(' || body.back() != ')') {
    throw malformed("expected \"void(type, type, ...)\", one type per operand of the layout");
  }
  body = body.substr(1, body.size() - 2);
  std::vector<std::string> items;
  int depth = 0;
  std::string item;
  for (char c : body) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(trimmed(item));
      item.clear();
    } else {
      item += c;
    }
  }
  items.push_back(trimmed(item));
  if (static_cast<int>(items.size()) != layout.operands()) {
    throw DefinitionError(fmt::format("gufunc '{}': signature \"{}\" has {} operands, but layout "
                                      "\"{}\" has {}",
                                      name, text, items.size(), layout.to_string(), layout.operands()));
  }
  std::vector<DType> types;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const std::string& it = items[k];
    const std::size_t bracket = it.find('[');
    const std::string type_name = trimmed(std::string_view(it).substr(0, bracket));
    const std::optional<DType> type = parse_dtype(type_name);
    if (!type) throw malformed(fmt::format("operand {}: '{}' is not a dtype", k + 1, type_name));
    std::size_t dims = 0;
    if (bracket != std::string::npos) {
      if (it.back() != ']') throw malformed(fmt::format("operand {}: expected ']' at the end of '{}'", k + 1, it));
      const std::string inside = it.substr(bracket + 1, it.size() - bracket - 2);
      for (char c : inside) {
        if (c == ':') {
          ++dims;
        } else if (c != ',' && !std::isspace(static_cast<unsigned char>(c))) {
          throw malformed(fmt::format("operand {}: '{}': only ':' and ',' may stand in brackets",
                                      k + 1, it));
        }
      }
    }
    const std::size_t core = layout.core[k].size();
    if (dims != core && !(core == 0 && dims == 1)) {
      throw DefinitionError(fmt::format(
          "gufunc '{}': signature \"{}\": operand {} ('{}') has {} dimension{}, but layout \"{}\" "
          "gives it {} core dimension{}",
          name, text, k + 1, it, dims, dims == 1 ? "" : "s", layout.to_string(), core,
          core == 1 ? "" : "s"));
    }
    types.push_back(*type);
  }
  return types;
}

std::vector<Array> run_gufunc(const GufuncImpl& g, const Arg* args, std::size_t count) {
  g.engine.calls++;
  GufuncCall call = plan_call(g, args, count);
  const int nin = g.layout.nin, nout = g.layout.nout();
  std::size_t stage_bytes = 0;
  const kernels::GufuncParams params = make_params(g, call, stage_bytes);
  if (params.n > 0) {
    const codegen::LoopSpec key = g.module_key(call.signature);
    const bool staged = stage_bytes > 0;  // the staged kernel, over blocks of kGufuncStageBlock elements
    const std::int64_t blocks = (params.n + kernels::kGufuncStageBlock - 1) / kernels::kGufuncStageBlock;
    if (call.target == Target::cuda) {
      cuda::ContextGuard guard(call.device);
      auto module = cuda_method(g.engine, g.modules, key, call.device, g.method(call.signature));
      void* kernel_params[] = {const_cast<kernels::GufuncParams*>(&params)};
      cuda::launch(staged ? module->module.function(kernels::kGufuncStagedKernel) : module->kernel,
                   static_cast<unsigned>(staged ? blocks : std::min<std::int64_t>(blocks, 1 << 30)), 1, 1,
                   kernels::kCudaBlock, stage_bytes, call.stream.handle(), kernel_params);
    } else {
      auto module = host_method(g.engine, g.modules, key, g.method(call.signature));
      const auto entry = reinterpret_cast<kernels::GufuncHostEntry>(
          staged ? module->module.symbol(kernels::kGufuncHostStagedSymbol) : module->entry);
      const void* image = &params;
      // Guarded: an integer division by zero in the user's function is a jitvec::Error, not
      // SIGFPE (cpu/host_fault.hpp).
      const std::string& name = g.name;
      const Target target = call.target;
      auto run = [entry, image, &name, target](std::int64_t begin, std::int64_t end) {
        cpu::call_host_entry(entry, image, begin, end, name, target_name(target));
      };
      const std::int64_t range = staged ? blocks : params.n;
      if (call.target == Target::parallel) {
        g.engine.thread_pool().parallel_for(0, range, staged ? kMinChunk / kernels::kGufuncStageBlock : kMinChunk, run);
      } else {
        run(0, range);
      }
    }
  }

  // Results where a ufunc call's would be: out= as given; else on the device when an input
  // was there (or the call ran on the host), else copied back to the host.
  std::vector<Array> results;
  bool any_device_input = false;
  for (std::size_t i = 0; i < count; ++i) {
    if (args[i].kind() == Arg::Kind::array && args[i].array().is_device()) any_device_input = true;
  }
  for (int j = 0; j < nout; ++j) {
    const Array& computed = *call.operands[nin + j].array;
    if (!call.outs.empty()) {
      const Array& given = *call.outs[j];
      if (&computed != &given) {  // a host out= of a cuda call
        Array host = computed.to_host(call.stream);  // synchronizes
        detail::copy_contiguous_to_strided(host.data(), given);
      }
      results.push_back(given);
    } else if (call.target == Target::cuda && !any_device_input) {
      results.push_back(computed.to_host(call.stream));
    } else {
      results.push_back(computed);
    }
  }
  return results;
}

std::optional<BuildOrigin> precompile_gufunc(Engine& engine, const std::string& name,
                                             std::size_t index, Target target,
                                             const std::string& arch) {
  Engine::Impl& impl = engine.impl();
  std::shared_ptr<GufuncImpl> g;
  {
    std::shared_lock<std::shared_mutex> lock(impl.registry_mutex);
    auto it = impl.gufuncs.find(name);
    if (it == impl.gufuncs.end()) return std::nullopt;
    g = it->second;
  }
  if (index >= g->types.size()) {
    throw ArgumentError(fmt::format("gufunc '{}' has {} signatures; there is no signature {}",
                                    name, g->types.size(), index));
  }
  const LoopDefinition definition = method_loop_definition(impl, g->method(index), g->module_key(index));
  return target == Target::cuda ? build_cuda_loop(definition, arch, impl.disk(), impl.counters).origin
                                : build_host_loop(definition, impl.disk(), impl.counters).origin;
}

}  // namespace engine

// ---- Engine and Gufunc ----

namespace {

detail::GufuncImpl& checked(const std::shared_ptr<detail::GufuncImpl>& impl) {
  if (!impl) throw Error("this Gufunc is empty: get one from Engine::guvectorize or Engine::gufunc");
  return *impl;
}

}  // namespace

Gufunc Engine::guvectorize(const std::string& name, const std::vector<std::string>& signatures,
                           const std::string& layout, const std::string& source,
                           const VectorizeOptions& options) {
  engine::check_definition_text("gufunc", name, source);
  if (signatures.empty()) {
    throw DefinitionError(fmt::format("gufunc '{}' needs at least one signature", name));
  }
  kernels::GufuncLayout parsed_layout;
  try {
    parsed_layout = kernels::GufuncLayout::parse(layout);
  } catch (const SignatureError& e) {
    throw SignatureError(fmt::format("gufunc '{}': {}", name, e.what()));
  }
  std::vector<std::vector<DType>> types;
  for (const std::string& text : signatures) {
    types.push_back(engine::parse_gufunc_signature(name, text, parsed_layout));
  }
  auto impl = std::make_shared<detail::GufuncImpl>(
      *impl_, impl_, name, signatures, std::move(parsed_layout), std::move(types),
      codegen::UfuncSource{name, source, engine::definition_origin(options.origin_file), options.origin_line,
                           options.origin_file},
      options.target);
  std::unique_lock<std::shared_mutex> lock(impl_->registry_mutex);
  if (impl_->helpers.count(name) || impl_->ufuncs.count(name) || impl_->gufuncs.count(name)) {
    throw DefinitionError(fmt::format("'{}' is already defined in this engine", name));
  }
  impl_->gufuncs.emplace(name, impl);
  return Gufunc(impl);
}

Gufunc Engine::gufunc(const std::string& name) const {
  std::shared_lock<std::shared_mutex> lock(impl_->registry_mutex);
  auto it = impl_->gufuncs.find(name);
  if (it == impl_->gufuncs.end()) {
    std::vector<std::string> names;
    for (const auto& entry : impl_->gufuncs) names.push_back(entry.first);
    throw DefinitionError(fmt::format("no gufunc named '{}' is defined in this engine (defined "
                                      "gufuncs: {})",
                                      name, names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
  }
  return Gufunc(it->second);
}

std::vector<std::string> Engine::gufunc_names() const {
  std::shared_lock<std::shared_mutex> lock(impl_->registry_mutex);
  std::vector<std::string> names;
  for (const auto& entry : impl_->gufuncs) names.push_back(entry.first);
  return names;
}

std::vector<Array> Gufunc::call(const Arg* args, std::size_t count) const {
  return engine::run_gufunc(checked(impl_), args, count);
}

Array Gufunc::call_single(const Arg* args, std::size_t count) const {
  const detail::GufuncImpl& g = checked(impl_);
  if (g.layout.nout() != 1) {
    throw ArgumentError(fmt::format("gufunc '{}' {} has {} outputs: call it with outputs(...), "
                                    "which returns them all",
                                    g.name, g.layout.to_string(), g.layout.nout()));
  }
  return std::move(engine::run_gufunc(g, args, count).front());
}

const std::string& Gufunc::name() const { return checked(impl_).name; }
std::string Gufunc::layout() const { return checked(impl_).layout.to_string(); }
const std::vector<std::string>& Gufunc::signatures() const { return checked(impl_).signature_texts; }
int Gufunc::nin() const { return checked(impl_).layout.nin; }
int Gufunc::nout() const { return checked(impl_).layout.nout(); }

void Gufunc::precompile(std::size_t signature_index, Target target) const {
  const detail::GufuncImpl& g = checked(impl_);
  if (signature_index >= g.types.size()) {
    throw ArgumentError(fmt::format("gufunc '{}' has {} signatures; there is no signature {}",
                                    g.name, g.types.size(), signature_index));
  }
  const codegen::LoopSpec key = g.module_key(signature_index);
  if (target == Target::cuda) {
    engine::cuda_method(g.engine, g.modules, key, 0, g.method(signature_index));
  } else {
    engine::host_method(g.engine, g.modules, key, g.method(signature_index));
  }
}

}  // namespace jitvec
