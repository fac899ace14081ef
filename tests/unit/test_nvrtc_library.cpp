// tests/unit/test_nvrtc_library.cpp: NVRTC loaded at run time, and the compile time limit.
//
// No GPU is needed: NVRTC compiles without one. What depends on the process's one load attempt
// (a missing library, a CPU-only program that never loads NVRTC) runs in a fresh process
// (tests/tools/nvrtc_probe) with the environment it needs.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "catch.hpp"
#include "compile/compile_time_limit.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "compile/nvrtc_library.hpp"
#include "support.hpp"
#include "jitvec/errors.hpp"

namespace {

using jitvec::CompileError;
using jitvec::CudaError;
namespace compile = jitvec::compile;
using jitvec_test::ChildResult;
using jitvec_test::run_tool;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const char* const kKernel = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }";

}  // namespace

TEST_CASE("a missing NVRTC is a CudaError that says how to point jitvec at one", "[nvrtc]") {
  const std::string path = "/nonexistent/jitvec-test/libnvrtc.so.13";
  try {
    compile::detail::load_nvrtc_from({path});
    FAIL("no CudaError was thrown");
  } catch (const CudaError& error) {
    const std::string message = error.what();
    CHECK(error.code() == -1);
    CHECK(message.rfind("no NVRTC: ", 0) == 0);
    CHECK(contains(message, path));
    CHECK(contains(message, "JITVEC_NVRTC"));
    CHECK(contains(message, "cpu and parallel targets need no CUDA"));
  }
}

TEST_CASE("a library without NVRTC's entry points is refused, and the next candidate tried",
          "[nvrtc]") {
  try {
    compile::detail::load_nvrtc_from({"libm.so.6", "/nonexistent/libnvrtc.so"});
    FAIL("no CudaError was thrown");
  } catch (const CudaError& error) {
    const std::string message = error.what();
    CHECK(contains(message, "libm.so.6: has no nvrtcGetErrorString"));
    CHECK(contains(message, "/nonexistent/libnvrtc.so: "));  // tried after libm
  }
}

TEST_CASE("JITVEC_NVRTC replaces the default libraries", "[nvrtc]") {
  const char* saved = std::getenv("JITVEC_NVRTC");
  const std::string saved_value = saved != nullptr ? saved : "";
  ::setenv("JITVEC_NVRTC", "/opt/cuda/lib64/libnvrtc.so.13", 1);
  CHECK(compile::detail::nvrtc_library_candidates() ==
        std::vector<std::string>{"/opt/cuda/lib64/libnvrtc.so.13"});
  ::setenv("JITVEC_NVRTC", "", 1);  // empty: as if unset
  const std::vector<std::string> defaults = compile::detail::nvrtc_library_candidates();
  REQUIRE(defaults.size() >= 2);
  CHECK(defaults.front().rfind("libnvrtc.so.", 0) == 0);
  CHECK(defaults.back() == "libnvrtc.so");
  ::unsetenv("JITVEC_NVRTC");
  CHECK(compile::detail::nvrtc_library_candidates() == defaults);
  if (saved != nullptr) ::setenv("JITVEC_NVRTC", saved_value.c_str(), 1);
}

TEST_CASE("a CPU-only program never loads NVRTC", "[nvrtc][cpu]") {
  const ChildResult child = run_tool("nvrtc_probe", {"cpu"}, {});
  INFO(child.output);
  CHECK(child.exit_status == 0);
  CHECK(contains(child.output, "libnvrtc loaded: no"));
}

TEST_CASE("with JITVEC_NVRTC naming a missing file, a GPU compile fails saying so", "[nvrtc]") {
  const std::string path = "/nonexistent/jitvec-test/libnvrtc.so.13";
  const ChildResult missing =
      run_tool("nvrtc_probe", {"cuda-compile"}, {{"JITVEC_NVRTC", path.c_str()}});
  INFO(missing.output);
  CHECK(missing.exit_status == 4);  // CudaError
  CHECK(contains(missing.output, "CudaError: no NVRTC: " + path));
  CHECK(contains(missing.output, "set JITVEC_NVRTC to its path"));
  // The user named that library, so the failure is also logged as a warning when it happens.
  CHECK(contains(missing.output, "[warning]"));

  // The same program finds NVRTC by itself (the build machine has the CUDA toolkit).
  const ChildResult found = run_tool("nvrtc_probe", {"cuda-compile"}, {{"JITVEC_NVRTC", nullptr}});
  INFO(found.output);
  CHECK(found.exit_status == 0);
  CHECK(contains(found.output, "compiled: cubin"));
}

TEST_CASE("JITVEC_COMPILE_TIMEOUT: seconds, 0 for none, bad values warn", "[nvrtc]") {
  using Seconds = std::chrono::duration<double>;
  const Seconds fallback(compile::kDefaultCompileTimeLimitSeconds);
  CHECK(compile::parse_compile_time_limit(nullptr).limit == fallback);
  CHECK(compile::parse_compile_time_limit("").limit == fallback);
  CHECK(compile::parse_compile_time_limit("0").limit == std::nullopt);
  CHECK(compile::parse_compile_time_limit("2.5").limit == Seconds(2.5));
  CHECK(compile::parse_compile_time_limit("600 ").limit == Seconds(600));
  for (const char* bad : {"abc", "-1", "10s", "inf", "nan", "1e999", "5 minutes"}) {
    INFO(bad);
    const compile::CompileTimeLimit parsed = compile::parse_compile_time_limit(bad);
    CHECK(parsed.limit == fallback);
    CHECK(contains(parsed.warning, std::string("JITVEC_COMPILE_TIMEOUT='") + bad + "'"));
    CHECK(contains(parsed.warning, "using the default"));
  }
  CHECK(compile::parse_compile_time_limit("30").warning.empty());
}

TEST_CASE("an NVRTC compile past its time limit is a CompileError, without waiting for it",
          "[nvrtc]") {
  const auto started = std::chrono::steady_clock::now();
  try {
    compile::compile_cuda(kKernel, "slow_ufunc", "sm_80", std::chrono::duration<double>(1e-6));
    FAIL("no CompileError was thrown");
  } catch (const CompileError& error) {
    const std::string message = error.what();
    CHECK(error.ufunc() == "slow_ufunc");
    CHECK(contains(message, "ufunc 'slow_ufunc' for sm_80"));
    CHECK(contains(message, "time limit of 1e-06 s"));
    CHECK(contains(message, "JITVEC_COMPILE_TIMEOUT"));
  }
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The same compile, unhurried: the limit, not NVRTC, decided when the error came.
  const auto unhurried_start = std::chrono::steady_clock::now();
  const compile::CudaBinary binary =
      compile::compile_cuda(kKernel, "slow_ufunc", "sm_80", std::chrono::duration<double>(600));
  const double compile_time =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - unhurried_start).count();
  CHECK_FALSE(binary.cubin.empty());
  INFO("timed out after " << waited << " s; the compile takes " << compile_time << " s");
  CHECK(waited < compile_time);
}

TEST_CASE("the limit comes from JITVEC_COMPILE_TIMEOUT at each compile", "[nvrtc]") {
  const char* saved = std::getenv("JITVEC_COMPILE_TIMEOUT");
  const std::string saved_value = saved != nullptr ? saved : "";
  ::setenv("JITVEC_COMPILE_TIMEOUT", "0.000001", 1);
  CHECK_THROWS_AS(compile::compile_cuda(kKernel, "f", "sm_80"), CompileError);
  ::setenv("JITVEC_COMPILE_TIMEOUT", "0", 1);  // no limit: compiled on the calling thread
  CHECK_FALSE(compile::compile_cuda(kKernel, "f", "sm_80").cubin.empty());
  if (saved != nullptr) {
    ::setenv("JITVEC_COMPILE_TIMEOUT", saved_value.c_str(), 1);
  } else {
    ::unsetenv("JITVEC_COMPILE_TIMEOUT");
  }
}
