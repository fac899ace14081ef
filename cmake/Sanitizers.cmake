# cmake/Sanitizers.cmake: builds every target with the compiler's run-time checkers, and the
# libFuzzer targets of tests/fuzz (README "Sanitizers and fuzzers").
#
#   cmake -S . -B build-asan -DJITVEC_SANITIZE=address,undefined
#
# adds -fsanitize=<list> to every target defined after this file is included (the library, the
# command, tests, tools, samples), with frame pointers kept for readable stacks and
# -fno-sanitize-recover=all, so that the first report of UndefinedBehaviorSanitizer ends the
# process with a failure instead of printing and going on (AddressSanitizer always stops; run
# with ASAN_OPTIONS=halt_on_error=1 anyway, as .ci/run does). Empty (the default) adds nothing.
#
#   cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DJITVEC_FUZZ=ON
#
# also instruments every target for libFuzzer's coverage (-fsanitize=fuzzer-no-link; clang
# only), with address,undefined unless JITVEC_SANITIZE says otherwise; tests/fuzz then adds one
# executable per fuzz target, linked with -fsanitize=fuzzer.
#
# Not instrumented: the host loops that the cpu targets compile at run time with the host
# compiler and dlopen (their compile options are jitvec's own, not CMake's), and libraries
# from the system (fmt, spdlog, NVRTC, libcuda).

set(JITVEC_SANITIZE "" CACHE STRING
    "Comma-separated sanitizers to build everything with (e.g. address,undefined); empty: none")
option(JITVEC_FUZZ "Build the libFuzzer targets of tests/fuzz (clang only)" OFF)

if(JITVEC_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "JITVEC_FUZZ needs clang (libFuzzer); configure with "
                        "-DCMAKE_CXX_COMPILER=clang++ (this is ${CMAKE_CXX_COMPILER_ID})")
  endif()
  if(NOT JITVEC_SANITIZE)
    set(JITVEC_SANITIZE address,undefined)
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(JITVEC_SANITIZE)
  add_compile_options(-fsanitize=${JITVEC_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${JITVEC_SANITIZE} -fno-sanitize-recover=all)
  message(STATUS "jitvec: building with -fsanitize=${JITVEC_SANITIZE}")
endif()
