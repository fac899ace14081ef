#include "engine/accuracy_ranges.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/edit_distance.hpp"
#include "core/float_ulps.hpp"

namespace jitvec::engine {
namespace {

std::string closest_hint(const std::vector<std::string>& names, const std::string& name) {
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const std::string& candidate : names) {
    const std::size_t d = detail::edit_distance(candidate, name);
    if (!best || d < best_distance) best = &candidate, best_distance = d;
  }
  return best && best_distance <= std::max<std::size_t>(2, name.size() / 3)
             ? fmt::format("; did you mean '{}'?", *best)
             : std::string();
}

const InputRange* find_range(const std::vector<InputRange>& ranges, const std::string& name) {
  const auto at = std::find_if(ranges.begin(), ranges.end(), [&](const InputRange& r) { return r.input == name; });
  return at == ranges.end() ? nullptr : &*at;
}

}  // namespace

void check_ranges(const std::vector<std::string>& names, const std::vector<InputRange>& ranges,
                  const std::string& what) {
  for (std::size_t k = 0; k < ranges.size(); ++k) {
    const InputRange& range = ranges[k];
    if (std::find(names.begin(), names.end(), range.input) == names.end()) {
      throw ArgumentError(fmt::format("{}: a range names input '{}', but its inputs are {}{}", what, range.input,
                                      fmt::format("'{}'", fmt::join(names, "', '")),
                                      closest_hint(names, range.input)));
    }
    if (find_range(ranges, range.input) != &range) {
      throw ArgumentError(fmt::format("{}: input '{}' has two ranges", what, range.input));
    }
    if (!std::isfinite(range.low) || !std::isfinite(range.high) || !(range.low <= range.high)) {
      throw ArgumentError(fmt::format(
          "{}: the range of input '{}' is [{}, {}]; a range needs finite bounds, the low one first",
          what, range.input, range.low, range.high));
    }
  }
}

std::vector<InputRange> resolve_ranges(const std::vector<std::string>& names, const std::vector<DType>& types,
                                       const std::vector<InputRange>& declared,
                                       const std::vector<InputRange>& given) {
  std::vector<InputRange> ranges;
  for (std::size_t k = 0; k < names.size(); ++k) {
    const double largest = detail::float_limits(types[k]).largest;
    const InputRange* chosen = find_range(given, names[k]);
    if (!chosen) chosen = find_range(declared, names[k]);
    InputRange range = chosen ? *chosen : InputRange{names[k], -largest, largest};
    range.low = std::clamp(range.low, -largest, largest);
    range.high = std::clamp(range.high, -largest, largest);
    ranges.push_back(range);
  }
  return ranges;
}

}  // namespace jitvec::engine
