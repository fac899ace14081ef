// src/cli/text_format.hpp: how the `jitvec` command writes sizes, durations and times for
// people (its --json output keeps raw numbers instead).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace jitvec::cli {

/// "512 B", "4.0 KiB", "1.5 MiB", "2.0 GiB" (powers of 1024).
std::string human_size(std::uint64_t bytes);

/// "143 ms" below ten seconds, else "12.3 s".
std::string human_duration(double seconds);

/// The time in UTC, ISO 8601 to the second: "2024-05-01T12:34:56Z".
std::string utc_time(std::chrono::system_clock::time_point time);

}  // namespace jitvec::cli
