#include "registry.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>
#include <algorithm>
#include <cctype>
#include <set>

#include "codegen/helper_closure.hpp"
#include "definitions/definition_file.hpp"
#include "py_scalar.hpp"

namespace nb = nanobind;

namespace jitvec_py {
namespace {

struct Registry {
  std::mutex mutex;
  /// The generation new definitions go into: Engine::global() until something is redefined.
  jitvec::Engine* engine = &jitvec::Engine::global();
  /// Generations made by redefinitions (the global engine is the first, not held here).
  std::vector<std::unique_ptr<jitvec::Engine>> generations;
  std::optional<int> threads;  // set_num_threads, applied to generations made later too
  std::map<std::string, HelperDef> helper_defs;
  std::map<std::string, jitvec::codegen::HelperSource> helpers;  // for helpers_used
  std::map<std::string, PyUfunc> ufuncs;  // ufuncs, fusions and derivatives
  std::map<std::string, PyGufunc> gufuncs;
  /// Fusions and derivatives in the order they were defined (each is made from earlier ones).
  std::vector<std::string> derived_order;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: ufuncs may outlive module teardown
  return *r;
}

std::vector<jitvec::Engine*> all_engines(Registry& r) {
  std::vector<jitvec::Engine*> engines{&jitvec::Engine::global()};
  for (auto& e : r.generations) engines.push_back(e.get());
  return engines;
}

jitvec::VectorizeOptions options_of(std::optional<jitvec::Target> target, const std::string& file,
                                    int line) {
  jitvec::VectorizeOptions o;
  o.target = target;
  o.origin_file = file;
  o.origin_line = line;
  return o;
}

// Definitions made in `engine` (the registry's mutex held).
void make_helper(jitvec::Engine& engine, const HelperDef& def) {
  engine.define_device_function(def.name, def.source, options_of(std::nullopt, def.origin_file, def.origin_line));
}

jitvec::Ufunc make_ufunc(jitvec::Engine& engine, const UfuncDef& def) {
  jitvec::VectorizeOptions options = options_of(def.target, def.origin_file, def.origin_line);
  if (!def.fusion.empty()) return engine.fuse(def.name, def.fusion, options);
  if (!def.derivative_of.empty()) {
    const jitvec::DerivativeInput wrt = def.wrt_index ? jitvec::DerivativeInput(*def.wrt_index)
                                                      : jitvec::DerivativeInput(def.wrt_name);
    const jitvec::DerivativeOptions derivative{def.name, def.target, def.origin_file, def.origin_line};
    return def.derivative_value ? engine.value_and_derivative(def.derivative_of, wrt, derivative)
                                : engine.derivative(def.derivative_of, wrt, derivative);
  }
  options.identity = def.identity;
  options.fastmath = def.fastmath;
  return engine.vectorize(def.name, def.signatures, def.source, options);
}

jitvec::Gufunc make_gufunc(jitvec::Engine& engine, const GufuncDef& def) {
  return engine.guvectorize(def.name, def.signatures, def.layout, def.source,
                            options_of(def.target, def.origin_file, def.origin_line));
}

// Moves the registry to a new generation: every current definition but `replaced` (a helper,
// ufunc, fusion or gufunc name) re-made in a new engine, then `add_new(engine, ufuncs,
// gufuncs)`, which defines the replacement there, then the fusions and derivatives in
// definition order (what they are made from exists by then; one that can no longer be made is
// dropped, its old handles keep working). The registry changes only when all of it succeeded.
template <class AddNew>
void switch_generation(Registry& r, const std::string& replaced, AddNew&& add_new) {
  auto engine = std::make_unique<jitvec::Engine>();
  if (r.threads) engine->set_num_threads(*r.threads);
  std::map<std::string, PyUfunc> ufuncs = r.ufuncs;
  std::map<std::string, PyGufunc> gufuncs = r.gufuncs;
  ufuncs.erase(replaced);
  gufuncs.erase(replaced);
  for (const auto& [name, def] : r.helper_defs) {
    if (name != replaced) make_helper(*engine, def);
  }
  for (auto& [name, py] : ufuncs) {
    if (!py.definition.derived()) py.ufunc = make_ufunc(*engine, py.definition);
  }
  for (auto& [name, py] : gufuncs) py.gufunc = make_gufunc(*engine, py.definition);
  add_new(*engine, ufuncs, gufuncs);
  for (const std::string& name : r.derived_order) {
    auto it = ufuncs.find(name);
    if (name == replaced || it == ufuncs.end()) continue;
    try {
      it->second.ufunc = make_ufunc(*engine, it->second.definition);
    } catch (const jitvec::Error&) {
      ufuncs.erase(it);
    }
  }
  r.ufuncs.swap(ufuncs);
  r.gufuncs.swap(gufuncs);
  r.engine = engine.get();
  r.generations.push_back(std::move(engine));
}

// Whether `name` is taken by another kind of definition than `kind`.
void check_kind(Registry& r, const std::string& name, const char* kind) {
  const char* other = nullptr;
  if (r.helper_defs.count(name) && std::string_view(kind) != "device function") other = "device function";
  if (r.ufuncs.count(name) && std::string_view(kind) != "ufunc") other = "ufunc";
  if (r.gufuncs.count(name) && std::string_view(kind) != "gufunc") other = "gufunc";
  if (other) {
    throw jitvec::DefinitionError(fmt::format("'{}' is already defined in this process as a {}; a {} needs another name",
                                              name, other, kind));
  }
}

}  // namespace

void define_helper(const HelperDef& def) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  check_kind(r, def.name, "device function");
  auto it = r.helper_defs.find(def.name);
  if (it == r.helper_defs.end()) {
    make_helper(*r.engine, def);
  } else if (it->second == def) {
    return;
  } else {
    // The ufuncs re-made in the new generation find the new helper there when they compile.
    switch_generation(r, def.name, [&](jitvec::Engine& engine, auto&, auto&) { make_helper(engine, def); });
  }
  r.helper_defs[def.name] = def;
  r.helpers[def.name] = jitvec::codegen::HelperSource{def.name, def.source, def.origin_file, def.origin_line, ""};
}

PyUfunc define_ufunc(const UfuncDef& def, const PythonOrigin& origin) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  check_kind(r, def.name, "ufunc");
  auto it = r.ufuncs.find(def.name);
  if (it != r.ufuncs.end() && it->second.definition == def) return it->second;
  if (it == r.ufuncs.end()) {
    r.ufuncs.emplace(def.name, PyUfunc{make_ufunc(*r.engine, def), def, origin});
  } else {
    switch_generation(r, def.name, [&](jitvec::Engine& engine, std::map<std::string, PyUfunc>& ufuncs, auto&) {
      ufuncs.emplace(def.name, PyUfunc{make_ufunc(engine, def), def, origin});
    });
  }
  if (def.derived()) {
    r.derived_order.erase(std::remove(r.derived_order.begin(), r.derived_order.end(), def.name), r.derived_order.end());
    r.derived_order.push_back(def.name);
  }
  return r.ufuncs.at(def.name);
}

PyGufunc define_gufunc(const GufuncDef& def, const PythonOrigin& origin) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  check_kind(r, def.name, "gufunc");
  auto it = r.gufuncs.find(def.name);
  if (it != r.gufuncs.end() && it->second.definition == def) return it->second;
  if (it == r.gufuncs.end()) {
    r.gufuncs.emplace(def.name, PyGufunc{make_gufunc(*r.engine, def), def, origin});
  } else {
    switch_generation(r, def.name, [&](jitvec::Engine& engine, auto&, std::map<std::string, PyGufunc>& gufuncs) {
      gufuncs.emplace(def.name, PyGufunc{make_gufunc(engine, def), def, origin});
    });
  }
  return r.gufuncs.at(def.name);
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

std::string derivative_name(const std::string& of, const jitvec::DerivativeInput& wrt, bool value,
                            std::optional<jitvec::Target> target) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.ufuncs.count(of)) {
    throw jitvec::DefinitionError(fmt::format("no ufunc named '{}' was defined from Python", of));
  }
  // Made in the current generation under the name it would be given, which define_ufunc then
  // finds there (the same request again returns it).
  jitvec::DerivativeOptions options;
  options.target = target;
  return (value ? r.engine->value_and_derivative(of, wrt, options) : r.engine->derivative(of, wrt, options)).name();
}

PyGufunc find_gufunc(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.gufuncs.find(name);
  if (it == r.gufuncs.end()) {
    throw jitvec::DefinitionError(fmt::format("no gufunc named '{}' was defined from Python", name));
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
  nb::dict defined;
  for (const auto& h : set.helpers) {
    HelperDef def{h.name, h.source, h.origin.file, h.origin.line};
    located(h.origin, "device_functions." + h.name, [&] {
      define_helper(def);
      return 0;
    });
    defined[nb::str(h.name.c_str())] = nb::cast(PyDeviceFunction{def});
  }
  for (const auto& u : set.ufuncs) {
    UfuncDef def;
    def.name = u.name;
    def.signatures = u.signatures;
    def.source = u.source;
    def.origin_file = u.origin.file;
    def.origin_line = u.origin.line;
    def.identity = u.identity;
    def.fastmath = u.fastmath;
    PyUfunc py = located(u.origin, "ufuncs." + u.name, [&] { return define_ufunc(def); });
    defined[nb::str(u.name.c_str())] = nb::cast(py);
  }
  for (const auto& gu : set.gufuncs) {
    GufuncDef def{gu.name, gu.signatures, gu.layout, gu.source, std::nullopt, gu.origin.file, gu.origin.line};
    PyGufunc py = located(gu.origin, "gufuncs." + gu.name, [&] { return define_gufunc(def); });
    defined[nb::str(gu.name.c_str())] = nb::cast(py);
  }
  for (const auto& f : set.fusions) {  // after the ufuncs, which they compose
    UfuncDef def;
    def.name = f.name;
    def.fusion = f.expression;
    def.origin_file = f.origin.file;
    def.origin_line = f.origin.line;
    PyUfunc py = located(f.origin, "fusions." + f.name, [&] { return define_ufunc(def); });
    defined[nb::str(f.name.c_str())] = nb::cast(py);
  }
  for (const auto& d : set.derivatives) {  // after the ufuncs, which they differentiate
    UfuncDef def;
    def.name = d.name;
    def.derivative_of = d.of;
    def.wrt_index = d.wrt_index;
    def.wrt_name = d.wrt_name;
    def.derivative_value = d.value;
    def.origin_file = d.origin.file;
    def.origin_line = d.origin.line;
    PyUfunc py = located(d.origin, "derivatives." + d.name, [&] { return define_ufunc(def); });
    defined[nb::str(d.name.c_str())] = nb::cast(py);
  }
  return defined;
}

PythonOrigin python_origin_of(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (auto it = r.ufuncs.find(name); it != r.ufuncs.end()) return it->second.python_origin;
  if (auto it = r.gufuncs.find(name); it != r.gufuncs.end()) return it->second.python_origin;
  return {};
}

jitvec::EngineStats engine_stats() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  jitvec::EngineStats sum;
  for (jitvec::Engine* e : all_engines(r)) {
    const jitvec::EngineStats s = e->stats();
    sum.calls += s.calls;
    sum.memory_hits += s.memory_hits;
    sum.disk_hits += s.disk_hits;
    sum.disk_misses += s.disk_misses;
    sum.compiles += s.compiles;
    sum.compile_seconds += s.compile_seconds;
    sum.disk_read_seconds += s.disk_read_seconds;
    sum.load_seconds += s.load_seconds;
  }
  return sum;
}

void set_num_threads(int threads) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (jitvec::Engine* e : all_engines(r)) e->set_num_threads(threads);
  r.threads = threads;
}

int num_threads() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.engine->num_threads();
}

int max_threads() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.engine->max_threads();
}

namespace {

nb::list helpers_of(const std::string& source) {
  nb::list helpers;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const jitvec::codegen::HelperSource* h : jitvec::codegen::helpers_used(source, r.helpers)) {
    helpers.append(nb::make_tuple(h->name, h->source, h->origin_file, h->origin_line));
  }
  return helpers;
}

void define_helpers_of(nb::handle list) {
  for (nb::handle h : nb::cast<nb::list>(list)) {
    nb::tuple t = nb::cast<nb::tuple>(h);
    define_helper(HelperDef{nb::cast<std::string>(t[0]), nb::cast<std::string>(t[1]),
                            nb::cast<std::string>(t[2]), nb::cast<int>(t[3])});
  }
}

// The names a fusion expression calls: identifiers followed by '('.
std::vector<std::string> called_names(const std::string& expression) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < expression.size();) {
    const char c = expression[i];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < expression.size() && (std::isalnum(static_cast<unsigned char>(expression[j])) || expression[j] == '_')) ++j;
      std::size_t k = j;
      while (k < expression.size() && std::isspace(static_cast<unsigned char>(expression[k]))) ++k;
      if (k < expression.size() && expression[k] == '(') names.push_back(expression.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  return names;
}

}  // namespace

nb::tuple ufunc_state(const PyUfunc& u) {
  const UfuncDef& d = u.definition;
  nb::list stages;
  if (!d.fusion.empty()) {
    std::set<std::string> seen;
    for (const std::string& name : called_names(d.fusion)) {
      if (!seen.insert(name).second) continue;
      stages.append(ufunc_state(find_ufunc(name)));
    }
  }
  if (!d.derivative_of.empty()) stages.append(ufunc_state(find_ufunc(d.derivative_of)));
  nb::object wrt = d.wrt_index ? nb::object(nb::int_(*d.wrt_index)) : nb::object(nb::str(d.wrt_name.c_str()));
  nb::object target = d.target ? nb::object(nb::str(jitvec::target_name(*d.target).data())) : nb::none();
  nb::object identity = d.identity ? python_number(*d.identity) : nb::none();  // exact: an int stays an int
  return nb::make_tuple(d.name, d.signatures, d.source, target, d.origin_file, d.origin_line,
                        d.derived() ? nb::list() : helpers_of(d.source), identity, d.fastmath, d.fusion, stages,
                        d.derivative_of, wrt, d.derivative_value);
}

PyUfunc ufunc_from_state(nb::handle state) {
  nb::tuple s = nb::cast<nb::tuple>(state);
  const std::size_t n = nb::len(s);
  if (n != 7 && n != 8 && n != 11 && n != 14) {
    throw jitvec::DefinitionError(
        fmt::format("a pickled jitvec ufunc has 14 fields (7, 8 or 11 before derivatives), not {}", n));
  }
  define_helpers_of(s[6]);
  UfuncDef d;
  d.name = nb::cast<std::string>(s[0]);
  d.signatures = nb::cast<std::vector<std::string>>(s[1]);
  d.source = nb::cast<std::string>(s[2]);
  if (!s[3].is_none()) d.target = jitvec::parse_target(nb::cast<std::string>(s[3]));
  d.origin_file = nb::cast<std::string>(s[4]);
  d.origin_line = nb::cast<int>(s[5]);
  if (n >= 8 && !s[7].is_none()) d.identity = scalar_of(s[7].ptr(), "identity");  // older states: a float
  if (n >= 11) {
    d.fastmath = nb::cast<bool>(s[8]);
    d.fusion = nb::cast<std::string>(s[9]);
    for (nb::handle stage : nb::cast<nb::list>(s[10])) ufunc_from_state(stage);
  }
  if (n == 14) {
    d.derivative_of = nb::cast<std::string>(s[11]);
    if (nb::isinstance<nb::int_>(s[12])) {
      d.wrt_index = nb::cast<int>(s[12]);
    } else {
      d.wrt_name = nb::cast<std::string>(s[12]);
    }
    d.derivative_value = nb::cast<bool>(s[13]);
  }
  return define_ufunc(d);
}

nb::tuple gufunc_state(const PyGufunc& g) {
  const GufuncDef& d = g.definition;
  nb::object target = d.target ? nb::object(nb::str(jitvec::target_name(*d.target).data())) : nb::none();
  return nb::make_tuple(d.name, d.signatures, d.layout, d.source, target, d.origin_file, d.origin_line,
                        helpers_of(d.source));
}

PyGufunc gufunc_from_state(nb::handle state) {
  nb::tuple s = nb::cast<nb::tuple>(state);
  if (nb::len(s) != 8) {
    throw jitvec::DefinitionError(fmt::format("a pickled jitvec gufunc has 8 fields, not {}", nb::len(s)));
  }
  define_helpers_of(s[7]);
  GufuncDef d;
  d.name = nb::cast<std::string>(s[0]);
  d.signatures = nb::cast<std::vector<std::string>>(s[1]);
  d.layout = nb::cast<std::string>(s[2]);
  d.source = nb::cast<std::string>(s[3]);
  if (!s[4].is_none()) d.target = jitvec::parse_target(nb::cast<std::string>(s[4]));
  d.origin_file = nb::cast<std::string>(s[5]);
  d.origin_line = nb::cast<int>(s[6]);
  return define_gufunc(d);
}

}  // namespace jitvec_py
