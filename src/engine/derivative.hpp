// src/engine/derivative.hpp: the partial derivative of a ufunc as a ufunc (Engine::derivative).
//
// `engine.derivative("gaussian_pdf", "x")` checks what can be checked before anything compiles,
// then registers an ordinary ufunc whose source is generated (codegen/derivative_source.hpp):
//   1. the ufunc's function is found in its source (codegen/function_declaration.hpp); it must
//      be a template, so that it can be instantiated with jitvec::dual<T>
//      (codegen/dual_number.hpp), and the chosen input's parameter type must name a template
//      parameter (`T x`, `const T& x`), so that the dual reaches it;
//   2. the loops are the ufunc's loops whose chosen input and result are float32 or float64:
//      the same inputs, the result's type as the derivative's (twice for value_and_derivative);
//   3. the derivative ufunc is registered under its name with those loops, so every call,
//      target, the disk cache, `jitvec compile` and the cache listings treat it as any ufunc.
// Each refusal is a DefinitionError naming the ufunc and the input, saying why and what to
// write instead. A helper the ufunc calls with a dual value must be a template too; a plain one
// (`float g(float)`) is found only by the compiler, and its compile error then ends with a note
// saying so (UfuncSource::compile_hint).
#pragma once

#include <memory>
#include <string>

#include "jitvec/engine.hpp"
#include "jitvec/ufunc.hpp"

namespace jitvec::engine {

/// Engine::derivative (value = false) and Engine::value_and_derivative (value = true).
Ufunc derivative(Engine::Impl& engine, const std::shared_ptr<Engine::Impl>& keep_alive,
                 const std::string& ufunc, const DerivativeInput& wrt, bool value,
                 const DerivativeOptions& options);

}  // namespace jitvec::engine
