// bench/gpu_startup.hpp: how long a fresh process takes to its first GPU result (issue 5,
// case 8), with an empty disk cache and with a warm one.
//
// The benchmark re-executes itself (/proc/self/exe --samples S --startup-child DIR) so that every
// measurement starts from a process that has loaded nothing: no driver, no context, no NVRTC,
// no compiled loop in memory. The child times, from the start of main():
//   context      dlopen(libcuda) + cuInit + the primary context (made current), reported
//                separately: it is the driver's cost, paid by every CUDA program;
//   definitions  an Engine with DIR as its only cache folder, and samples/gaussian_pdf.toml read;
//   upload       1024 random floats copied to the device (the first stream-ordered allocation);
//   call         gaussian_pdf on them and the result copied back: compiling with NVRTC (cold) or
//                loading the cached cubin (warm), loading the module, the launch and the copy.
// "time to first result" is definitions + upload + call, i.e. everything after the context.
// The child checks its result against the float64 reference and prints one line that the
// parent parses. Cold runs each get a new empty folder; warm runs share a folder that one cold
// run filled. Folders are removed afterwards.
#pragma once

#include <filesystem>
#include <vector>

#include "results.hpp"
#include "timing.hpp"

namespace bench {

/// The flag that turns the benchmark into a start-up child.
inline constexpr const char* kStartupChildFlag = "--startup-child";

/// The child's whole work; `main_start` is the time main() began. Prints the result line and
/// returns the exit status (0 when the result was correct).
int run_startup_child(const std::filesystem::path& cache_dir,
                      const std::filesystem::path& definitions, Clock::time_point main_start);

/// Runs `cold_runs` children on empty caches and `warm_runs` on a warm one, each reading the
/// definitions in `samples`; returns the records "startup_context" (the driver's part),
/// "startup_cold" and "startup_warm".
std::vector<Record> measure_startup(const std::filesystem::path& samples, int cold_runs,
                                    int warm_runs);

}  // namespace bench
