// bench/sample_definitions.hpp: where the benchmarks find samples/*.toml.
//
// The benchmarks define gaussian_pdf, polar_distance and zero_suppress from the same TOML files
// the samples and `jitvec compile` use. They look in --samples DIR when given, else in the
// source tree the benchmark was built from (JITVEC_SOURCE_DIR/samples), else in ./samples, for
// a binary built in one checkout and run from the root of another (as on the GPU machine).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace bench {

inline std::filesystem::path samples_folder(const std::filesystem::path& given) {
  if (!given.empty()) return given;
  const std::filesystem::path built_from = std::filesystem::path(JITVEC_SOURCE_DIR) / "samples";
  if (std::filesystem::is_directory(built_from)) return built_from;
  if (std::filesystem::is_directory("samples")) return std::filesystem::absolute("samples");
  throw std::runtime_error("cannot find the samples folder (looked in " + built_from.string() +
                           " and ./samples); give it with --samples DIR");
}

}  // namespace bench
