#include "codegen/source_parts.hpp"

#include <fmt/format.h>

namespace jitvec::codegen {

std::string c_type(DType t) { return std::string(dtype_c_type(t)); }

namespace {

std::string line_directive(int line, const std::string& file, const std::string& fallback) {
  std::string name = file.empty() ? fallback : file;
  std::string escaped;
  for (char c : name) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return fmt::format("#line {} \"{}\"\n", line, escaped);
}

}  // namespace

std::string user_code(const UfuncSource& ufunc, const std::vector<const HelperSource*>& helpers) {
  std::string out;
  for (const HelperSource* helper : helpers) {
    out += line_directive(helper->origin_line, helper->origin_file, "helper:" + helper->name);
    out += helper->source;
    out += '\n';
  }
  out += line_directive(ufunc.origin_line, ufunc.origin_file, "ufunc:" + ufunc.name);
  out += ufunc.source;
  out += '\n';
  return out;
}

std::string apply_function(const UfuncSource& ufunc, const LoopSpec& spec, const char* qualifiers) {
  std::string params;
  std::string args;
  for (std::size_t k = 0; k < spec.loop.args.size(); ++k) {
    if (k) {
      params += ", ";
      args += ", ";
    }
    params += fmt::format("{} a{}", c_type(spec.loop.args[k]), k);
    args += fmt::format("a{}", k);
  }
  return fmt::format("{} {} jitvec_apply({}) {{\n  return static_cast<{}>({}({}));\n}}\n",
                     qualifiers, c_type(spec.loop.result), params, c_type(spec.loop.result),
                     ufunc.name, args);
}

}  // namespace jitvec::codegen
