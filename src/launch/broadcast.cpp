#include "launch/broadcast.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace jitvec::launch {

Shape broadcast_shapes(const NamedShape* shape_array, std::size_t count) {
  struct {
    const NamedShape* first;
    const NamedShape* last;
    const NamedShape* begin() const { return first; }
    const NamedShape* end() const { return last; }
  } const shapes{shape_array, shape_array + count};
  std::size_t ndim = 0;
  for (const NamedShape& s : shapes) ndim = std::max(ndim, s.shape->size());
  Shape result(ndim, 1);
  for (const NamedShape& s : shapes) {
    const Shape& shape = *s.shape;
    const std::size_t lead = ndim - shape.size();
    for (std::size_t d = 0; d < shape.size(); ++d) {
      std::int64_t& target = result[lead + d];
      const std::int64_t size = shape[d];
      if (size == target || size == 1) continue;
      if (target == 1) {
        target = size;
        continue;
      }
      std::string listing;
      for (const NamedShape& each : shapes) {
        listing += fmt::format("\n  argument {}: {}", each.argument, shape_to_string(*each.shape));
      }
      throw BroadcastError(fmt::format(
          "shapes do not broadcast together: argument {} has size {} in dimension {} where "
          "another argument has {}; shapes:{}",
          s.argument, size, lead + d, target, listing));
    }
  }
  return result;
}

Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& to) {
  Strides result(to.size(), 0);
  const std::size_t lead = to.size() - shape.size();
  for (std::size_t d = 0; d < shape.size(); ++d) {
    result[lead + d] = shape[d] == 1 ? 0 : strides[d];
  }
  return result;
}

int repeated_dimension(const Shape& shape, const Strides& strides) {
  for (std::int64_t size : shape) {
    if (size == 0) return -1;
  }
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (strides[d] == 0 && shape[d] > 1) return static_cast<int>(d);
  }
  return -1;
}

}  // namespace jitvec::launch
