#include "registry.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "codegen/helper_closure.hpp"
#include "definitions/definition_file.hpp"
#include "py_scalar.hpp"

namespace nb = nanobind;

namespace jitvec_py {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, jitvec::codegen::HelperSource> helpers;
  std::map<std::string, PyUfunc> ufuncs;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: ufuncs may outlive module teardown
  return *r;
}

jitvec::VectorizeOptions options_of(std::optional<jitvec::Target> target, const std::string& file,
                                    int line) {
  jitvec::VectorizeOptions o;
  o.target = target;
  o.origin_file = file;
  o.origin_line = line;
  return o;
}

std::string target_text(const std::optional<jitvec::Target>& t) {
  return t ? std::string(jitvec::target_name(*t)) : std::string("the default");
}

}  // namespace

void define_helper(const HelperDef& def) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.helpers.find(def.name);
  if (it != r.helpers.end()) {
    const auto& h = it->second;
    if (h.source == def.source && h.origin_file == def.origin_file && h.origin_line == def.origin_line) return;
    throw jitvec::DefinitionError(fmt::format(
        "device function '{}' is already defined in this process with a different source or origin",
        def.name));
  }
  jitvec::Engine::global().define_device_function(def.name, def.source,
                                                  options_of(std::nullopt, def.origin_file, def.origin_line));
  r.helpers.emplace(def.name, jitvec::codegen::HelperSource{def.name, def.source, def.origin_file, def.origin_line});
}

PyUfunc define_ufunc(const UfuncDef& def) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.ufuncs.find(def.name);
  if (it != r.ufuncs.end()) {
    if (it->second.definition == def) return it->second;
    const UfuncDef& old = it->second.definition;
    throw jitvec::DefinitionError(fmt::format(
        "ufunc '{}' is already defined in this process with a different {}", def.name,
        old.signatures != def.signatures ? "list of signatures"
        : old.source != def.source       ? "source"
        : old.target != def.target       ? fmt::format("target ({} before, {} now)", target_text(old.target), target_text(def.target))
        : old.identity != def.identity   ? "identity"
                                         : "origin (file or line)"));
  }
  jitvec::VectorizeOptions options = options_of(def.target, def.origin_file, def.origin_line);
  options.identity = def.identity;
  jitvec::Ufunc u = jitvec::Engine::global().vectorize(def.name, def.signatures, def.source, options);
  PyUfunc py{u, def};
  r.ufuncs.emplace(def.name, py);
  return py;
}

PyUfunc find_ufunc(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.ufuncs.find(name);
  if (it == r.ufuncs.end()) {
    throw jitvec::DefinitionError(fmt::format("no ufunc named '{}' was defined from Python", name));
  }
  return it->second;
}

nb::dict load_definitions(const std::string& path) {
  const jitvec::definitions::DefinitionSet set = jitvec::definitions::parse_definition_file(path);
  auto located = [](const jitvec::definitions::SourceOrigin& origin, const std::string& entry,
                    const auto& action) {
    try {
      return action();
    } catch (const jitvec::DefinitionError& e) {
      throw jitvec::DefinitionError(fmt::format("{}:{}: {}: {}", origin.file, origin.line, entry, e.what()));
    } catch (const jitvec::SignatureError& e) {
      throw jitvec::DefinitionError(fmt::format("{}:{}: {}: {}", origin.file, origin.line, entry, e.what()));
    }
  };
  for (const auto& h : set.helpers) {
    located(h.origin, "device_functions." + h.name, [&] {
      define_helper(HelperDef{h.name, h.source, h.origin.file, h.origin.line});
      return 0;
    });
  }
  nb::dict defined;
  for (const auto& u : set.ufuncs) {
    PyUfunc py = located(u.origin, "ufuncs." + u.name, [&] {
      return define_ufunc(UfuncDef{u.name, u.signatures, u.source, std::nullopt, u.origin.file, u.origin.line, u.identity});
    });
    defined[nb::str(u.name.c_str())] = nb::cast(py);
  }
  return defined;
}

nb::tuple ufunc_state(const PyUfunc& u) {
  const UfuncDef& d = u.definition;
  nb::list helpers;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const jitvec::codegen::HelperSource* h : jitvec::codegen::helpers_used(d.source, r.helpers)) {
      helpers.append(nb::make_tuple(h->name, h->source, h->origin_file, h->origin_line));
    }
  }
  nb::object target = d.target ? nb::object(nb::str(jitvec::target_name(*d.target).data())) : nb::none();
  nb::object identity = d.identity ? python_number(*d.identity) : nb::none();  // exact: an int stays an int
  return nb::make_tuple(d.name, d.signatures, d.source, target, d.origin_file, d.origin_line, helpers, identity);
}

PyUfunc ufunc_from_state(nb::handle state) {
  nb::tuple s = nb::cast<nb::tuple>(state);
  if (nb::len(s) != 7 && nb::len(s) != 8) {
    throw jitvec::DefinitionError(fmt::format("a pickled jitvec ufunc has 8 fields (7 before identity), not {}", nb::len(s)));
  }
  for (nb::handle h : nb::cast<nb::list>(s[6])) {
    nb::tuple t = nb::cast<nb::tuple>(h);
    define_helper(HelperDef{nb::cast<std::string>(t[0]), nb::cast<std::string>(t[1]),
                            nb::cast<std::string>(t[2]), nb::cast<int>(t[3])});
  }
  UfuncDef d;
  d.name = nb::cast<std::string>(s[0]);
  d.signatures = nb::cast<std::vector<std::string>>(s[1]);
  d.source = nb::cast<std::string>(s[2]);
  if (!s[3].is_none()) d.target = jitvec::parse_target(nb::cast<std::string>(s[3]));
  d.origin_file = nb::cast<std::string>(s[4]);
  d.origin_line = nb::cast<int>(s[5]);
  if (nb::len(s) == 8 && !s[7].is_none()) d.identity = scalar_of(s[7].ptr(), "identity");  // older states: a float
  return define_ufunc(d);
}

}  // namespace jitvec_py
