// tests/unit/test_environment_values.cpp: README's environment table says that every value of
// a variable jitvec reads that does not parse is warned about (naming the variable and the
// value) and the default applies. The cache variables, JITVEC_LOG_LEVEL, JITVEC_COMPILE_TIMEOUT,
// JITVEC_NVRTC, JITVEC_CUDA_DRIVER and JITVEC_CXX have their tests beside their code; this file
// covers JITVEC_TARGET and JITVEC_LAUNCH_PARAMS, which had none (issue 16).
#include <cstdlib>
#include <optional>
#include <string>

#include "catch.hpp"
#include "support.hpp"
#include "cuda/launch.hpp"
#include "unit/log_capture.hpp"

namespace {

/// Sets one environment variable for a scope, restoring it after.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedVariable() {
    if (saved_) {
      ::setenv(name_, saved_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

jitvec::Ufunc define_add(jitvec::Engine& engine) {
  return engine.vectorize("add", {"float32(float32, float32)"},
                          "float add(float a, float b) { return a + b; }");
}

jitvec::EngineOptions no_disk() {
  jitvec::EngineOptions options;
  options.cache.disabled = true;
  return options;
}

}  // namespace

TEST_CASE("JITVEC_TARGET: a name that is no target warns, naming it, and the default applies",
          "[environment]") {
  const jitvec::Target fallback =
      jitvec::cuda_device_count() > 0 ? jitvec::Target::cuda : jitvec::Target::cpu;
  {
    const ScopedVariable target("JITVEC_TARGET", "gpu");
    jitvec_test::LogCapture log;
    jitvec::Engine engine(no_disk());
    CHECK(define_add(engine).default_target() == fallback);
    CHECK(log.warnings({"JITVEC_TARGET='gpu' is not one of cuda, cpu, parallel"}) == 1);
  }
  {
    const ScopedVariable target("JITVEC_TARGET", "parallel");
    jitvec_test::LogCapture log;
    jitvec::Engine engine(no_disk());
    CHECK(define_add(engine).default_target() == jitvec::Target::parallel);
    CHECK(log.warnings({"JITVEC_TARGET"}) == 0);
  }
  {
    const ScopedVariable target("JITVEC_TARGET", "");  // empty counts as unset: no warning
    jitvec_test::LogCapture log;
    jitvec::Engine engine(no_disk());
    CHECK(define_add(engine).default_target() == fallback);
    CHECK(log.warnings({"JITVEC_TARGET"}) == 0);
  }
}

TEST_CASE("JITVEC_LAUNCH_PARAMS: buffer, pointers or unset; anything else warns, naming it",
          "[environment]") {
  {
    jitvec_test::LogCapture log;
    CHECK(jitvec::cuda::launch_params_buffer("buffer"));
    CHECK_FALSE(jitvec::cuda::launch_params_buffer("pointers"));
    CHECK_FALSE(jitvec::cuda::launch_params_buffer(""));
    CHECK_FALSE(jitvec::cuda::launch_params_buffer(nullptr));
    CHECK(log.warnings({"JITVEC_LAUNCH_PARAMS"}) == 0);
  }
  jitvec_test::LogCapture log;
  CHECK_FALSE(jitvec::cuda::launch_params_buffer("bufer"));
  CHECK(log.warnings({"JITVEC_LAUNCH_PARAMS='bufer' is not one of buffer, pointers"}) == 1);
}
