// src/kernels/host_prelude.hpp: the text that makes CUDA scalar code compile as host C++.
//
// The cpu and parallel targets compile the same user source that NVRTC compiles for the GPU,
// but with the host C++ compiler (GCC or Clang, -std=c++17). host_prelude() is placed at the top
// of every generated host source, before the user's code. It
//   - defines JITVEC_HOST (1), so user code can `#ifdef JITVEC_HOST`;
//   - defines CUDA's function qualifiers __device__, __host__, __forceinline__, __noinline__ and
//     __constant__ for the host (__restrict__ is GCC's and Clang's own);
//   - includes <cmath>, <cstdint>, <cstdio>, <cstring>, <limits>, <algorithm>, <type_traits> (and their C
//     forms, so int32_t, expf, memcpy are visible unqualified, as in CUDA);
//   - provides CUDA's math API where the C library lacks it (rsqrtf, sinpif, erfinvf, normcdff,
//     min/max overloads, ...), CUDA's float overloads (sin(float) is float), and CUDA's
//     intrinsics (__expf, __fmul_rn, __saturatef, __popc, __mulhi, __float_as_int, ...);
//   - ends with types_prelude() (src/kernels/device_types.hpp): __half, __nv_bfloat16 and
//     jitvec::complex<T>, the same text as on the device;
//   - defines JITVEC_EXPORT, the prefix the generated loops' entry points need: the shared
//     object is compiled with -fvisibility=hidden, and JITVEC_EXPORT is
//     `extern "C" __attribute__((visibility("default")))`.
// Everything the GPU cannot do per element (threadIdx, __syncthreads, __shfl_*, atomics,
// __shared__) and __global__ are left undefined on purpose: a ufunc source that uses them fails
// to compile with the host compiler's error at the user's line.
// Numerics: the C library's functions are used where they exist (expf is the C library's expf);
// CUDA's fast intrinsics (__expf, __sinf, __fdividef, ...) are the accurate functions on the host,
// so host results can differ from device results in the last bits, never more.
#pragma once

#include <string_view>

namespace jitvec::kernels {

/// C++17 source text to put at the top of every generated host source; ends with a newline.
std::string_view host_prelude();

}  // namespace jitvec::kernels
