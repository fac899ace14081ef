// tests/cli/test_cli_check.cpp: `jitvec check`, run as a separate process on a definition file
// of a deliberately bad source (catastrophic cancellation near 0), in text, JSON and SVG, and
// its usage errors.
#if defined(JITVEC_CLI_PATH)
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli/test_cli_support.hpp"

using jitvec::test::CommandOutput;
using jitvec::test::contains;
using jitvec::test::Json;
using jitvec::test::run_jitvec;
using jitvec::test::TempFolder;

namespace {

const char* kDefinitions = R"toml(
[ufuncs.one_minus_cos]
signatures = ["float32(float32)", "float64(float64)"]
source = '''
template <typename T> T one_minus_cos(T x) { return (T(1) - cos(x)) / (x * x); }
'''
[ufuncs.one_minus_cos.ranges]
x = [-1, 1]

[ufuncs.plain]
signatures = ["float32(float32, float32)"]
source = '''
float plain(float a, float b) { return a * b; }
'''
)toml";

struct CheckFixture {
  TempFolder scratch;
  std::filesystem::path file = scratch.path() / "bad.toml";
  std::string cache = "JITVEC_CACHE_DIR=" + (scratch.path() / "cache").string();
  CheckFixture() { jitvec::test::write_text(file, kDefinitions); }
  CommandOutput check(std::vector<std::string> extra) const {
    std::vector<std::string> args = {"check", file.string(), "--points", "4096"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_jitvec(args, {cache});
  }
};

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Whether `svg` is well-formed XML of the kind the writer makes: every element opened is closed
// in order (<a ...>...</a> or <a .../>), attribute values quoted, no stray '<' or '&'.
bool well_formed(const std::string& svg) {
  std::vector<std::string> open;
  for (std::size_t i = 0; i < svg.size();) {
    if (svg[i] == '&') {
      const std::size_t semi = svg.find(';', i);
      if (semi == std::string::npos || semi - i > 6) return false;
      i = semi + 1;
      continue;
    }
    if (svg[i] != '<') {
      ++i;
      continue;
    }
    const std::size_t end = svg.find('>', i);
    if (end == std::string::npos) return false;
    const std::string tag = svg.substr(i + 1, end - i - 1);
    if (tag.find('<') != std::string::npos) return false;
    std::size_t quotes = 0;
    for (char c : tag) quotes += c == '"';
    if (quotes % 2) return false;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
    i = end + 1;
  }
  return open.empty();
}

}  // namespace

TEST_CASE("jitvec check: the text report finds the bad range and says which loops it cannot measure",
          "[cli][cli_check]") {
  const CheckFixture fixture;
  const CommandOutput run = fixture.check({});
  INFO(run.out << run.err);
  // plain() is not generic over its float type: an error for it, the others reported.
  CHECK(run.exit_code == 1);
  CHECK(contains(run.err, "jitvec: error: ufunc 'plain': plain(double, double) does not return float64"));
  CHECK(contains(run.out, "one_minus_cos float32(float32) on cpu against float64(float64) on cpu\n"));
  CHECK(contains(run.out, "  ranges: x [-1, 1]; "));
  CHECK(contains(run.out, "  max error: "));
  CHECK(contains(run.out, "  NaN/inf the reference does not give: "));
  CHECK(contains(run.out, "one_minus_cos float64(float64) on cpu: no report: input 0 is float64, which has no "
                          "wider type"));
  // The worst point, as printed, is near 0.
  const std::size_t at = run.out.find("ulps at x=");
  REQUIRE(at != std::string::npos);
  CHECK(std::fabs(std::stod(run.out.substr(at + 10))) < 1e-3);
}

TEST_CASE("jitvec check --json --svg: the numbers for scripts and a plot per loop", "[cli][cli_check]") {
  const CheckFixture fixture;
  const std::filesystem::path plots = fixture.scratch.path() / "plots";
  const CommandOutput run =
      fixture.check({"--ufunc", "one_minus_cos", "--json", "--svg", plots.string(), "--range", "x=-0.5:2"});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const Json document = jitvec::test::parse_json(run.out);
  REQUIRE(document["ufuncs"].array.size() == 1);
  const Json& ufunc = document["ufuncs"].array[0];
  CHECK(ufunc["ufunc"].string == "one_minus_cos");
  REQUIRE(ufunc["reports"].array.size() == 2);
  const Json& f32 = ufunc["reports"].array[0];
  CHECK(f32["loop"].string == "float32(float32)");
  CHECK(f32["reference"].string == "float64(float64)");
  CHECK(f32["ranges"].array[0]["low"].number == -0.5);  // --range replaced the file's
  CHECK(f32["ranges"].array[0]["high"].number == 2);
  CHECK(f32["max_ulps"].number > 1e6);
  CHECK(std::fabs(f32["max_ulps_at"]["inputs"].array[0].number) < 1e-3);
  CHECK(f32["unexpected_nonfinite"].number > 0);
  CHECK(f32["unexpected_examples"].array[0]["result"].string == "nan");  // 0/0 as JSON holds it
  CHECK(f32["curves"].array[0]["max_ulps"].array.size() == 200);
  CHECK(contains(ufunc["reports"].array[1]["unavailable"].string, "no wider type"));

  const std::filesystem::path svg = plots / "one_minus_cos_float32_float32.svg";
  REQUIRE(std::filesystem::exists(svg));
  CHECK_FALSE(std::filesystem::exists(plots / "one_minus_cos_float64_float64.svg"));
  const std::string text = read_file(svg);
  CHECK(text.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(well_formed(text));
  CHECK(contains(text, "max error (ulps, log scale)"));
  CHECK(contains(text, "error over x in [-0.5, 2]"));
  CHECK(contains(text, "one_minus_cos float32(float32) on cpu against float64(float64) on cpu"));
}

TEST_CASE("jitvec check: usage errors", "[cli][cli_check]") {
  const CheckFixture fixture;
  CommandOutput run = fixture.check({"--range", "x=1"});
  CHECK(run.exit_code == 2);
  CHECK(contains(run.err, "--range 'x=1': write NAME=LOW:HIGH, as --range x=-10:10"));
  run = fixture.check({"--range", "x=a:1"});
  CHECK(run.exit_code == 2);
  CHECK(contains(run.err, "'a' is not a number"));
  run = fixture.check({"--range", "zz=0:1"});
  CHECK(run.exit_code == 2);
  CHECK(contains(run.err, "--range zz: no checked ufunc has an input named 'zz'"));
  run = fixture.check({"--ufunc", "nonesuch"});
  CHECK(run.exit_code == 2);
  CHECK(contains(run.err, "--ufunc: "));
  CHECK(contains(run.err, "nonesuch"));
}
#endif
