#include "engine/accuracy_reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "codegen/source_parts.hpp"

namespace jitvec::engine {
namespace {

constexpr const char* kReferenceName = "jitvec_accuracy_reference";

std::optional<DType> wider(DType t) {
  switch (t) {
    case DType::float16:
    case DType::bfloat16: return DType::float32;
    case DType::float32: return DType::float64;
    default: return std::nullopt;
  }
}

// The user's source, then the wrapper the reference loop calls (after a #line of its own, so
// a message about it does not point into the user's file).
std::string reference_source(const detail::UfuncImpl& ufunc, const Signature& wide) {
  std::string params, args, result_params, result_args;
  for (std::size_t k = 0; k < wide.args.size(); ++k) {
    params += fmt::format("{} a{}, ", codegen::c_type(wide.args[k]), k);
    args += fmt::format(", a{}", k);
  }
  for (std::size_t o = 0; o < wide.results.size(); ++o) {
    result_params += fmt::format("{}& r{}, ", codegen::c_type(wide.results[o]), o);
    result_args += fmt::format(", r{}", o);
  }
  const std::string& name = ufunc.name;
  std::string probe;
  if (wide.results.size() == 1) {
    // One result: the call must return the wide type itself.
    const std::string r = codegen::c_type(wide.results[0]);
    probe = fmt::format(
        "template <class... A> auto jitvec_accuracy_call(int, {0}& r, A... a) -> decltype({1}(a...), true) {{\n"
        "  r = static_cast<{0}>({1}(a...));\n"
        "  return std::is_same<typename std::decay<decltype({1}(a...))>::type, {0}>::value;\n"
        "}}\n"
        "template <class... A> bool jitvec_accuracy_call(long, {0}&, A...) {{ return false; }}\n",
        r, name);
  } else {
    // Several results: the call must take references of the wide types.
    probe = fmt::format(
        "template <class... A> auto jitvec_accuracy_call(int, A&... a) -> decltype({0}(a...), true) {{\n"
        "  {0}(a...);\n"
        "  return true;\n"
        "}}\n"
        "template <class... A> bool jitvec_accuracy_call(long, A&...) {{ return false; }}\n",
        name);
  }
  const std::string call =
      wide.results.size() == 1 ? fmt::format("jitvec_accuracy_call(0, r0{})", args)
                               : fmt::format("jitvec_accuracy_call(0{}{})", args, result_args);
  return fmt::format("{}\n#line 1 \"jitvec-accuracy-reference\"\n{}void {}({}{}bool& wide) {{\n  wide = {};\n}}\n",
                     ufunc.source.source, probe, kReferenceName, params, result_params, call);
}

std::string wide_call_text(const detail::UfuncImpl& ufunc, const Signature& wide) {
  std::vector<std::string> types;
  for (DType t : wide.args) types.emplace_back(codegen::c_type(t));
  return fmt::format("{}({})", ufunc.name, fmt::join(types, ", "));
}

std::string what_to_write(const detail::UfuncImpl& ufunc, const Signature& wide) {
  return fmt::format(
      "an accuracy report compares each loop with the same source in a wider type, so {} must "
      "compute in {}: write '{}' as a template over its float type (template <typename T> T {}(T "
      "x, ...)), or add an overload for the wider type",
      wide_call_text(ufunc, wide), dtype_name(wide.results[0]), ufunc.name, ufunc.name);
}

}  // namespace

std::optional<Signature> wider_signature(const Signature& loop, std::string& why) {
  // Widens `narrow` (the inputs or the results, called `role`) into `into`; false with `why`.
  auto widen = [&why](const std::vector<DType>& narrow, const char* role, std::vector<DType>& into) {
    for (std::size_t k = 0; k < narrow.size(); ++k) {
      const std::optional<DType> w = wider(narrow[k]);
      if (!w) {
        why = narrow[k] == DType::float64
                  ? fmt::format("{} {} is float64, which has no wider type on the cpu target (long double "
                                "is no jitvec dtype)",
                                role, k)
                  : fmt::format("{} {} is {}: only loops whose operands are all floats (float16, "
                                "bfloat16, float32) are measured",
                                role, k, dtype_name(narrow[k]));
        return false;
      }
      into.push_back(*w);
    }
    return true;
  };
  Signature wide;
  if (!widen(loop.args, "input", wide.args) || !widen(loop.results, "result", wide.results)) return std::nullopt;
  return wide;
}

std::vector<Array> run_reference(const detail::UfuncImpl& ufunc, const Signature& wide,
                                 const std::vector<Array>& inputs) {
  Signature with_flag = wide;
  with_flag.results.push_back(DType::bool_);
  // Not registered and not owning the engine: it lives for this call only, while `ufunc` keeps
  // the engine alive.
  auto reference = std::make_shared<detail::UfuncImpl>(
      ufunc.engine, nullptr, kReferenceName, std::vector<Signature>{with_flag},
      codegen::UfuncSource{kReferenceName, reference_source(ufunc, wide), ufunc.source.origin_file,
                           ufunc.source.origin_line, ufunc.source.origin_path},
      Target::cpu);
  std::vector<Arg> args(inputs.begin(), inputs.end());
  args.emplace_back(target(Target::cpu));
  std::vector<Array> results;
  try {
    results = Ufunc(reference).call_outputs(args.data(), args.size());
  } catch (const CompileError& e) {
    throw DefinitionError(fmt::format("ufunc '{}': {} does not compile ({}); {}", ufunc.name,
                                      wide_call_text(ufunc, wide), e.what(), what_to_write(ufunc, wide)));
  }
  const Array flag = results.back();
  results.pop_back();
  const bool* wide_call = static_cast<const bool*>(flag.data());
  if (flag.size() > 0 && !wide_call[0]) {
    throw DefinitionError(fmt::format(
        "ufunc '{}': {} {}; {}", ufunc.name, wide_call_text(ufunc, wide),
        wide.results.size() == 1
            ? fmt::format("does not return {} (the function is not generic over its float type)",
                          dtype_name(wide.results[0]))
            : std::string("cannot write results of the wider types (its reference parameters are of "
                          "the narrow ones)"),
        what_to_write(ufunc, wide)));
  }
  return results;
}

}  // namespace jitvec::engine
