// tests/unit/test_cpu_host.cpp: the host compiler driver and the loader of the cpu targets.
//
// Compiles CUDA-style scalar code with host_prelude() through the real host compiler, loads
// it, runs it against a float64 reference, and checks the errors: compile errors carry the
// user's #line location, missing compilers and symbols name what is missing.
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cpu/host_compiler.hpp"
#include "cpu/host_module.hpp"
#include "kernels/host_prelude.hpp"
#include "jitvec/errors.hpp"

namespace {

using jitvec::cpu::compile_shared_object;
using jitvec::cpu::host_compiler;
using jitvec::kernels::host_prelude;
using jitvec::cpu::HostCompilerSearch;
using jitvec::cpu::HostModule;
using jitvec::cpu::resolve_host_compiler;

/// The prelude, then `user_code` as the ufunc `name` (its lines numbered from 1 as
/// "ufunc:<name>"), then `entry_points` back in the generated file's own numbering.
std::string host_source(const std::string& name, const std::string& user_code,
                        const std::string& entry_points) {
  return std::string(host_prelude()) + "#line 1 \"ufunc:" + name + "\"\n" + user_code +
         "\n#line 1000 \"generated:" + name + "\"\n" + entry_points;
}

/// The message of the jitvec::CompileError that compiling `source` throws; fails if none.
jitvec::CompileError compile_error_of(const std::string& source, const std::string& name) {
  try {
    compile_shared_object(source, name, host_compiler());
  } catch (const jitvec::CompileError& error) {
    return error;
  }
  FAIL("compiling ufunc '" << name << "' did not throw CompileError");
  throw;  // unreachable: FAIL throws
}

std::string temporary_folder() {
  std::string pattern = "/tmp/jitvec-test-XXXXXX";
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

std::vector<std::string> folder_entries(const std::string& folder) {
  std::vector<std::string> entries;
  DIR* dir = opendir(folder.c_str());
  REQUIRE(dir != nullptr);
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") entries.push_back(name);
  }
  closedir(dir);
  return entries;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

/// The what() of the `Exception` that `action` throws; fails the test if it throws none.
template <class Exception, class Action>
std::string message_of(Action&& action) {
  try {
    action();
  } catch (const Exception& error) {
    return error.what();
  }
  FAIL("the expected exception was not thrown");
  return {};
}

/// Sets an environment variable for one scope and restores it after.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = old;
    setenv(name, value.c_str(), 1);
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  ~ScopedEnvironment() {
    if (saved_) {
      setenv(name_, saved_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

const char* const kGaussianUfunc = R"(
__device__ float gaussian(float x, float m, float s) {
  return expf(-0.5f * ((x - m) / s) * ((x - m) / s)) / (s * 2.5066282746f);
})";

const char* const kGaussianLoop = R"(
JITVEC_EXPORT void gaussian_loop(const float* x, float* out, long long n, float m, float s) {
  for (long long i = 0; i < n; ++i) out[i] = gaussian(x[i], m, s);
})";

using GaussianLoop = void (*)(const float*, float*, long long, float, float);

}  // namespace

TEST_CASE("a CUDA scalar function compiled for the host matches a float64 reference",
          "[cpu][host_compiler]") {
  const std::string object = compile_shared_object(
      host_source("gaussian", kGaussianUfunc, kGaussianLoop), "gaussian", host_compiler());
  REQUIRE(object.size() > 4);
  CHECK(object.compare(0, 4, "\x7f" "ELF") == 0);

  const HostModule module = HostModule::load_bytes(object);
  auto loop = reinterpret_cast<GaussianLoop>(module.symbol("gaussian_loop"));

  std::mt19937 random(12345);
  std::uniform_real_distribution<float> uniform(-3.0f, 4.0f);
  std::vector<float> x(10000), out(x.size(), -1.0f);
  for (float& value : x) value = uniform(random);
  const float m = 0.5f, s = 1.3f;
  loop(x.data(), out.data(), static_cast<long long>(x.size()), m, s);

  int mismatches = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double z = (double(x[i]) - m) / s;
    const double expected = std::exp(-0.5 * z * z) / (double(s) * std::sqrt(2.0 * M_PI));
    if (std::fabs(out[i] - expected) > 1e-6 * expected) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("a compile error points at the user's line and keeps the log", "[cpu][host_compiler]") {
  const std::string user_code =
      "__device__ float bad(float x) {\n"
      "  return x + undeclared_value;\n"
      "}";
  const jitvec::CompileError error =
      compile_error_of(host_source("bad", user_code, ""), "bad");
  CHECK(error.ufunc() == "bad");
  CHECK(contains(error.log(), "ufunc:bad:2"));
  CHECK(contains(error.log(), "undeclared_value"));
  const std::string message = error.what();
  CHECK(starts_with(message, "host compiler failed to compile ufunc 'bad'"));
  CHECK(contains(message, "ufunc:bad:2"));
  CHECK(contains(message, "command: " + host_compiler().path));
  CHECK(error.options() == host_compiler().flags);
}

TEST_CASE("GPU-only constructs do not compile for the host", "[cpu][host_compiler]") {
  SECTION("__global__") {
    const auto error = compile_error_of(
        host_source("kernel", "__global__ void kernel(float* x) { x[0] = 1.0f; }", ""), "kernel");
    CHECK(contains(error.log(), "ufunc:kernel:1"));
  }
  SECTION("threadIdx") {
    const auto error = compile_error_of(
        host_source("lane", "__device__ int lane(int x) {\n  return x + threadIdx.x;\n}", ""),
        "lane");
    CHECK(contains(error.log(), "ufunc:lane:2"));
    CHECK(contains(error.log(), "threadIdx"));
  }
  SECTION("__syncthreads") {
    const auto error = compile_error_of(
        host_source("sync", "__device__ float sync(float x) {\n  __syncthreads();\n  return x;\n}",
                    ""),
        "sync");
    CHECK(contains(error.log(), "ufunc:sync:2"));
  }
}

TEST_CASE("a declared but undefined function is a compile error naming it", "[cpu][host_compiler]") {
  const std::string user_code =
      "__device__ float helper_never_defined(float x);\n"
      "__device__ float caller(float x) { return helper_never_defined(x); }";
  const std::string entry = "JITVEC_EXPORT float call(float x) { return caller(x); }";
  const auto error = compile_error_of(host_source("caller", user_code, entry), "caller");
  CHECK(contains(error.log(), "helper_never_defined"));
}

TEST_CASE("compiling leaves no temporary files", "[cpu][host_compiler]") {
  const std::string folder = temporary_folder();
  {
    ScopedEnvironment tmpdir("TMPDIR", folder);
    compile_shared_object(host_source("gaussian", kGaussianUfunc, kGaussianLoop), "gaussian",
                          host_compiler());
    CHECK(folder_entries(folder).empty());
    compile_error_of(host_source("bad", "int bad(", ""), "bad");
    CHECK(folder_entries(folder).empty());
  }
  rmdir(folder.c_str());
}

TEST_CASE("the host compiler is resolved from JITVEC_CXX, PATH and the build compiler",
          "[cpu][host_compiler]") {
  const jitvec::cpu::HostCompiler& real = host_compiler();
  const std::string real_folder = real.path.substr(0, real.path.rfind('/'));
  const std::string real_name = real.path.substr(real.path.rfind('/') + 1);
  const std::string empty_folder = temporary_folder();

  SECTION("JITVEC_CXX naming a missing file") {
    HostCompilerSearch search;
    search.cxx = "/nonexistent/bin/g++";
    search.path = real_folder;
    CHECK(message_of<jitvec::TargetError>([&] { resolve_host_compiler(search); }) ==
          "JITVEC_CXX is '/nonexistent/bin/g++', which is not an executable file; set it to a C++ "
          "compiler (a path, or a name on PATH) or unset it to use c++ from PATH");
  }
  SECTION("JITVEC_CXX naming a program that is not on PATH") {
    HostCompilerSearch search;
    search.cxx = "jitvec-no-such-compiler";
    search.path = real_folder;
    CHECK(starts_with(message_of<jitvec::TargetError>([&] { resolve_host_compiler(search); }),
                      "JITVEC_CXX is 'jitvec-no-such-compiler', which was not found on PATH"));
  }
  SECTION("JITVEC_CXX naming a program that is not a compiler") {
    HostCompilerSearch search;
    search.cxx = "/bin/false";
    CHECK(starts_with(message_of<jitvec::TargetError>([&] { resolve_host_compiler(search); }),
                      "the host C++ compiler '/bin/false' does not work: '/bin/false --version' "
                      "exited with status 1"));
  }
  SECTION("no compiler anywhere") {
    HostCompilerSearch search;
    search.path = empty_folder;
    CHECK(message_of<jitvec::TargetError>([&] { resolve_host_compiler(search); }) ==
          "no host C++ compiler: set JITVEC_CXX or install g++; the cpu and parallel targets "
          "compile ufuncs with it");
  }
  SECTION("the build compiler when PATH has none") {
    HostCompilerSearch search;
    search.path = empty_folder;
    search.build_compiler = real.path;
    CHECK(resolve_host_compiler(search).path == real.path);
  }
  SECTION("a name from JITVEC_CXX, found on PATH, with JITVEC_CXXFLAGS") {
    HostCompilerSearch search;
    search.cxx = real_name;
    search.path = "/nonexistent:" + real_folder;
    search.cxxflags = " -DJITVEC_TEST_FLAG=1   -g ";
    const auto compiler = resolve_host_compiler(search);
    CHECK(compiler.path == real.path);
    CHECK(compiler.identity == real.identity);
    REQUIRE(compiler.flags.size() >= 2);
    CHECK(compiler.flags[compiler.flags.size() - 2] == "-DJITVEC_TEST_FLAG=1");
    CHECK(compiler.flags.back() == "-g");
  }
  SECTION("the flags are IEEE-preserving and portable") {
    const auto& flags = real.flags;
    auto has = [&](const char* flag) {
      return std::find(flags.begin(), flags.end(), flag) != flags.end();
    };
    CHECK(has("-std=c++17"));
    CHECK(has("-O3"));
    CHECK(has("-fvisibility=hidden"));
    CHECK_FALSE(has("-ffast-math"));
    CHECK_FALSE(has("-march=native"));
    CHECK(contains(real.identity, "; target "));
  }
  rmdir(empty_folder.c_str());
}

TEST_CASE("host modules load from bytes and files, and report missing symbols",
          "[cpu][host_module]") {
  auto value_source = [](int value) {
    return std::string(host_prelude()) + "JITVEC_EXPORT int value() { return " +
           std::to_string(value) + "; }\n";
  };
  const std::string first = compile_shared_object(value_source(1), "one", host_compiler());
  const std::string second = compile_shared_object(value_source(2), "two", host_compiler());
  using ValueFunction = int (*)();

  SECTION("two modules loaded at once stay apart") {
    const HostModule one = HostModule::load_bytes(first);
    const HostModule two = HostModule::load_bytes(second);
    CHECK(reinterpret_cast<ValueFunction>(one.symbol("value"))() == 1);
    CHECK(reinterpret_cast<ValueFunction>(two.symbol("value"))() == 2);
  }
  SECTION("a module loaded after another was closed is the new one") {
    { const HostModule one = HostModule::load_bytes(first); }
    const HostModule two = HostModule::load_bytes(second);
    CHECK(reinterpret_cast<ValueFunction>(two.symbol("value"))() == 2);
  }
  SECTION("a module that cannot be unloaded does not shadow the next one") {
    // A function-local static in an exported inline function is an STB_GNU_UNIQUE symbol with
    // GCC, which keeps the object mapped after dlclose.
    auto unique_source = [](int value) {
      return std::string(host_prelude()) +
             "inline __attribute__((visibility(\"default\"))) int& calls() { static int n = 0; "
             "return n; }\n"
             "JITVEC_EXPORT int value() { return ++calls() * 0 + " +
             std::to_string(value) + "; }\n";
    };
    const std::string pinned = compile_shared_object(unique_source(10), "ten", host_compiler());
    const std::string next = compile_shared_object(unique_source(20), "twenty", host_compiler());
    { const HostModule ten = HostModule::load_bytes(pinned); }
    const HostModule twenty = HostModule::load_bytes(next);
    CHECK(reinterpret_cast<ValueFunction>(twenty.symbol("value"))() == 20);
  }
  SECTION("a module moves") {
    HostModule one = HostModule::load_bytes(first);
    HostModule moved = std::move(one);
    CHECK(reinterpret_cast<ValueFunction>(moved.symbol("value"))() == 1);
    CHECK_THROWS_AS(one.symbol("value"), jitvec::Error);  // NOLINT: use after move on purpose
    one = HostModule::load_bytes(second);
    CHECK(reinterpret_cast<ValueFunction>(one.symbol("value"))() == 2);
  }
  SECTION("load_file") {
    const std::string folder = temporary_folder();
    const std::string path = folder + "/module.so";
    std::ofstream(path, std::ios::binary) << second;
    {
      const HostModule module = HostModule::load_file(path);
      CHECK(module.description() == path);
      CHECK(reinterpret_cast<ValueFunction>(module.symbol("value"))() == 2);
    }
    unlink(path.c_str());
    CHECK(starts_with(message_of<jitvec::Error>([&] { HostModule::load_file(path); }),
                      "could not load the host module '" + path + "': "));
    rmdir(folder.c_str());
  }
  SECTION("a missing symbol is named") {
    const HostModule module = HostModule::load_bytes(first);
    const std::string message = message_of<jitvec::Error>([&] { module.symbol("no_such_symbol"); });
    CHECK(starts_with(message, "symbol 'no_such_symbol' not found in the host module (an "
                               "in-memory object of "));
    CHECK(contains(message, "undefined symbol: no_such_symbol"));
  }
  SECTION("bytes that are not an object") {
    CHECK(starts_with(message_of<jitvec::Error>([] { HostModule::load_bytes("not an object"); }),
                      "could not load the host module (an in-memory object of 13 bytes): "));
  }
}
