// src/launch/broadcast.hpp: NumPy's broadcasting rules.
//
// broadcast_shapes() finds the common shape of a call's arrays (align trailing dimensions; a
// dimension of 1 stretches) and throws BroadcastError listing every argument's shape when they
// do not agree. broadcast_strides() gives an array's strides in the broadcast shape: 0 along
// dimensions it is stretched over; repeated_dimension() finds such a dimension in an out=.
// Shared by every target.
#pragma once

#include <string>
#include <vector>

#include "jitvec/array.hpp"

namespace jitvec::launch {

/// One shape that takes part in broadcasting; messages call it "argument <argument>" (1-based).
struct NamedShape {
  const Shape* shape;
  int argument;
};

Shape broadcast_shapes(const NamedShape* shapes, std::size_t count);
inline Shape broadcast_shapes(const std::vector<NamedShape>& shapes) {
  return broadcast_shapes(shapes.data(), shapes.size());
}

/// `strides` of an array of `shape`, seen in the broadcast shape `to` (which shape broadcasts
/// to; checked by broadcast_shapes beforehand).
Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& to);

/// The first dimension along which an array of `shape` and `strides` puts two elements at one
/// address (stride 0 and size above 1: a broadcast view), or -1: an out= with one cannot take
/// one result per element. An empty array has none, whatever its strides: it holds no element
/// for two results to land on (NumPy gives an empty array's dimensions zero strides).
int repeated_dimension(const Shape& shape, const Strides& strides);

}  // namespace jitvec::launch
