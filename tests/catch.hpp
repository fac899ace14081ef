// tests/catch.hpp: one include for Catch2 2.x (Debian 12) and 3.x (the GPU machine), and the
// GPU-test guard that skips, with a message, where no GPU is usable.
#pragma once

#if defined(JITVEC_CATCH2_V3)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;
#define JITVEC_SKIP(msg) SKIP(msg)
#else
#include <catch2/catch.hpp>
#define JITVEC_SKIP(msg) \
  do {                   \
    WARN(msg);           \
    return;              \
  } while (0)
#endif
