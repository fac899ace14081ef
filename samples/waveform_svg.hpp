// samples/waveform_svg.hpp: a picture of a waveform before and after zero suppression.
//
// The zero_suppress sample writes this picture so a person can see what the ufunc did: three
// stacked panels on the same value axis, the input waveform, the suppressed one, and both
// overlaid, zoomed on one pulse (where the baseline noise meets the pulse's edges), each with
// axes, tick labels and dashed lines at +-threshold; the title gives the fraction of samples
// the ufunc set to zero. The SVG is written by hand (no
// plotting dependency). A waveform longer than the panel is wide is drawn as its per-pixel-column
// minimum and maximum, so the noise band keeps its true height however many samples there are.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace samples {

/// Writes the three-panel SVG to `file`. `before` and `after` must have the same, non-zero
/// length. Throws std::invalid_argument for lengths that do not fit and std::runtime_error
/// (naming the file) when it cannot be written.
void write_zero_suppression_svg(const std::filesystem::path& file,
                                const std::vector<std::int16_t>& before,
                                const std::vector<std::int16_t>& after, double threshold);

}  // namespace samples
