// jitvec/jitvec.hpp: the umbrella header. Include this one.
//
// jitvec compiles user-written scalar CUDA C++ functions into elementwise "ufuncs" that
// broadcast over N-d arrays on the GPU (through NVRTC) or on the host (through the host C++
// compiler), with an on-disk cache of compiled code. See README.md for a tour.
#pragma once

#include "jitvec/accuracy.hpp"
#include "jitvec/array.hpp"
#include "jitvec/device.hpp"
#include "jitvec/dtype.hpp"
#include "jitvec/engine.hpp"
#include "jitvec/errors.hpp"
#include "jitvec/graph.hpp"
#include "jitvec/scalar.hpp"
#include "jitvec/signature.hpp"
#include "jitvec/ufunc.hpp"
#include "jitvec/version.hpp"
