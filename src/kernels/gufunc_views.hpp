// src/kernels/gufunc_views.hpp: the strided views a generalized ufunc's function receives.
//
// A gufunc's user function (engine/gufunc.hpp) is called once per element of the loop space
// with one view per operand over that element's core dimensions: `jitvec::View<T, N>`, N the
// operand's number of core dimensions in the layout ("(m,n),(n)->(m)": 2, 1, 1), T its loop
// type, const for inputs. A view is a pointer, N extents and N strides (in elements, any sign,
// zero where an operand is broadcast); it indexes as v[i] or v(i) (N = 1), v(i, j) (N = 2),
// v(i, j, k) (N = 3); v.size(d) is extent d. A 0-d view (a "()" operand) reads and writes its
// one element as v(), *v or v[0] (Numba's spelling for a "()" output). The text below is pasted
// into the device and the host module alike, after the prelude (module text: gufunc.hpp).
#pragma once

#include <string_view>

namespace jitvec::kernels {

/// The definition of jitvec::View for generated gufunc modules; ends with a newline.
std::string_view gufunc_views_prelude();

}  // namespace jitvec::kernels
