// src/engine/accuracy.cpp: Ufunc::accuracy, the script of an accuracy report
// (jitvec/accuracy.hpp): per float loop, the ranges (accuracy_ranges), the points
// (accuracy_sampling), the loop's results on the chosen target, the wide reference on the cpu
// target (accuracy_reference), and per output the comparison (accuracy_compare).
#include "jitvec/accuracy.hpp"

#include <fmt/format.h>

#include "codegen/parameter_names.hpp"
#include "core/float_ulps.hpp"
#include "engine/accuracy_compare.hpp"
#include "engine/accuracy_ranges.hpp"
#include "engine/accuracy_reference.hpp"
#include "engine/accuracy_sampling.hpp"
#include "engine/engine_impl.hpp"
#include "jitvec/device.hpp"

namespace jitvec {
namespace {

bool all_real_floats(const std::vector<DType>& types) {
  for (DType t : types) {
    if (!detail::is_real_float(t)) return false;
  }
  return true;
}

void check_options(const detail::UfuncImpl& ufunc, const AccuracyOptions& options) {
  if (ufunc.fusion) {
    throw ArgumentError(fmt::format(
        "ufunc '{}' is a fusion: it has no source of its own to measure; measure the ufuncs it "
        "composes",
        ufunc.name));
  }
  if (options.signature && *options.signature >= ufunc.signatures.size()) {
    throw ArgumentError(fmt::format("accuracy: ufunc '{}' has {} signatures; there is no signature {}",
                                    ufunc.name, ufunc.signatures.size(), *options.signature));
  }
  if (options.points < 16) {
    throw ArgumentError(fmt::format("accuracy: {} points are too few to measure anything; give at least 16",
                                    options.points));
  }
  if (options.bins == 0) throw ArgumentError("accuracy: the error curves need at least one bin");
  if (options.target == Target::cuda && cuda_device_count() == 0) {
    throw TargetError(fmt::format(
        "accuracy of ufunc '{}' on the cuda target: no usable GPU here (jitvec info says why); "
        "measure the cpu target instead",
        ufunc.name));
  }
}

// The loop's results: one host Array per output.
std::vector<Array> run_loop(const std::shared_ptr<detail::UfuncImpl>& impl, std::size_t index,
                            Target where, const std::vector<Array>& inputs) {
  std::vector<Array> operands;
  for (const Array& a : inputs) operands.push_back(where == Target::cuda ? a.to_device() : a);
  std::vector<Arg> args(operands.begin(), operands.end());
  args.emplace_back(loop(index, Casting::no));
  args.emplace_back(target(where));
  std::vector<Array> results = Ufunc(impl).call_outputs(args.data(), args.size());
  for (Array& r : results) r = r.is_device() ? r.to_host() : r;
  return results;
}

// The reports of one loop, one per output.
std::vector<AccuracyReport> measure_loop(const std::shared_ptr<detail::UfuncImpl>& impl, std::size_t index,
                                         const std::vector<std::string>& names, const AccuracyOptions& options) {
  const detail::UfuncImpl& ufunc = *impl;
  const Signature& signature = ufunc.signatures[index];
  std::vector<AccuracyReport> reports(signature.results.size());
  for (std::size_t o = 0; o < reports.size(); ++o) {
    reports[o].ufunc = ufunc.name;
    reports[o].loop = signature;
    reports[o].target = options.target;
    reports[o].output = static_cast<int>(o);
  }
  std::string why;
  const std::optional<Signature> wide = engine::wider_signature(signature, why);
  if (!wide) {
    for (AccuracyReport& report : reports) report.unavailable = why;
    return reports;
  }
  const std::vector<InputRange> ranges =
      engine::resolve_ranges(names, signature.args, ufunc.accuracy_ranges, options.ranges);
  const engine::SampledInputs sampled =
      engine::sample_inputs(signature.args, ranges, options.points, options.seed);
  std::vector<Array> narrow, widened;
  for (std::size_t k = 0; k < signature.args.size(); ++k) {
    narrow.push_back(engine::to_array(signature.args[k], sampled.columns[k]));
    widened.push_back(engine::to_array(wide->args[k], sampled.columns[k]));
  }
  const std::vector<Array> references = engine::run_reference(ufunc, *wide, widened);
  const std::vector<Array> results = run_loop(impl, index, options.target, narrow);
  for (std::size_t o = 0; o < reports.size(); ++o) {
    reports[o].reference = wide->to_string();
    reports[o].ranges = ranges;
    engine::compare_results(sampled, signature.results[o], engine::to_doubles(results[o]),
                            engine::to_doubles(references[o]), options, reports[o]);
  }
  return reports;
}

}  // namespace

std::vector<AccuracyReport> Ufunc::accuracy(const AccuracyOptions& options) const {
  if (!impl_) throw Error("this Ufunc is empty: get one from Engine::vectorize or Engine::ufunc");
  const detail::UfuncImpl& ufunc = *impl_;
  check_options(ufunc, options);
  const std::vector<std::string> names =
      codegen::parameter_names(ufunc.source.source, ufunc.name, nin());
  engine::check_ranges(names, options.ranges, fmt::format("accuracy of ufunc '{}'", ufunc.name));
  std::vector<AccuracyReport> reports;
  for (std::size_t index = 0; index < ufunc.signatures.size(); ++index) {
    if (options.signature && index != *options.signature) continue;
    // Every loop of float results, or the one asked for whatever it is (it then says why not).
    if (!options.signature && !all_real_floats(ufunc.signatures[index].results)) continue;
    for (AccuracyReport& report : measure_loop(impl_, index, names, options)) {
      reports.push_back(std::move(report));
    }
  }
  return reports;
}

std::vector<std::string> Ufunc::input_names() const {
  if (!impl_) throw Error("this Ufunc is empty: get one from Engine::vectorize or Engine::ufunc");
  return codegen::parameter_names(impl_->source.source, impl_->name, nin());
}

}  // namespace jitvec
