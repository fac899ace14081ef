#include "engine/derivative.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <mutex>

#include "codegen/derivative_source.hpp"
#include "codegen/function_declaration.hpp"
#include "codegen/portable_source.hpp"
#include "codegen/reserved_names.hpp"
#include "engine/engine_impl.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::engine {
namespace {

bool is_float(DType t) { return t == DType::float32 || t == DType::float64; }

bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

const char* what_of(bool value) { return value ? "value_and_derivative" : "derivative"; }

// The declaration a derivative can instantiate, as advice: `template <typename T> T f(T x, ...)`
// with the ufunc's parameter names (or x0, x1, ...).
std::string template_advice(const std::string& function, const codegen::FunctionDeclaration& d,
                            std::size_t inputs) {
  std::string params;
  for (std::size_t k = 0; k < inputs; ++k) {
    const std::string name =
        k < d.parameters.size() && !d.parameters[k].name.empty() ? d.parameters[k].name : fmt::format("x{}", k);
    params += fmt::format("{}T {}", k ? ", " : "", name);
  }
  return fmt::format("template <typename T> __device__ T {}({})", function, params);
}

std::string input_list(const codegen::FunctionDeclaration& d, std::size_t inputs) {
  std::string out;
  for (std::size_t k = 0; k < inputs; ++k) {
    const std::string name = k < d.parameters.size() ? d.parameters[k].name : std::string();
    out += fmt::format("{}{}", k ? ", " : "", name.empty() ? fmt::format("#{}", k) : name);
  }
  return out;
}

class DerivativeMaker {
 public:
  DerivativeMaker(const detail::UfuncImpl& of, const DerivativeInput& wrt, bool value)
      : of_(of), wrt_(wrt), value_(value) {}

  // Checks 1 and 2 of the header; fills the spec but its name.
  codegen::DerivativeSpec spec() {
    if (of_.fusion) fail("it is a fused ufunc; take the derivative of the ufuncs it composes");
    if (of_.derivative) {
      fail("it is itself a derivative (jitvec takes first derivatives only); differentiate your "
           "own closed form of it, written as a template");
    }
    const Signature& first = of_.signatures.front();
    if (first.results.size() != 1) {
      fail(fmt::format("it has {} results; a derivative is taken of a ufunc of one result", first.results.size()));
    }
    const std::size_t inputs = first.args.size();
    const std::optional<codegen::FunctionDeclaration> found =
        codegen::find_function_declaration(of_.source.source, of_.name);
    if (!found) {
      fail(fmt::format("its source has no declaration of '{}' that jitvec can read; write it as `{}`",
                       of_.name, template_advice(of_.name, codegen::FunctionDeclaration{}, inputs)));
    }
    const codegen::FunctionDeclaration& d = *found;
    if (!d.is_template) {
      fail(fmt::format(
          "its function is not a template, so it cannot be instantiated with jitvec::dual<T> (the "
          "value and its derivative); write it as `{}` (and each device function it calls with "
          "those values as a template too)",
          template_advice(of_.name, d, inputs)));
    }
    if (d.parameters.size() != inputs) {
      fail(fmt::format("'{}' declares {} parameters but its signatures take {} inputs", of_.name,
                       d.parameters.size(), inputs));
    }
    const std::size_t wrt = input_index(d, inputs);
    const codegen::FunctionParameter& p = d.parameters[wrt];
    const std::string label = p.name.empty() ? fmt::format("#{}", wrt) : fmt::format("'{}'", p.name);
    if (!p.dependent) {
      fail(fmt::format("input {} is declared '{}', which cannot take jitvec::dual<T>; declare it with "
                       "the template's type: `{}`",
                       label, p.type, template_advice(of_.name, d, inputs)));
    }
    codegen::DerivativeSpec spec;
    spec.of = &of_.source;
    spec.wrt = wrt;
    spec.wrt_name = p.name.empty() ? fmt::format("input {}", wrt) : p.name;
    spec.value = value_;
    for (const codegen::FunctionParameter& q : d.parameters) spec.dual_inputs.push_back(q.dependent);
    for (const Signature& s : of_.signatures) {
      if (!is_float(s.args[wrt]) || !is_float(s.results[0])) continue;
      Signature loop;
      loop.args = s.args;
      loop.results = value_ ? std::vector<DType>{s.results[0], s.results[0]} : std::vector<DType>{s.results[0]};
      spec.loops.push_back(std::move(loop));
    }
    if (spec.loops.empty()) {
      std::vector<std::string> loops;
      for (const Signature& s : of_.signatures) loops.push_back(s.to_string());
      fail(fmt::format("none of its loops ({}) has input {} and the result in float32 or float64; "
                       "add a float32 or float64 signature",
                       fmt::join(loops, "; "), label));
    }
    input_label_ = p.name.empty() ? std::to_string(wrt) : p.name;
    return spec;
  }

  std::string default_name() const {
    return fmt::format("{}d_{}_d{}", value_ ? "value_and_" : "", of_.name, input_label_);
  }

  [[noreturn]] void fail(const std::string& why) const {
    const std::string input = wrt_.index ? fmt::format("input {}", *wrt_.index) : fmt::format("input '{}'", wrt_.name);
    throw DefinitionError(fmt::format("cannot take the {} of ufunc '{}' with respect to {}: {}",
                                      what_of(value_), of_.name, input, why));
  }

 private:
  std::size_t input_index(const codegen::FunctionDeclaration& d, std::size_t inputs) const {
    if (wrt_.index) {
      if (*wrt_.index < 0 || static_cast<std::size_t>(*wrt_.index) >= inputs) {
        fail(fmt::format("it takes {} input{} ({}), numbered from 0", inputs, inputs == 1 ? "" : "s",
                         input_list(d, inputs)));
      }
      return static_cast<std::size_t>(*wrt_.index);
    }
    for (std::size_t k = 0; k < inputs; ++k) {
      if (d.parameters[k].name == wrt_.name) return k;
    }
    fail(fmt::format("it has no input of that name; its inputs are {} (or give the input's index)",
                     input_list(d, inputs)));
  }

  const detail::UfuncImpl& of_;
  const DerivativeInput& wrt_;
  const bool value_;
  std::string input_label_;
};

}  // namespace

Ufunc derivative(Engine::Impl& engine, const std::shared_ptr<Engine::Impl>& keep_alive,
                 const std::string& ufunc, const DerivativeInput& wrt, bool value,
                 const DerivativeOptions& options) {
  const std::shared_ptr<detail::UfuncImpl> of = engine.find_ufunc(ufunc);
  DerivativeMaker maker(*of, wrt, value);
  codegen::DerivativeSpec spec = maker.spec();
  spec.name = options.name.empty() ? maker.default_name() : options.name;
  if (!is_identifier(spec.name)) {
    throw DefinitionError(fmt::format("derivative name '{}' is not a C++ identifier", spec.name));
  }
  if (auto reason = codegen::reserved_name_reason(spec.name)) {
    throw DefinitionError(fmt::format("derivative name {}", *reason));
  }
  // The user's source is checked here, so that its problems name its own file and lines.
  const codegen::UfuncSource& source = of->source;
  codegen::check_portable_source(
      source.source,
      !source.origin_path.empty() ? source.origin_path
                                  : !source.origin_file.empty() ? source.origin_file : "ufunc:" + source.name,
      source.origin_line, "ufunc '" + source.name + "'");
  const detail::DerivativeOrigin origin{of->name, spec.wrt, value};
  std::string hint = fmt::format(
      "note: '{}' is the {} of ufunc '{}' with respect to {}: its function runs with "
      "jitvec::dual<float> or jitvec::dual<double> for the inputs of its template's type, so every "
      "function it passes them to must take that type (a device function `float g(float)` must be "
      "a template: `template <typename T> T g(T x)`), it may not convert them to float or double, "
      "and the math functions it calls must be ones jitvec::dual has (README, \"Derivatives\")",
      spec.name, what_of(value), of->name, spec.wrt_name);
  auto impl = std::make_shared<detail::UfuncImpl>(
      engine, keep_alive, spec.name, spec.loops,
      codegen::UfuncSource{spec.name, codegen::derivative_source(spec), "", 1, "", std::move(hint)},
      options.target ? options.target : of->target);
  impl->derivative = origin;
  impl->fastmath = of->fastmath;
  std::unique_lock<std::shared_mutex> lock(engine.registry_mutex);
  if (auto it = engine.ufuncs.find(spec.name); it != engine.ufuncs.end()) {
    const auto& existing = it->second->derivative;
    if (existing && existing->of == origin.of && existing->wrt == origin.wrt && existing->value == origin.value &&
        it->second->source.source == impl->source.source) {
      return Ufunc(it->second);
    }
  }
  if (engine.helpers.count(spec.name) || engine.ufuncs.count(spec.name)) {
    throw DefinitionError(fmt::format("'{}' is already defined in this engine", spec.name));
  }
  engine.ufuncs.emplace(spec.name, impl);
  return Ufunc(impl);
}

}  // namespace jitvec::engine
