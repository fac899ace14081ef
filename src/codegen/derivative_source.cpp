#include "codegen/derivative_source.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "codegen/dual_number.hpp"
#include "codegen/line_directive.hpp"

namespace jitvec::codegen {
namespace {

bool is_float(DType t) { return t == DType::float32 || t == DType::float64; }

// The user function's call for `loop`: dual arguments where the spec says so.
std::string call(const DerivativeSpec& spec, const Signature& loop) {
  std::string args;
  for (std::size_t k = 0; k < loop.args.size(); ++k) {
    if (k) args += ", ";
    if (!spec.dual_inputs[k] || !is_float(loop.args[k])) {
      args += fmt::format("a{}", k);
      continue;
    }
    const std::string type = c_type(loop.args[k]);
    args += k == spec.wrt ? fmt::format("::jitvec::dual<{0}>(a{1}, {0}(1))", type, k)
                          : fmt::format("::jitvec::dual<{}>(a{})", type, k);
  }
  return fmt::format("{}({})", spec.of->name, args);
}

std::string loop_function(const DerivativeSpec& spec, const Signature& loop) {
  std::string params;
  for (std::size_t k = 0; k < loop.args.size(); ++k) {
    params += fmt::format("{}{} a{}", k ? ", " : "", c_type(loop.args[k]), k);
  }
  if (!spec.value) {
    return fmt::format(
        "__device__ __forceinline__ {} {}({}) {{\n  return ::jitvec::dual_tangent({});\n}}\n",
        c_type(loop.results[0]), spec.name, params, call(spec, loop));
  }
  return fmt::format(
      "__device__ __forceinline__ void {}({}, {}& r0, {}& r1) {{\n"
      "  const auto r = {};\n"
      "  r0 = ::jitvec::dual_value(r);\n"
      "  r1 = ::jitvec::dual_tangent(r);\n"
      "}}\n",
      spec.name, params, c_type(loop.results[0]), c_type(loop.results[1]), call(spec, loop));
}

}  // namespace

std::string derivative_source(const DerivativeSpec& spec) {
  const UfuncSource& of = *spec.of;
  std::string out = fmt::format("// jitvec derivative: {} = {}d {} / d {} (input {}), forward mode\n",
                                spec.name, spec.value ? "the value and " : "", of.name,
                                spec.wrt_name, spec.wrt);
  out += dual_number_source();
  out += line_directive(of.origin_line, of.origin_file.empty() ? "ufunc:" + of.name : of.origin_file);
  out += of.source;
  out += '\n';
  // The generated functions, under a #line naming the derivative at the line they are on.
  const int line = static_cast<int>(std::count(out.begin(), out.end(), '\n')) + 2;
  out += line_directive(line, "ufunc:" + spec.name);
  for (const Signature& loop : spec.loops) out += loop_function(spec, loop);
  return out;
}

}  // namespace jitvec::codegen
