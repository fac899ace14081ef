#include "kernels/gufunc.hpp"

#include <fmt/format.h>

#include <cctype>

#include "jitvec/errors.hpp"
#include "kernels/device_types.hpp"
#include "kernels/gufunc_views.hpp"
#include "kernels/host_prelude.hpp"
#include "kernels/kernel_abi.hpp"
#include "kernels/kernel_text.hpp"
#include "kernels/method_kernel.hpp"
#include "kernels/module_source.hpp"

namespace jitvec::kernels {
namespace {

static_assert(kGufuncStageBlock == kCudaBlock, "a staged block is one GPU block");

[[noreturn]] void layout_error(std::string_view text, std::size_t at, const std::string& what) {
  throw SignatureError(fmt::format("gufunc layout \"{}\": {} (at column {})", text, what, at + 1));
}

class LayoutParser {
 public:
  explicit LayoutParser(std::string_view text) : text_(text) {}

  GufuncLayout parse() {
    GufuncLayout layout;
    operand_list(layout);
    layout.nin = layout.operands();
    skip_spaces();
    if (text_.compare(at_, 2, "->") != 0) layout_error(text_, at_, "expected \"->\" after the inputs");
    at_ += 2;
    operand_list(layout);
    skip_spaces();
    if (at_ != text_.size()) layout_error(text_, at_, "unexpected text after the outputs");
    if (layout.nin == 0) layout_error(text_, 0, "a gufunc needs at least one input");
    return layout;
  }

 private:
  void skip_spaces() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool next_is(char c) {
    skip_spaces();
    return at_ < text_.size() && text_[at_] == c;
  }

  void operand_list(GufuncLayout& layout) {
    operand(layout);
    while (next_is(',')) {
      ++at_;
      operand(layout);
    }
  }

  void operand(GufuncLayout& layout) {
    if (!next_is('(')) layout_error(text_, at_, "expected \"(\" opening an operand's core dimensions");
    if (layout.operands() == kGufuncMaxOperands) {
      layout_error(text_, at_, fmt::format("more than {} operands", kGufuncMaxOperands));
    }
    ++at_;
    std::vector<int> dims;
    if (next_is(')')) {
      ++at_;
      layout.core.push_back(dims);
      return;
    }
    while (true) {
      skip_spaces();
      const std::size_t begin = at_;
      while (at_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) {
        ++at_;
      }
      if (begin == at_ || std::isdigit(static_cast<unsigned char>(text_[begin]))) {
        layout_error(text_, begin, "expected a dimension name (a C identifier)");
      }
      const std::string name(text_.substr(begin, at_ - begin));
      if (dims.size() == static_cast<std::size_t>(kGufuncMaxCoreDims)) {
        layout_error(text_, begin, fmt::format("more than {} core dimensions in one operand",
                                               kGufuncMaxCoreDims));
      }
      int id = 0;
      while (id < static_cast<int>(layout.names.size()) && layout.names[id] != name) ++id;
      if (id == static_cast<int>(layout.names.size())) layout.names.push_back(name);
      dims.push_back(id);
      if (next_is(',')) {
        ++at_;
        continue;
      }
      if (next_is(')')) {
        ++at_;
        break;
      }
      layout_error(text_, at_, "expected \",\" or \")\" after a dimension name");
    }
    layout.core.push_back(dims);
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

std::string operand_text(const GufuncLayout& layout, int k) {
  std::string text = "(";
  for (std::size_t d = 0; d < layout.core[k].size(); ++d) {
    if (d) text += ',';
    text += layout.names[layout.core[k][d]];
  }
  return text + ")";
}

constexpr const char* kParams = R"(struct jitvec_gufunc_params {
  void* data[${ops}];
  unsigned long long scalar[${ops}];
  long long n;
  long long ndim;
  long long sizes[${dims}];
  long long strides[${ops}][${dims}];
  long long core_extent[${ops}][${core}];
  long long core_stride[${ops}][${core}];
  long long stage_elems[${ops}];
  long long stage_row[${ops}];
  long long stage_offset[${ops}];
};
)";

// The staged kernels: a block of ${block} loop elements copies each staged operand's rows
// between global memory and shared memory (a buffer on the host) in coalesced runs, the rows
// padded to stage_row elements; lane `lane` handles loop element first + lane.
constexpr const char* kStagedGpuKernel = R"(extern "C" __global__ void __launch_bounds__(${block}) ${name}(const jitvec_gufunc_params p) {
  extern __shared__ __align__(16) unsigned char jitvec_stage[];
  const long long first = static_cast<long long>(blockIdx.x) * ${block};
  const long long rows = p.n - first < ${block} ? p.n - first : ${block};
  const int lane = threadIdx.x;
${stage_pointers}${stage_in}  __syncthreads();
  if (lane < rows) {
    const long long t = first + lane;
${body}  }
  __syncthreads();
${stage_out}}
)";

constexpr const char* kStagedHostEntry = R"(JITVEC_EXPORT void ${name}(const void* args, long long begin_block, long long end_block) {
  const jitvec_gufunc_params& p = *static_cast<const jitvec_gufunc_params*>(args);
  alignas(16) static thread_local unsigned char jitvec_stage[${stage_bytes}];
${stage_pointers}  for (long long block = begin_block; block < end_block; ++block) {
    const long long first = block * ${block};
    const long long rows = p.n - first < ${block} ? p.n - first : ${block};
    for (int lane = 0; lane < ${block}; ++lane) {
${stage_in}    }
    for (int lane = 0; lane < rows; ++lane) {
      const long long t = first + lane;
${body}    }
    for (int lane = 0; lane < ${block}; ++lane) {
${stage_out}    }
  }
}
)";

// One operand's rows between global memory and the stage: element j of the block's run is row
// j / E, column j % E, walked without a division per element. On the GPU the loop is unrolled
// so that several loads are in flight per thread (their addresses do not depend on r and c).
constexpr const char* kStageCopy = R"(  if (${staged}) {
    const long long E = p.stage_elems[${k}], L = p.stage_row[${k}], total = rows * E;
    ${T}* const global = static_cast<${T}*>(p.data[${k}]) + first * E;
    const long long step_r = ${block} / E, step_c = ${block} - step_r * E;
    long long r = lane / E, c = lane - r * E;
${unroll}    for (long long j = lane; j < total; j += ${block}) {
      ${copy};
      c += step_c;
      r += step_r;
      if (c >= E) { c -= E; ++r; }
    }
  }
)";

// GPU: a staged operand whose block run starts on 16 bytes and whose rows hold whole 16-byte
// vectors (so that no vector straddles two rows) moves 16 bytes a load or store, coalesced
// across the warp; the element copy above serves the others. Inputs go in batches of
// ${batch} vectors a thread with every operand's loads of a batch issued before the first
// store into the stage, so that a block has all its reads in flight at once.
constexpr const char* kVectorFlag = R"(  const int nv${k} = p.stage_elems[${k}] > 0 && p.stage_elems[${k}] % (16 / sizeof(${T})) == 0 &&
      (reinterpret_cast<unsigned long long>(static_cast<const ${T}*>(p.data[${k}]) + first * p.stage_elems[${k}]) & 15) == 0
      ? static_cast<int>(rows * p.stage_elems[${k}] * static_cast<long long>(sizeof(${T})) / 16) : 0;
)";

constexpr const char* kVectorLoads = R"(    jitvec_detail::Vec<${T}, 16 / sizeof(${T})> r${k}[${batch}];
#pragma unroll
    for (int u = 0; u < ${batch}; ++u) {
      const int v = base + u * ${block} + lane;
      if (v < nv${k}) r${k}[u] = reinterpret_cast<const jitvec_detail::Vec<${T}, 16 / sizeof(${T})>*>(static_cast<const ${T}*>(p.data[${k}]) + first * p.stage_elems[${k}])[v];
    }
)";

constexpr const char* kVectorStores = R"(#pragma unroll
    for (int u = 0; u < ${batch}; ++u) {
      const int v = base + u * ${block} + lane;
      if (v < nv${k}) {
        constexpr int VEC = 16 / sizeof(${T});
        const int E = static_cast<int>(p.stage_elems[${k}]), L = static_cast<int>(p.stage_row[${k}]);
        const int j = v * VEC, r = j / E, c = j - r * E;
#pragma unroll
        for (int e = 0; e < VEC; ++e) stage${k}[r * L + c + e] = r${k}[u].v[e];
      }
    }
)";

constexpr const char* kVectorOut = R"(  {
    constexpr int VEC = 16 / sizeof(${T});
    const int E = static_cast<int>(p.stage_elems[${k}]), L = static_cast<int>(p.stage_row[${k}]);
    jitvec_detail::Vec<${T}, VEC>* const g = reinterpret_cast<jitvec_detail::Vec<${T}, VEC>*>(static_cast<${T}*>(p.data[${k}]) + first * p.stage_elems[${k}]);
    for (int v = lane; v < nv${k}; v += ${block}) {
      const int j = v * VEC, r = j / E, c = j - r * E;
      jitvec_detail::Vec<${T}, VEC> y;
#pragma unroll
      for (int e = 0; e < VEC; ++e) y.v[e] = stage${k}[r * L + c + e];
      g[v] = y;
    }
  }
)";

/// Vectors a thread loads per staged input and batch.
constexpr int kStageBatch = 4;

// The offsets of every operand for loop element i: one multiply per operand for a 1-d space,
// else a division per dimension (innermost first).
constexpr const char* kBody = R"(    long long off[${operands}];
    const long long i = t;
    if (p.ndim == 1) {
${flat_offsets}    } else {
${zero_offsets}      long long rem = i;
      for (int d = 0; d < p.ndim; ++d) {
        const long long q = rem / p.sizes[d];
        const long long c = rem - q * p.sizes[d];
        rem = q;
${add_offsets}      }
    }
${views}    ${function}(${arguments});
)";

std::string body(const codegen::UfuncSource& function, const GufuncSpec& spec, bool staged) {
  const GufuncLayout& layout = spec.layout;
  std::string flat, zero, add, views, arguments;
  for (int k = 0; k < layout.operands(); ++k) {
    flat += fmt::format("      off[{0}] = i * p.strides[{0}][0];\n", k);
    zero += fmt::format("      off[{}] = 0;\n", k);
    add += fmt::format("        off[{0}] += c * p.strides[{0}][d];\n", k);
    const bool input = k < layout.nin;
    const std::string type = codegen::c_type(spec.types[k]);
    const std::string element = input ? "const " + type : type;
    const std::size_t core = layout.core[k].size();
    std::string pointer = fmt::format("static_cast<{}*>(p.data[{}]) + off[{}]", element, k, k);
    if (staged && core > 0) {
      pointer = fmt::format("(p.stage_elems[{0}] ? stage{0} + lane * p.stage_row[{0}] : {1})", k, pointer);
    }
    if (input && core == 0) {  // a "()" input may be a scalar, passed by value
      views += fmt::format(
          "    union {{ unsigned long long bits; {0} value; }} s{1};\n"
          "    s{1}.bits = p.scalar[{1}];\n",
          type, k);
      pointer = fmt::format("(p.data[{0}] ? {1} : &s{0}.value)", k, pointer);
    }
    std::string extents, strides;
    for (std::size_t d = 0; d < core; ++d) {
      if (d) {
        extents += ", ";
        strides += ", ";
      }
      extents += fmt::format("p.core_extent[{}][{}]", k, d);
      strides += fmt::format("p.core_stride[{}][{}]", k, d);
    }
    const std::string fields = core == 0 ? "" : fmt::format(", {{{}}}, {{{}}}", extents, strides);
    views += fmt::format("    const jitvec::View<{}, {}> v{}{{{}{}}};\n", element, core, k, pointer, fields);
    arguments += (k ? ", v" : "v") + std::to_string(k);
  }
  return fill(kBody, {{"operands", std::to_string(layout.operands())},
                      {"flat_offsets", flat},
                      {"zero_offsets", zero},
                      {"add_offsets", add},
                      {"views", views},
                      {"function", function.name},
                      {"arguments", arguments}});
}

std::string module_text(std::string_view prelude, const codegen::UfuncSource& function,
                        const std::vector<const codegen::HelperSource*>& helpers) {
  std::string source(prelude);
  source += gufunc_views_prelude();
  source += codegen::user_code(function, helpers);
  source += codegen::kLoopLineMarker;
  source += fill(kParams, {{"ops", std::to_string(kGufuncMaxOperands)},
                           {"dims", std::to_string(launch::kMaxDims)},
                           {"core", std::to_string(kGufuncMaxCoreDims)}});
  return source;
}

MethodKernelText kernel_text(const codegen::UfuncSource& function, const GufuncSpec& spec) {
  return MethodKernelText{"jitvec_gufunc_params", sizeof(GufuncParams), kGufuncKernel,
                          kGufuncHostSymbol, "p.n", body(function, spec, false)};
}

// The staged kernel (GPU) or entry (host).
std::string staged_kernel(const codegen::UfuncSource& function, const GufuncSpec& spec, bool host) {
  const GufuncLayout& layout = spec.layout;
  const std::string block = std::to_string(kGufuncStageBlock);
  const std::string batch = std::to_string(kStageBatch);
  std::string pointers, stage_in, stage_out, flags, loads, stores, vector_out, widest;
  for (int k = 0; k < layout.operands(); ++k) {
    if (layout.core[k].empty()) continue;
    const std::string type = codegen::c_type(spec.types[k]);
    pointers += fmt::format("  {0}* const stage{1} = reinterpret_cast<{0}*>(jitvec_stage + p.stage_offset[{1}]);\n",
                            type, k);
    const bool input = k < layout.nin;
    const Slots operand{{"k", std::to_string(k)}, {"T", type}};
    const Slots looped{{"k", std::to_string(k)}, {"T", type}, {"block", block}};
    const Slots batched{{"k", std::to_string(k)}, {"T", type}, {"block", block}, {"batch", batch}};
    std::string staged = fmt::format("p.stage_elems[{}] > 0", k);
    if (!host) {
      flags += fill(kVectorFlag, operand);
      staged += fmt::format(" && nv{} == 0", k);
      if (input) {
        loads += fill(kVectorLoads, batched);
        stores += fill(kVectorStores, batched);
        widest += fmt::format("  if (nv{0} > nv_max) nv_max = nv{0};\n", k);
      } else {
        vector_out += fill(kVectorOut, looped);
      }
    }
    std::string copy = fill(kStageCopy, {{"k", std::to_string(k)},
                                         {"T", type},
                                         {"staged", staged},
                                         {"block", block},
                                         {"unroll", host ? "" : "#pragma unroll 8\n"},
                                         {"copy", input ? fmt::format("stage{}[r * L + c] = global[j]", k)
                                                        : fmt::format("global[j] = stage{}[r * L + c]", k)}});
    (input ? stage_in : stage_out) += copy;
  }
  if (!host) {
    std::string vector_in;
    if (!loads.empty()) {
      vector_in = "  int nv_max = 0;\n" + widest + "  for (int base = 0; base < nv_max; base += " + batch + " * " +
                  block + ") {\n" + loads + stores + "  }\n";
    }
    stage_in = flags + vector_in + stage_in;
    stage_out = vector_out + stage_out;
  }
  Slots slots{{"block", block},
              {"name", host ? kGufuncHostStagedSymbol : kGufuncStagedKernel},
              {"stage_pointers", pointers},
              {"stage_in", stage_in},
              {"stage_out", stage_out},
              {"body", body(function, spec, true)}};
  if (host) slots.set("stage_bytes", static_cast<long long>(kGufuncStageBytes));
  return fill(host ? kStagedHostEntry : kStagedGpuKernel, slots);
}

}  // namespace

GufuncLayout GufuncLayout::parse(std::string_view text) { return LayoutParser(text).parse(); }

std::string GufuncLayout::to_string() const {
  std::string text;
  for (int k = 0; k < operands(); ++k) {
    if (k == nin) {
      text += "->";
    } else if (k) {
      text += ',';
    }
    text += operand_text(*this, k);
  }
  return text;
}

std::string GufuncSpec::describe() const {
  std::string types_text;
  for (std::size_t k = 0; k < types.size(); ++k) {
    if (k) types_text += static_cast<int>(k) == layout.nin ? " -> " : ", ";
    types_text += dtype_name(types[k]);
  }
  return fmt::format("{} [{}]", layout.to_string(), types_text);
}

std::string generate_gufunc_cuda_source(const codegen::UfuncSource& function,
                                        const std::vector<const codegen::HelperSource*>& helpers,
                                        const GufuncSpec& spec) {
  const std::string prelude = std::string(device_prelude()) +
                              types_prelude(types_parts_needed(spec.types, codegen::user_code(function, helpers)));
  return module_text(prelude, function, helpers) + method_gpu_kernel(kernel_text(function, spec)) +
         staged_kernel(function, spec, false);
}

std::string generate_gufunc_host_source(const codegen::UfuncSource& function,
                                        const std::vector<const codegen::HelperSource*>& helpers,
                                        const GufuncSpec& spec) {
  return module_text(host_prelude(), function, helpers) + method_host_entry(kernel_text(function, spec)) +
         staged_kernel(function, spec, true);
}

}  // namespace jitvec::kernels
