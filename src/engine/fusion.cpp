#include "engine/fusion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>

#include "codegen/fusion_expression.hpp"
#include "codegen/line_directive.hpp"
#include "codegen/portable_source.hpp"
#include "codegen/source_lexer.hpp"
#include "codegen/reserved_names.hpp"
#include "engine/engine_impl.hpp"
#include "engine/type_resolution.hpp"
#include "jitvec/errors.hpp"
#include "launch/strided_params.hpp"

namespace jitvec::engine {
namespace {

// Signatures hold one result (`result`) or a list of them (`results`, for several outputs);
// these read and write a one-result signature either way.
template <class S>
auto results_of(const S& s, int) -> decltype(std::vector<DType>(s.results)) {
  return s.results;
}
template <class S>
std::vector<DType> results_of(const S& s, long) {
  return {s.result};
}
template <class S>
auto set_result(S& s, DType r, int) -> decltype(void(s.results = {r})) {
  s.results = {r};
}
template <class S>
void set_result(S& s, DType r, long) {
  s.result = r;
}

DType result_type(const Signature& s) { return results_of(s, 0).front(); }
Signature make_signature(DType result, std::vector<DType> args) {
  Signature s;
  set_result(s, result, 0);
  s.args = std::move(args);
  return s;
}

int stage_nin(const detail::UfuncImpl& u) {
  return static_cast<int>(u.signatures.front().args.size());
}

bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

ScalarValue literal_value(const codegen::FusionLiteral& literal) {
  ScalarValue v;
  switch (literal.kind) {
    case codegen::FusionLiteral::Kind::integer:
      v.type = DType::int64;
      v.i = literal.integer;
      break;
    case codegen::FusionLiteral::Kind::floating:
      v.type = DType::float64;
      v.f = literal.floating;
      break;
    case codegen::FusionLiteral::Kind::boolean:
      v.type = DType::bool_;
      v.b = literal.boolean;
      break;
  }
  return v;
}

// ---- from the parsed expression to stages ----

class StageBuilder {
 public:
  StageBuilder(Engine::Impl& engine, Fusion& fusion, const std::string& text)
      : engine_(engine), fusion_(fusion), text_(text) {}

  // Appends the stages of `node` (a call) and returns the operand of its result. `bound` maps
  // the inputs of the expression being expanded to operands of the outer fusion (identity at
  // the top; a nested fused ufunc's inputs are its call's arguments).
  FusionOperand add_call(const codegen::FusionNode& node, const codegen::FusionExpression& parsed) {
    std::shared_ptr<detail::UfuncImpl> ufunc = lookup(node);
    if (ufunc->signatures.front().args.size() != node.args.size()) {
      fail(node.column, fmt::format("'{}' takes {} input{}, but {} {} given", node.name,
                                    stage_nin(*ufunc), stage_nin(*ufunc) == 1 ? "" : "s",
                                    node.args.size(), node.args.size() == 1 ? "is" : "are"));
    }
    std::vector<FusionOperand> args;
    for (const codegen::FusionNode& arg : node.args) {
      switch (arg.kind) {
        case codegen::FusionNode::Kind::call:
          args.push_back(add_call(arg, parsed));
          break;
        case codegen::FusionNode::Kind::input:
          args.push_back(FusionOperand{FusionOperand::Kind::input, arg.index});
          break;
        case codegen::FusionNode::Kind::literal:
          args.push_back(FusionOperand{FusionOperand::Kind::literal,
                                       static_cast<int>(fusion_.literals.size())});
          fusion_.literals.push_back(literal_value(parsed.literals[arg.index]));
          break;
      }
    }
    if (ufunc->fusion) return expand(*ufunc->fusion, args, node);
    for (const Signature& s : ufunc->signatures) {
      if (results_of(s, 0).size() != 1) {
        fail(node.column, fmt::format("'{}' has a loop with {} results ({}); a fusion composes "
                                      "ufuncs of one result",
                                      node.name, results_of(s, 0).size(), s.to_string()));
      }
    }
    fusion_.stages.push_back(
        FusionStage{std::move(ufunc), std::move(args), node.column, call_text(node, parsed)});
    return FusionOperand{FusionOperand::Kind::stage, static_cast<int>(fusion_.stages.size()) - 1};
  }

 private:
  [[noreturn]] void fail(int column, const std::string& what) const {
    throw DefinitionError(codegen::fusion_error_at(fusion_.name, text_, column, what));
  }

  std::shared_ptr<detail::UfuncImpl> lookup(const codegen::FusionNode& node) const {
    {
      std::shared_lock<std::shared_mutex> lock(engine_.registry_mutex);
      if (engine_.helpers.count(node.name)) {
        fail(node.column, fmt::format("'{}' is a device function, not a ufunc; a fusion "
                                      "composes ufuncs (Engine::vectorize)",
                                      node.name));
      }
    }
    if (node.name == fusion_.name)
      fail(node.column, fmt::format("'{}' cannot call itself", node.name));
    try {
      return engine_.find_ufunc(node.name);
    } catch (const DefinitionError& e) {
      fail(node.column, e.what());
    }
  }

  // The stages of the fused ufunc `inner`, called with `args`, appended: its inputs become
  // `args`, its literals and stages are renumbered.
  FusionOperand expand(const Fusion& inner, const std::vector<FusionOperand>& args,
                       const codegen::FusionNode& node) {
    const int literal_base = static_cast<int>(fusion_.literals.size());
    const int stage_base = static_cast<int>(fusion_.stages.size());
    fusion_.literals.insert(fusion_.literals.end(), inner.literals.begin(), inner.literals.end());
    for (const FusionStage& stage : inner.stages) {
      FusionStage copy = stage;
      copy.column = node.column;
      copy.text = fmt::format("{} (in '{}' = {})", stage.text, inner.name, inner.expression);
      for (FusionOperand& op : copy.args) {
        if (op.kind == FusionOperand::Kind::input)
          op = args[op.index];
        else if (op.kind == FusionOperand::Kind::literal)
          op.index += literal_base;
        else
          op.index += stage_base;
      }
      fusion_.stages.push_back(std::move(copy));
    }
    return FusionOperand{FusionOperand::Kind::stage, static_cast<int>(fusion_.stages.size()) - 1};
  }

  static std::string call_text(const codegen::FusionNode& node,
                               const codegen::FusionExpression& parsed) {
    if (node.kind == codegen::FusionNode::Kind::input) return node.name;
    if (node.kind == codegen::FusionNode::Kind::literal) return parsed.literals[node.index].text;
    std::string out = node.name + "(";
    for (std::size_t k = 0; k < node.args.size(); ++k) {
      out += (k ? ", " : "") + call_text(node.args[k], parsed);
    }
    return out + ")";
  }

  Engine::Impl& engine_;
  Fusion& fusion_;
  const std::string& text_;
};

// ---- type resolution, stage by stage ----

struct Outcome {
  std::vector<int> loops;            // each stage's signature index
  std::vector<DType> stage_results;  // each stage's loop result type
  std::vector<DType> input_types;    // each input's type in the fused loop
  DType result = DType::float32;
};

Outcome resolve_stages(const Fusion& fusion, const std::vector<CallInput>& inputs) {
  Outcome outcome;
  std::vector<std::vector<DType>> consumers(inputs.size());  // loop types each scalar meets
  std::vector<CallInput> stage_inputs;
  for (std::size_t s = 0; s < fusion.stages.size(); ++s) {
    const FusionStage& stage = fusion.stages[s];
    stage_inputs.clear();
    for (const FusionOperand& op : stage.args) {
      switch (op.kind) {
        case FusionOperand::Kind::input:
          stage_inputs.push_back(inputs[op.index]);
          break;
        case FusionOperand::Kind::literal: {
          const ScalarValue& literal = fusion.literals[op.index];
          stage_inputs.push_back(CallInput{true, literal.type, &literal});
          break;
        }
        case FusionOperand::Kind::stage:
          stage_inputs.push_back(CallInput{false, outcome.stage_results[op.index], nullptr});
          break;
      }
    }
    std::size_t loop = 0;
    try {
      loop = resolve_loop(stage.ufunc->name, stage.ufunc->signatures, stage_inputs);
    } catch (const ArgumentError& e) {
      throw ArgumentError(fmt::format("fused ufunc '{}' = {}: in stage {}, {} (column {}): {}",
                                      fusion.name, fusion.expression, s + 1, stage.text,
                                      stage.column, e.what()));
    }
    const Signature& signature = stage.ufunc->signatures[loop];
    outcome.loops.push_back(static_cast<int>(loop));
    outcome.stage_results.push_back(result_type(signature));
    for (std::size_t k = 0; k < stage.args.size(); ++k) {
      if (stage.args[k].kind == FusionOperand::Kind::input) {
        consumers[stage.args[k].index].push_back(signature.args[k]);
      }
    }
  }
  outcome.result = outcome.stage_results.back();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const CallInput& in = inputs[i];
    if (!in.is_scalar) {
      outcome.input_types.push_back(in.dtype);
      continue;
    }
    // A scalar goes in the loop type of the stages that take it, where they agree (so it is
    // converted exactly as in a separate call); else in its own type, from which each stage's
    // conversion gives what the scalar's own conversion would.
    const std::vector<DType>& types = consumers[i];
    const bool agree =
        std::all_of(types.begin(), types.end(), [&](DType t) { return t == types.front(); });
    outcome.input_types.push_back(agree ? types.front() : in.scalar->type);
  }
  return outcome;
}

std::vector<int> variant_key(const Outcome& outcome) {
  std::vector<int> key = outcome.loops;
  for (DType t : outcome.input_types) key.push_back(static_cast<int>(t));
  return key;
}

// ---- the generated source of one variant ----

// `source` (which check_portable_source accepted) with its #include directives taken out (the
// line count stays), each appended to `includes` once, as the preprocessor reads it: they go
// before the namespaces. A directive alone on its line (white space around it, a `//` comment
// after it) takes the line's text with it, leaving it empty; any other is blanked with spaces,
// so that what stands around it (a comment that goes on past the line) stays as it was.
std::string hoist_includes(const std::string& source, std::vector<std::string>& includes) {
  std::string out = source;
  std::vector<std::pair<std::size_t, std::size_t>> emptied;  // [begin, end) of lines to empty
  const std::vector<codegen::SourceToken> tokens =
      codegen::preprocessing_tokens(source, codegen::SourceReading{});
  for (const codegen::SourceDirective& directive : codegen::source_directives(tokens)) {
    if (directive.name != "include" || directive.operands.size() != 1) continue;
    const std::string include = "#include " + directive.operands[0].text;
    if (std::find(includes.begin(), includes.end(), include) == includes.end()) {
      includes.push_back(include);
    }
    const std::size_t line_begin = source.rfind('\n', directive.begin) == std::string::npos
                                       ? 0
                                       : source.rfind('\n', directive.begin) + 1;
    std::size_t line_end = source.find('\n', directive.end);
    if (line_end == std::string::npos) line_end = source.size();
    const std::string before = source.substr(line_begin, directive.begin - line_begin);
    std::string after = source.substr(directive.end, line_end - directive.end);
    after.erase(0, std::min(after.size(), after.find_first_not_of(" \t\r")));
    const bool alone = before.find_first_not_of(" \t") == std::string::npos &&
                       source.find('\n', directive.begin) >= directive.end &&
                       (after.empty() || (after.rfind("//", 0) == 0 && after.back() != '\\'));
    if (alone) {
      emptied.emplace_back(line_begin, line_end);
    } else {
      for (std::size_t k = directive.begin; k < directive.end; ++k) {
        if (out[k] != '\n' && out[k] != '\r') out[k] = ' ';
      }
    }
  }
  for (auto line = emptied.rbegin(); line != emptied.rend(); ++line) {
    out.erase(line->first, line->second - line->first);
  }
  return out;
}

// A literal as a C++ constant of exactly `to`'s value (hexadecimal floats are exact).
std::string literal_text(const ScalarValue& v, DType to, const Fusion& fusion) {
  const bool from_float = dtype_kind(v.type) == DTypeKind::floating;
  const bool from_bool = v.type == DType::bool_;
  switch (to) {
    case DType::bool_:
      return v.b ? "true" : "false";
    case DType::float32: {
      const float f = from_bool    ? float(v.b)
                      : from_float ? static_cast<float>(v.f)
                                   : static_cast<float>(v.i);
      return fmt::format("({:a}f)", f);
    }
    case DType::float64: {
      const double d = from_bool ? double(v.b) : from_float ? v.f : static_cast<double>(v.i);
      return fmt::format("({:a})", d);
    }
    default:
      break;
  }
  const DTypeKind kind = dtype_kind(to);
  if (kind == DTypeKind::signed_int || kind == DTypeKind::unsigned_int) {
    const std::int64_t i = from_bool    ? std::int64_t(v.b)
                           : from_float ? static_cast<std::int64_t>(v.f)
                                        : v.i;
    if (from_float && v.f >= 9223372036854775808.0) {
      return fmt::format("static_cast<{}>({}ULL)", dtype_c_type(to),
                         static_cast<std::uint64_t>(v.f));
    }
    if (i == INT64_MIN)
      return fmt::format("static_cast<{}>(-9223372036854775807LL - 1)", dtype_c_type(to));
    return fmt::format("static_cast<{}>({}{}LL)", dtype_c_type(to), i < 0 ? "-" : "",
                       i < 0 ? -i : i);
  }
  throw ArgumentError(fmt::format(
      "fused ufunc '{}' = {}: a number in the expression would go in a {} argument; numbers "
      "are for bool, integer, float32 and float64 arguments: pass it as an input instead",
      fusion.name, fusion.expression, dtype_name(to)));
}

// The barrier a `t` intermediate passes through on the GPU (see the header comment), for the
// types that have one.
const char* barrier_asm(DType t) {
  switch (t) {
    case DType::float32:
      return "asm(\"add.rn.f32 %0, %1, 0f80000000;\" : \"=f\"(r) : \"f\"(v));";
    case DType::float64:
      return "asm(\"add.rn.f64 %0, %1, 0d8000000000000000;\" : \"=d\"(r) : \"d\"(v));";
    case DType::int32:
    case DType::uint32:
      return "asm(\"mov.b32 %0, %1;\" : \"=r\"(r) : \"r\"(v));";
    case DType::int64:
    case DType::uint64:
      return "asm(\"mov.b64 %0, %1;\" : \"=l\"(r) : \"l\"(v));";
    default:
      return nullptr;
  }
}

class SourceWriter {
 public:
  SourceWriter(const Fusion& fusion, const Outcome& outcome) : fusion_(fusion), outcome_(outcome) {}

  std::string write() {
    std::string header = fmt::format("// jitvec fusion: {}({}) = {}\n", fusion_.name,
                                     fmt::join(fusion_.inputs, ", "), fusion_.expression);
    std::vector<std::string> includes;
    std::string stages;
    std::set<const detail::UfuncImpl*> pasted;
    for (std::size_t s = 0; s < fusion_.stages.size(); ++s) {
      const FusionStage& stage = fusion_.stages[s];
      header += fmt::format("//   stage {}: {} with loop {}\n", s + 1, stage.text,
                            stage.ufunc->signatures[outcome_.loops[s]].to_string());
      if (!pasted.insert(stage.ufunc.get()).second) continue;
      const codegen::UfuncSource& source = stage.ufunc->source;
      const std::string file =
          source.origin_file.empty() ? "ufunc:" + source.name : source.origin_file;
      codegen::check_portable_source(source.source,
                                     source.origin_path.empty() ? file : source.origin_path,
                                     source.origin_line, "ufunc '" + source.name + "'");
      stages += fmt::format("namespace jitvec_fusion_{} {{\n", source.name);
      stages += codegen::line_directive(source.origin_line, file);
      stages += hoist_includes(source.source, includes);
      stages += fmt::format("\n}}  // namespace jitvec_fusion_{}\n", source.name);
      stages += kLineMarker;  // replaced below by the line it is on
    }
    std::string out = header;
    for (const std::string& include : includes) out += include + "\n";
    out += stages;
    out += barriers();
    out += function();
    // Each marker becomes a #line naming the fusion at the line that follows it.
    std::size_t at = 0;
    while ((at = out.find(kLineMarker, at)) != std::string::npos) {
      const int line = static_cast<int>(std::count(out.begin(), out.begin() + at, '\n')) + 2;
      const std::string directive = codegen::line_directive(line, "ufunc:" + fusion_.name);
      out.replace(at, std::string_view(kLineMarker).size(), directive);
      at += directive.size();
    }
    return out;
  }

 private:
  static constexpr const char* kLineMarker = "@JITVEC_FUSION_LINE@\n";

  std::string barriers() const {
    std::set<DType> types;
    for (std::size_t s = 0; s + 1 < fusion_.stages.size(); ++s) {
      if (barrier_asm(outcome_.stage_results[s])) types.insert(outcome_.stage_results[s]);
    }
    std::string out;
    for (DType t : types) {
      out += fmt::format(
          "__device__ __forceinline__ {0} jitvec_fusion_barrier_{1}({0} v) {{\n"
          "#ifdef __CUDA_ARCH__\n  {0} r;\n  {2}\n  return r;\n#else\n  return v;\n#endif\n}}\n",
          dtype_c_type(t), dtype_name(t), barrier_asm(t));
    }
    return out;
  }

  std::string function() const {
    std::string params;
    for (std::size_t i = 0; i < outcome_.input_types.size(); ++i) {
      params += fmt::format("{}{} a{}", i ? ", " : "", dtype_c_type(outcome_.input_types[i]), i);
    }
    std::string body;
    const std::size_t last = fusion_.stages.size() - 1;
    for (std::size_t s = 0; s <= last; ++s) {
      const FusionStage& stage = fusion_.stages[s];
      const Signature& loop = stage.ufunc->signatures[outcome_.loops[s]];
      std::string args;
      for (std::size_t k = 0; k < stage.args.size(); ++k) {
        const FusionOperand& op = stage.args[k];
        const DType to = loop.args[k];
        std::string value;
        DType from = to;
        switch (op.kind) {
          case FusionOperand::Kind::input:
            value = fmt::format("a{}", op.index);
            from = outcome_.input_types[op.index];
            break;
          case FusionOperand::Kind::literal:
            value = literal_text(fusion_.literals[op.index], to, fusion_);
            break;
          case FusionOperand::Kind::stage:
            value = fmt::format("t{}", op.index);
            from = outcome_.stage_results[op.index];
            break;
        }
        if (from != to) value = fmt::format("static_cast<{}>({})", dtype_c_type(to), value);
        // A named variable of the loop type, as jitvec_apply's parameters are.
        body += fmt::format("  {} s{}_{} = {};\n", dtype_c_type(to), s, k, value);
        args += fmt::format("{}s{}_{}", k ? ", " : "", s, k);
      }
      const DType result = outcome_.stage_results[s];
      const std::string call =
          fmt::format("static_cast<{}>(jitvec_fusion_{}::{}({}))", dtype_c_type(result),
                      stage.ufunc->source.name, stage.ufunc->source.name, args);
      if (s == last) {
        body += fmt::format("  return {};\n", call);
      } else if (barrier_asm(result)) {
        body += fmt::format("  const {0} t{1} = jitvec_fusion_barrier_{2}({3});\n",
                            dtype_c_type(result), s, dtype_name(result), call);
      } else {
        body += fmt::format("  const {} t{} = {};\n", dtype_c_type(result), s, call);
      }
    }
    return fmt::format("__device__ __forceinline__ {} {}({}) {{\n{}}}\n",
                       dtype_c_type(outcome_.result), fusion_.name, params, body);
  }

  const Fusion& fusion_;
  const Outcome& outcome_;
};

std::shared_ptr<detail::UfuncImpl> variant(const detail::UfuncImpl& fused, const Outcome& outcome) {
  const Fusion& fusion = *fused.fusion;
  const std::vector<int> key = variant_key(outcome);
  {
    std::shared_lock<std::shared_mutex> lock(fusion.variants_mutex);
    auto it = fusion.variants.find(key);
    if (it != fusion.variants.end()) return it->second;
  }
  std::string source = SourceWriter(fusion, outcome).write();
  // The variant is owned by the fused ufunc, which keeps the engine alive.
  auto made = std::make_shared<detail::UfuncImpl>(
      fused.engine, nullptr, fusion.name,
      std::vector<Signature>{make_signature(outcome.result, outcome.input_types)},
      codegen::UfuncSource{fusion.name, std::move(source), "", 1, ""}, fused.target);
  std::unique_lock<std::shared_mutex> lock(fusion.variants_mutex);
  return fusion.variants.emplace(key, std::move(made)).first->second;
}

std::vector<CallInput> arrays_of(const std::vector<DType>& types) {
  std::vector<CallInput> inputs;
  for (DType t : types) inputs.push_back(CallInput{false, t, nullptr});
  return inputs;
}

// Whether `outcome` ran exactly the loops of `combo`, with every value already of the type its
// loop takes (no conversion between stages nor of an input): a "diagonal" composition.
bool composes_exactly(const Fusion& fusion, const std::vector<std::size_t>& combo,
                      const Outcome& outcome) {
  for (std::size_t s = 0; s < fusion.stages.size(); ++s) {
    if (static_cast<std::size_t>(outcome.loops[s]) != combo[s]) return false;
    const Signature& loop = fusion.stages[s].ufunc->signatures[combo[s]];
    for (std::size_t k = 0; k < loop.args.size(); ++k) {
      const FusionOperand& op = fusion.stages[s].args[k];
      if ((op.kind == FusionOperand::Kind::input &&
           outcome.input_types[op.index] != loop.args[k]) ||
          (op.kind == FusionOperand::Kind::stage &&
           outcome.stage_results[op.index] != loop.args[k])) {
        return false;
      }
    }
  }
  return true;
}

// The fused ufunc's exact loops (see the header comment): the input types each combination of
// the stages' signatures names (an input takes its first use's type), kept where arrays of
// those types resolve to exactly that combination without conversions; where no combination
// does, every combination that resolves at all. Throws DefinitionError when none resolves.
std::vector<Signature> exact_signatures(const Fusion& fusion) {
  constexpr std::size_t kMostCombinations = 4096;
  std::vector<Signature> exact;
  std::vector<Signature> resolvable;
  std::string first_error;
  auto add = [](std::vector<Signature>& list, Signature signature) {
    if (std::find(list.begin(), list.end(), signature) == list.end())
      list.push_back(std::move(signature));
  };
  std::vector<std::size_t> combo(fusion.stages.size(), 0);
  for (std::size_t tried = 0; tried < kMostCombinations; ++tried) {
    std::vector<DType> types(fusion.inputs.size(), DType::bool_);
    std::vector<bool> typed(fusion.inputs.size(), false);
    for (std::size_t s = 0; s < fusion.stages.size(); ++s) {
      const Signature& loop = fusion.stages[s].ufunc->signatures[combo[s]];
      for (std::size_t k = 0; k < loop.args.size(); ++k) {
        const FusionOperand& op = fusion.stages[s].args[k];
        if (op.kind == FusionOperand::Kind::input && !typed[op.index]) {
          types[op.index] = loop.args[k];
          typed[op.index] = true;
        }
      }
    }
    try {
      const Outcome outcome = resolve_stages(fusion, arrays_of(types));
      if (composes_exactly(fusion, combo, outcome))
        add(exact, make_signature(outcome.result, types));
      add(resolvable, make_signature(outcome.result, types));
    } catch (const ArgumentError& e) {
      if (first_error.empty()) first_error = e.what();
    }
    // The next combination, the last stage's signature varying fastest; done after the last.
    std::size_t s = combo.size();
    while (s > 0 && ++combo[s - 1] == fusion.stages[s - 1].ufunc->signatures.size()) {
      combo[--s] = 0;
    }
    if (s == 0) break;
  }
  if (resolvable.empty()) {
    throw DefinitionError(
        fmt::format("fusion '{}' = {}: its stages never compose, for any of their signatures: {}",
                    fusion.name, fusion.expression, first_error));
  }
  return exact.empty() ? resolvable : exact;
}

}  // namespace

Ufunc fuse(Engine::Impl& engine, const std::shared_ptr<Engine::Impl>& keep_alive,
           const std::string& name, const std::string& expression,
           const VectorizeOptions& options) {
  if (!is_identifier(name)) {
    throw DefinitionError(fmt::format("fusion name '{}' is not a C++ identifier", name));
  }
  if (auto reason = codegen::reserved_name_reason(name)) {
    throw DefinitionError(fmt::format("fusion name {}", *reason));
  }
  const codegen::FusionExpression parsed = codegen::parse_fusion_expression(expression, name);
  auto fusion = std::make_shared<Fusion>();
  fusion->name = name;
  fusion->expression = parsed.canonical;
  fusion->inputs = parsed.inputs;
  fusion->origin_file = options.origin_file;
  fusion->origin_line = options.origin_line;
  if (static_cast<int>(parsed.inputs.size()) >= launch::kMaxOperands) {
    throw DefinitionError(fmt::format("fusion '{}' has {} inputs; jitvec supports at most {}", name,
                                      parsed.inputs.size(), launch::kMaxOperands - 1));
  }
  StageBuilder(engine, *fusion, expression).add_call(parsed.root, parsed);
  std::vector<Signature> signatures = exact_signatures(*fusion);
  // Never compiled by a call (calls run the variants); an operation that takes the ufunc's own
  // loops (reduce, at) fails to compile it with this message.
  const std::string placeholder = fmt::format(
      "// fused ufunc {} = {}\n#error \"fused ufunc '{}': this operation takes ufuncs defined by "
      "Engine::vectorize; call the fused ufunc, or apply the operation to its stages\"\n",
      name, fusion->expression, name);
  auto impl = std::make_shared<detail::UfuncImpl>(
      engine, keep_alive, name, std::move(signatures),
      codegen::UfuncSource{name, placeholder, "", 1, ""}, options.target);
  impl->fusion = std::move(fusion);
  std::unique_lock<std::shared_mutex> lock(engine.registry_mutex);
  if (engine.helpers.count(name) || engine.ufuncs.count(name)) {
    throw DefinitionError(fmt::format("'{}' is already defined in this engine", name));
  }
  engine.ufuncs.emplace(name, impl);
  return Ufunc(impl);
}

Array call_fusion(const detail::UfuncImpl& fused, const Arg* args, std::size_t count) {
  const Fusion& fusion = *fused.fusion;
  std::vector<CallInput> inputs;
  inputs.reserve(fusion.inputs.size());
  for (std::size_t i = 0; i < count; ++i) {
    const Arg& arg = args[i];
    if (arg.kind() == Arg::Kind::array) {
      inputs.push_back(CallInput{false, arg.array().dtype(), nullptr});
    } else if (arg.kind() == Arg::Kind::scalar) {
      inputs.push_back(CallInput{true, arg.scalar().type, &arg.scalar()});
    } else if (arg.kind() == Arg::Kind::loop) {
      throw ArgumentError(fmt::format("fused ufunc '{}' takes no loop(): each stage resolves its own loop",
                                      fusion.name));
    }
  }
  if (inputs.size() != fusion.inputs.size()) {
    throw ArgumentError(fmt::format(
        "fused ufunc '{}' takes {} input{} ({}), but {} {} given", fusion.name,
        fusion.inputs.size(), fusion.inputs.size() == 1 ? "" : "s", fmt::join(fusion.inputs, ", "),
        inputs.size(), inputs.size() == 1 ? "was" : "were"));
  }
  return Ufunc(variant(fused, resolve_stages(fusion, inputs))).call(args, count);
}

std::shared_ptr<detail::UfuncImpl> exact_loop_ufunc(const std::shared_ptr<detail::UfuncImpl>& ufunc,
                                                    std::size_t signature_index) {
  if (!ufunc->fusion || signature_index >= ufunc->signatures.size()) return ufunc;
  const Signature& signature = ufunc->signatures[signature_index];
  return variant(*ufunc, resolve_stages(*ufunc->fusion, arrays_of(signature.args)));
}

}  // namespace jitvec::engine
