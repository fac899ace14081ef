// bench/gpu_startup.hpp: how long a fresh process takes to its first GPU result (issue 24),
// with an empty disk cache and with a warm one, for each sample's first call.
//
// The benchmark re-executes itself (/proc/self/exe --samples S --startup-case C --startup-child
// DIR) so that every measurement starts from a process that has loaded nothing: no driver, no
// context, no NVRTC, no compiled loop in memory. Every child runs with CUDA_CACHE_DISABLE=1:
// NVRTC 12.9+ keeps compiled programs in the driver's compute cache, and a cold figure must
// come from a compile, not from that cache's hit. The child times, from the start of main():
//   context       dlopen(libcuda) + cuInit + the primary context + the first device allocation,
//                 reported apart: the driver's cost, paid by every CUDA program;
//   first result  an Engine with DIR as its only cache folder, the case's definitions, the
//                 upload of 1024 elements, the first call as the sample makes it (compiling the
//                 one kernel it launches with NVRTC when cold, loading it from the disk cache
//                 when warm) and the copy back.
// The cases: gaussian_pdf (a device array and two scalars), polar_distance (four device
// arrays), zero_suppress (an int16 device array and a scalar), add (two float32 device arrays),
// and nvrtc_floor (add's kernel in one line, NVRTC and the driver alone: the ceiling).
// The child makes its inputs before the clock starts and checks its result against float64
// after it stops (neither is the library's work), times each phase (engine_ms, definitions_ms,
// upload_ms, call_ms, download_ms; the floor: kernel_ms for its compile or file read and load)
// and prints one line that the parent parses.
// Cold runs each get a new empty folder; warm runs share a folder that one cold run filled.
// Folders are removed afterwards.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "results.hpp"
#include "timing.hpp"

namespace bench {

/// The flags that turn the benchmark into a start-up child of one case.
inline constexpr const char* kStartupChildFlag = "--startup-child";
inline constexpr const char* kStartupCaseFlag = "--startup-case";
/// The floor case: the add case's work done with NVRTC and the driver alone (no Engine, no
/// prelude, no disk cache): what no NVRTC-based first call can beat (cold: compile; warm: load
/// a cubin from a file), the ceiling the jitvec rows are read against.
inline constexpr const char* kFloorCase = "nvrtc_floor";
inline constexpr const char* kStartupCases[] = {"gaussian_pdf", "polar_distance", "zero_suppress", "add",
                                                kFloorCase};

/// The child's whole work; `main_start` is the time main() began. Prints the result line and
/// returns the exit status (0 when the result was correct).
int run_startup_child(const std::filesystem::path& cache_dir, const std::string& case_name,
                      const std::filesystem::path& samples, Clock::time_point main_start);

/// Runs, for each case, `cold_runs` children on empty caches and `warm_runs` on a warm one,
/// each reading the definitions in `samples`; returns the records "startup_context" (the
/// driver's part) and "startup_cold_<case>", "startup_warm_<case>".
std::vector<Record> measure_startup(const std::filesystem::path& samples, int cold_runs,
                                    int warm_runs);

}  // namespace bench
