#include "codegen/source_parts.hpp"

#include <fmt/format.h>

#include "codegen/line_directive.hpp"
#include "codegen/portable_source.hpp"

namespace jitvec::codegen {

std::string c_type(DType t) { return std::string(dtype_c_type(t)); }

namespace {

std::string named_line_directive(int line, const std::string& file, const std::string& fallback) {
  return line_directive(line, file.empty() ? fallback : file);
}

std::string message_name(const std::string& path, const std::string& file,
                         const std::string& fallback) {
  return !path.empty() ? path : !file.empty() ? file : fallback;
}

}  // namespace

std::string user_code(const UfuncSource& ufunc, const std::vector<const HelperSource*>& helpers) {
  std::string out;
  for (const HelperSource* helper : helpers) {
    check_portable_source(helper->source,
                          message_name(helper->origin_path, helper->origin_file,
                                       "helper:" + helper->name),
                          helper->origin_line, "device function '" + helper->name + "'");
    out += named_line_directive(helper->origin_line, helper->origin_file, "helper:" + helper->name);
    out += helper->source;
    out += '\n';
  }
  check_portable_source(
      ufunc.source, message_name(ufunc.origin_path, ufunc.origin_file, "ufunc:" + ufunc.name),
      ufunc.origin_line, "ufunc '" + ufunc.name + "'");
  out += named_line_directive(ufunc.origin_line, ufunc.origin_file, "ufunc:" + ufunc.name);
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
  if (spec.loop.results.size() == 1) {
    const std::string result = c_type(spec.loop.results[0]);
    return fmt::format("{} {} jitvec_apply({}) {{\n  return static_cast<{}>({}({}));\n}}\n",
                       qualifiers, result, params, result, ufunc.name, args);
  }
  // Several results: the user's function writes them through reference parameters.
  for (std::size_t o = 0; o < spec.loop.results.size(); ++o) {
    params += fmt::format(", {}& r{}", c_type(spec.loop.results[o]), o);
    args += fmt::format(", r{}", o);
  }
  return fmt::format("{} void jitvec_apply({}) {{\n  {}({});\n}}\n", qualifiers, params,
                     ufunc.name, args);
}

}  // namespace jitvec::codegen
