// tests/tools/host_compile.cpp: a process that compiles one small ufunc source with the host
// compiler through jitvec::cpu::compile_shared_object, as a cpu-target call does (JITVEC_CXX
// and TMPDIR as the environment says), for the tests that kill it mid-compile and check what
// it leaves in TMPDIR.
//
//     host_compile
//
// Prints the shared object's size, or the error, and exits 0 or 1.
#include <cstdio>
#include <exception>

#include "cpu/host_compiler.hpp"

int main() {
  try {
    const std::string object = jitvec::cpu::compile_shared_object(
        "extern \"C\" float jitvec_tool_twice(float x) { return 2.0f * x; }\n", "tool",
        jitvec::cpu::host_compiler());
    std::printf("compiled %zu bytes\n", object.size());
    return 0;
  } catch (const std::exception& error) {
    std::printf("error: %s\n", error.what());
    return 1;
  }
}
