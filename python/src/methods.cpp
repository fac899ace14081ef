#include "methods.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "call.hpp"
#include "py_array.hpp"

namespace nb = nanobind;

namespace jitvec_py {
namespace {

// How a method takes one of its Python operands.
enum class Role {
  input,     // an array or a weak scalar
  array,     // an array (a scalar becomes a 0-d array)
  writable,  // an array written in place (at()'s operand)
  out,       // out=
};

struct Operand {
  nb::handle obj;
  Role role;
};

// A method call's operands, imported as a ufunc call's are (no copies, the same stream rule),
// in `args` in the order given (out= as jitvec::out). `arrays[i]` is operand i's Array (unset
// for a scalar); `first_device` or else the first array decides the results' kind.
struct MethodCall {
  std::vector<nb::object> keep;
  Buffers buffers;
  ArgList args;
  std::vector<Slot> slots;
  std::vector<std::optional<jitvec::Array>> arrays;
  std::uintptr_t stream = 0;
  const TypeInfo* stream_library = nullptr;
  const Slot* decider = nullptr;

  bool on_library_stream() const {
    return stream_library && decider && decider->info && decider->info->lib == stream_library->lib;
  }
  nb::object wrap(jitvec::Array&& result) const {
    return wrap_result(std::move(result), stream, decider, on_library_stream());
  }
};

void import_operands(MethodCall& c, const std::vector<Operand>& operands, nb::handle stream_obj) {
  c.slots.reserve(operands.size());
  c.arrays.reserve(operands.size());  // args refer to these Arrays: no reallocation after
  const Slot* first_device = nullptr;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const Operand& op = operands[i];
    const int position = op.role == Role::out ? 0 : static_cast<int>(i + 1);
    Slot s = classify(op.obj.ptr(), position, c.keep);
    if (s.kind == Kind::scalar && op.role != Role::input) {
      if (op.role != Role::array) {
        throw jitvec::ArgumentError(fmt::format("{}: must be an array, not a scalar", where(s)));
      }
      c.keep.push_back(nb::module_::import_("numpy").attr("asarray")(op.obj));
      s = classify(c.keep.back().ptr(), position, c.keep);
    }
    c.slots.push_back(s);
  }
  for (const Slot& s : c.slots) {
    if (s.kind == Kind::scalar) continue;
    if (!c.decider) c.decider = &s;
    if (s.device && !first_device) first_device = &s;
  }
  if (first_device) c.decider = first_device;
  c.stream = call_stream(stream_obj.is_none() ? nb::handle() : stream_obj, first_device, c.stream_library);
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const Slot& s = c.slots[i];
    if (s.kind == Kind::scalar) {
      c.arrays.emplace_back();
      push_scalar(c.args, s.obj, s.position);
      continue;
    }
    const bool writable = operands[i].role == Role::out || operands[i].role == Role::writable;
    c.arrays.emplace_back(import_array(s, c.stream, c.stream_library, writable, c.buffers, c.keep));
    if (operands[i].role == Role::out) {
      c.args.emplace_back(jitvec::out(*c.arrays.back()));
    } else {
      c.args.emplace_back(*c.arrays.back());
    }
  }
  c.args.emplace_back(jitvec::on(reinterpret_cast<CUstream_st*>(c.stream)));
}

std::optional<jitvec::Target> target_of(nb::handle target) {
  if (target.is_none()) return std::nullopt;
  const std::string name = nb::cast<std::string>(nb::str(target));
  const std::optional<jitvec::Target> t = jitvec::parse_target(name);
  if (!t) throw jitvec::TargetError(fmt::format("unknown target '{}': jitvec has cuda, cpu and parallel", name));
  return t;
}

// out= as a ufunc call takes it: None, one array, or a tuple of one array per output.
std::vector<nb::handle> outs_of(nb::handle out) {
  std::vector<nb::handle> outs;
  if (out.is_none()) return outs;
  if (PyTuple_Check(out.ptr()) || PyList_Check(out.ptr())) {
    for (nb::handle h : out) outs.push_back(h);
  } else {
    outs.push_back(out);
  }
  return outs;
}

// The results of a call of `nout` outputs: out='s own objects (`outs`), or the new arrays.
nb::object results_of(MethodCall& c, std::vector<jitvec::Array>&& results, const std::vector<nb::handle>& outs,
                      int nout) {
  if (nout == 1) return outs.empty() ? c.wrap(std::move(results[0])) : nb::borrow(outs[0]);
  nb::list items;
  for (std::size_t j = 0; j < results.size(); ++j) {
    items.append(outs.empty() ? c.wrap(std::move(results[j])) : nb::borrow(outs[j]));
  }
  return nb::tuple(items);
}

}  // namespace

nb::object outer_ufunc(const PyUfunc& self, nb::handle a, nb::handle b, nb::handle out, nb::handle dtype,
                       nb::handle casting, nb::handle stream, nb::handle target) {
  MethodCall c;
  std::vector<Operand> operands{{a, Role::input}, {b, Role::input}};
  const std::vector<nb::handle> outs = outs_of(out);
  for (nb::handle o : outs) operands.push_back({o, Role::out});
  import_operands(c, operands, stream);
  if (const auto t = target_of(target)) c.args.emplace_back(jitvec::target(*t));
  if (!dtype.is_none() || !casting.is_none()) {
    const std::optional<jitvec::Casting> rule =
        casting.is_none() ? std::optional<jitvec::Casting>(jitvec::Casting::same_kind) : casting_of(casting.ptr());
    if (!rule) throw jitvec::ArgumentError("outer(): casting= takes 'no', 'equiv', 'safe' or 'same_kind'");
    choose_loop(self, c.args, dtype.is_none() ? nb::handle() : dtype, *rule);
  }
  if (self.ufunc.nout() == 1) {
    std::optional<jitvec::Array> result;
    {
      nb::gil_scoped_release release;
      result = self.ufunc.outer_call(c.args.data(), c.args.size());
    }
    std::vector<jitvec::Array> results;
    results.push_back(std::move(*result));
    return results_of(c, std::move(results), outs, 1);
  }
  throw jitvec::ArgumentError(fmt::format("ufunc '{}' has {} outputs: outer() is for ufuncs of one output",
                                          self.ufunc.name(), self.ufunc.nout()));
}

nb::object accumulate_ufunc(const PyUfunc& self, nb::handle x, int axis, nb::handle dtype, nb::handle out,
                            nb::handle stream, nb::handle target) {
  MethodCall c;
  std::vector<Operand> operands{{x, Role::array}};
  const std::vector<nb::handle> outs = outs_of(out);
  if (outs.size() > 1) throw jitvec::ArgumentError("accumulate(): out= takes one array");
  for (nb::handle o : outs) operands.push_back({o, Role::out});
  import_operands(c, operands, stream);
  jitvec::AccumulateOptions options;
  if (!dtype.is_none()) options.dtype = dtype_of_object(dtype, "accumulate(): dtype=");
  if (!outs.empty()) options.out = *c.arrays[1];
  options.stream = reinterpret_cast<CUstream_st*>(c.stream);
  options.target = target_of(target);
  std::optional<jitvec::Array> result;
  {
    nb::gil_scoped_release release;
    result = self.ufunc.accumulate(*c.arrays[0], axis, options);
  }
  if (!outs.empty()) return nb::borrow(outs[0]);
  return c.wrap(std::move(*result));
}

void at_ufunc(const PyUfunc& self, nb::handle a, nb::handle indices, nb::handle b, nb::handle stream,
              nb::handle target) {
  MethodCall c;
  import_operands(c, {{a, Role::writable}, {indices, Role::array}, {b, Role::input}}, stream);
  if (const auto t = target_of(target)) c.args.emplace_back(jitvec::target(*t));
  nb::gil_scoped_release release;
  self.ufunc.at_call(c.args.data(), c.args.size());
}

nb::object gufunc_call(const PyGufunc& self, nb::args args, nb::kwargs kwargs) {
  nb::handle out = nb::none(), stream = nb::none(), target = nb::none();
  for (auto [key, value] : kwargs) {
    const std::string k = nb::cast<std::string>(key);
    if (k == "out") {
      out = value;
    } else if (k == "stream") {
      stream = value;
    } else if (k == "target") {
      target = value;
    } else {
      throw nb::type_error(fmt::format("gufunc '{}' got an unexpected keyword argument '{}' (it takes out=, "
                                       "stream=, target=)",
                                       self.gufunc.name(), k).c_str());
    }
  }
  MethodCall c;
  std::vector<Operand> operands;
  for (nb::handle h : args) operands.push_back({h, Role::input});
  const std::vector<nb::handle> outs = outs_of(out);
  for (nb::handle o : outs) operands.push_back({o, Role::out});
  import_operands(c, operands, stream);
  if (const auto t = target_of(target)) c.args.emplace_back(jitvec::target(*t));
  std::vector<jitvec::Array> results;
  {
    nb::gil_scoped_release release;
    results = self.gufunc.call(c.args.data(), c.args.size());
  }
  return results_of(c, std::move(results), outs, self.gufunc.nout());
}

}  // namespace jitvec_py
