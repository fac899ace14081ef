// tests/unit/test_definitions.cpp: reading TOML definition files (src/definitions): the
// samples, the file line each source starts on, file order, and every kind of mistake's message
// (file, line and entry).
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "catch.hpp"
#include "definitions/definition_file.hpp"
#include "support.hpp"
#include "jitvec/errors.hpp"
#include "jitvec/jitvec.hpp"

using jitvec::DefinitionError;
using jitvec::definitions::DefinitionSet;
using jitvec::definitions::parse_definition_file;
using jitvec::definitions::parse_definition_text;

namespace {

const std::filesystem::path kSamples = std::filesystem::path(JITVEC_SOURCE_DIR) / "samples";

std::string read_text(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

// The 1-based line after the n-th (0-based) line of `text` that is exactly "source = '''":
// where TOML puts the first line of that source.
int line_after_nth_source_opener(const std::string& text, int n) {
  const std::vector<std::string> lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == "source = '''" && n-- == 0) return static_cast<int>(i) + 2;
  }
  FAIL("no source opener number " << n << " in the text");
  return 0;
}

// Checks that a source's first line stands on its origin line of `file_text`.
void check_origin_points_at_source(const std::string& file_text, int origin_line,
                                   const std::string& source) {
  const std::vector<std::string> file_lines = lines_of(file_text);
  REQUIRE(origin_line >= 1);
  REQUIRE(origin_line <= static_cast<int>(file_lines.size()));
  CHECK(file_lines[origin_line - 1] == lines_of(source).front());
}

// The message of the DefinitionError that parsing `text` (named defs.toml) throws.
std::string error_from(std::string_view text) {
  try {
    parse_definition_text(text, "defs.toml");
  } catch (const DefinitionError& error) {
    return error.what();
  }
  FAIL("parsing did not throw DefinitionError:\n" << text);
  return {};
}

bool starts_with(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("the gaussian_pdf sample parses", "[definitions]") {
  const std::filesystem::path file = kSamples / "gaussian_pdf.toml";
  const std::string text = read_text(file);
  const DefinitionSet set = parse_definition_file(file);
  CHECK(set.helpers.empty());
  REQUIRE(set.ufuncs.size() == 1);
  const auto& ufunc = set.ufuncs[0];
  CHECK(ufunc.name == "gaussian_pdf");
  CHECK(ufunc.signatures == std::vector<std::string>{"float32(float32, float32, float32)",
                                                     "float64(float64, float64, float64)"});
  CHECK(ufunc.targets.empty());
  CHECK(contains(ufunc.source,
                 "template <typename T> __device__ T gaussian_pdf(T x, T mean, T sigma)"));
  CHECK(ufunc.origin.file == file.string());
  CHECK(ufunc.origin.line == line_after_nth_source_opener(text, 0));
  check_origin_points_at_source(text, ufunc.origin.line, ufunc.source);
}

TEST_CASE("the polar_distance sample parses", "[definitions]") {
  const std::filesystem::path file = kSamples / "polar_distance.toml";
  const std::string text = read_text(file);
  const DefinitionSet set = parse_definition_file(file);
  REQUIRE(set.helpers.size() == 1);
  const auto& helper = set.helpers[0];
  CHECK(helper.name == "polar_to_cartesian");
  CHECK(contains(helper.source, "x = rho * cosf(theta);"));
  CHECK(contains(helper.source, "y = rho * sinf(theta);"));
  CHECK(helper.origin.file == file.string());
  CHECK(helper.origin.line == line_after_nth_source_opener(text, 0));
  check_origin_points_at_source(text, helper.origin.line, helper.source);

  REQUIRE(set.ufuncs.size() == 1);
  const auto& ufunc = set.ufuncs[0];
  CHECK(ufunc.name == "polar_distance");
  CHECK(ufunc.signatures ==
        std::vector<std::string>{"float32(float32, float32, float32, float32)"});
  CHECK(ufunc.targets == std::vector<std::string>{"cuda", "cpu"});
  CHECK(contains(ufunc.source, "polar_to_cartesian(rho1, theta1, x1, y1);"));
  CHECK(contains(ufunc.source, "sqrtf(dx * dx + dy * dy)"));
  CHECK(ufunc.origin.line == line_after_nth_source_opener(text, 1));
  check_origin_points_at_source(text, ufunc.origin.line, ufunc.source);
}

TEST_CASE("the zero_suppress sample parses", "[definitions]") {
  const std::filesystem::path file = kSamples / "zero_suppress.toml";
  const std::string text = read_text(file);
  const DefinitionSet set = parse_definition_file(file);
  CHECK(set.helpers.empty());
  REQUIRE(set.ufuncs.size() == 1);
  const auto& ufunc = set.ufuncs[0];
  CHECK(ufunc.name == "zero_suppress");
  CHECK(ufunc.signatures ==
        std::vector<std::string>{"int16(int16, int16)", "float32(float32, float32)"});
  CHECK(ufunc.targets == std::vector<std::string>{"cuda", "cpu", "parallel"});
  CHECK(ufunc.origin.line == line_after_nth_source_opener(text, 0));
  check_origin_points_at_source(text, ufunc.origin.line, ufunc.source);
}

TEST_CASE("a source's origin line follows TOML's newline trimming", "[definitions]") {
  SECTION("''' then a newline: the next line") {
    const auto set = parse_definition_text(
        "\n[device_functions.f]\nsource = '''\nint f();\n'''\n", "a.toml");
    REQUIRE(set.helpers.size() == 1);
    CHECK(set.helpers[0].source == "int f();\n");
    CHECK(set.helpers[0].origin.line == 4);
    CHECK(set.helpers[0].origin.file == "a.toml");
  }
  SECTION("''' then text: the same line") {
    const auto set =
        parse_definition_text("[device_functions.f]\nsource = '''int f();\nint g();'''\n", "a");
    CHECK(set.helpers[0].source == "int f();\nint g();");
    CHECK(set.helpers[0].origin.line == 2);
  }
  SECTION("\"\"\" then a newline: the next line") {
    const auto set =
        parse_definition_text("[device_functions.f]\n\n\nsource = \"\"\"\nint f();\"\"\"\n", "a");
    CHECK(set.helpers[0].origin.line == 5);
  }
  SECTION("a one-line string: its own line") {
    const auto set = parse_definition_text("[device_functions.f]\n\nsource = 'int f();'\n", "a");
    CHECK(set.helpers[0].origin.line == 3);
  }
  SECTION("Windows line endings") {
    const auto set = parse_definition_text(
        "[device_functions.f]\r\nsource = '''\r\nint f();\r\n'''\r\n", "a");
    CHECK(set.helpers[0].origin.line == 3);
  }
  SECTION("a byte-order mark before a source on line 1") {
    const auto set =
        parse_definition_text("\xEF\xBB\xBF" "device_functions.f.source = '''\nint f();'''\n", "a");
    REQUIRE(set.helpers.size() == 1);
    CHECK(set.helpers[0].origin.line == 2);
  }
  SECTION("non-ASCII text before the source on its line") {
    // In the inline table, each "é" is one column but two bytes before the source's quotes.
    const auto set = parse_definition_text(
        "[ufuncs]\n"
        "f = { signatures = [\"\xC3\xA9\xC3\xA9\xC3\xA9\"], source = '''\n"
        "float f(float);''' }\n",
        "a");
    REQUIRE(set.ufuncs.size() == 1);
    CHECK(set.ufuncs[0].source == "float f(float);");
    CHECK(set.ufuncs[0].origin.line == 3);
  }
}

TEST_CASE("helpers and ufuncs come back in file order", "[definitions]") {
  const auto set = parse_definition_text(R"toml([ufuncs.zeta]
signatures = ["float32(float32)"]
source = 'float zeta(float x) { return x; }'

[device_functions.second]
source = 'float second(float x) { return x; }'

[ufuncs.alpha]
signatures = ["float32(float32)"]
source = 'float alpha(float x) { return x; }'

[device_functions.first]
source = 'float first(float x) { return x; }'
)toml",
                                         "order.toml");
  REQUIRE(set.helpers.size() == 2);
  CHECK(set.helpers[0].name == "second");
  CHECK(set.helpers[1].name == "first");
  REQUIRE(set.ufuncs.size() == 2);
  CHECK(set.ufuncs[0].name == "zeta");
  CHECK(set.ufuncs[1].name == "alpha");
  CHECK(set.ufuncs[1].origin.line == 10);
}

TEST_CASE("an empty definition file defines nothing", "[definitions]") {
  const auto set = parse_definition_text("# nothing yet\n", "empty.toml");
  CHECK(set.helpers.empty());
  CHECK(set.ufuncs.empty());
}

TEST_CASE("definition errors name the file, line and entry", "[definitions]") {
  SECTION("the message format") {
    CHECK(error_from("[ufuncs.polar_distance]\n"
                     "signatures = \"float32(float32)\"\n"
                     "source = 'x'\n") ==
          "defs.toml:2: ufuncs.polar_distance: 'signatures' must be an array of strings, not "
          "a string");
  }
  SECTION("TOML syntax error, with its column") {
    const std::string message = error_from("[ufuncs.f]\n\nsignatures = = 1\n");
    CHECK(starts_with(message, "defs.toml:3:14: TOML syntax error: "));
  }
  SECTION("unknown top-level table") {
    const std::string message =
        error_from("[ufuncs.f]\nsignatures = ['float32(float32)']\nsource = 'x'\n"
                   "[ufunc.g]\nsource = 'x'\n");
    CHECK(starts_with(message, "defs.toml:4: unknown top-level table 'ufunc'"));
    CHECK(contains(message, "did you mean 'ufuncs'?"));
  }
  SECTION("unknown top-level key") {
    CHECK(starts_with(error_from("version = 2\n"), "defs.toml:1: unknown top-level key 'version'"));
  }
  SECTION("a top-level table that is not a table") {
    CHECK(starts_with(error_from("\nufuncs = 5\n"),
                      "defs.toml:2: 'ufuncs' must be a table of entries"));
  }
  SECTION("an entry that is not a table") {
    CHECK(starts_with(error_from("[ufuncs]\nf = 'float f(float);'\n"),
                      "defs.toml:2: ufuncs.f: an entry must be a table"));
  }
  SECTION("unknown key, with a suggestion") {
    const std::string message =
        error_from("[ufuncs.f]\nsource = 'x'\nsignature = ['float32(float32)']\n");
    CHECK(starts_with(message, "defs.toml:3: ufuncs.f: unknown key 'signature'"));
    CHECK(contains(message, "did you mean 'signatures'?"));
  }
  SECTION("unknown key in a helper, with the allowed keys") {
    const std::string message = error_from(
        "[device_functions.h]\nsource = 'x'\n\nsignatures = ['float32(float32)']\n");
    CHECK(starts_with(message, "defs.toml:4: device_functions.h: unknown key 'signatures'"));
    CHECK(contains(message, "allowed: 'source'"));
  }
  SECTION("missing source") {
    CHECK(error_from("\n[ufuncs.f]\nsignatures = ['float32(float32)']\n") ==
          "defs.toml:2: ufuncs.f: missing 'source'");
    CHECK(error_from("[device_functions.h]\n") ==
          "defs.toml:1: device_functions.h: missing 'source'");
  }
  SECTION("empty source") {
    CHECK(error_from("[device_functions.h]\nsource = '''\n  \n'''\n") ==
          "defs.toml:2: device_functions.h: 'source' is empty");
  }
  SECTION("source of the wrong type") {
    CHECK(error_from("[ufuncs.f]\nsignatures = ['float32(float32)']\nsource = 3\n") ==
          "defs.toml:3: ufuncs.f: 'source' must be a string, not an integer");
  }
  SECTION("missing signatures") {
    CHECK(error_from("[ufuncs.f]\nsource = 'x'\n") ==
          "defs.toml:1: ufuncs.f: missing 'signatures'");
  }
  SECTION("empty signatures") {
    CHECK(error_from("[ufuncs.f]\nsource = 'x'\nsignatures = []\n") ==
          "defs.toml:3: ufuncs.f: 'signatures' is empty");
  }
  SECTION("a signature that is not a string: the element's line") {
    CHECK(error_from("[ufuncs.f]\nsource = 'x'\n"
                     "signatures = [\n  'float32(float32)',\n  7,\n]\n") ==
          "defs.toml:5: ufuncs.f: 'signatures' must be an array of strings; it holds an integer");
  }
  SECTION("targets of the wrong type") {
    CHECK(starts_with(
        error_from("[ufuncs.f]\nsource = 'x'\nsignatures = ['float32(float32)']\n"
                   "targets = 'cpu'\n"),
        "defs.toml:4: ufuncs.f: 'targets' must be an array of strings"));
  }
  SECTION("unknown target") {
    const std::string message = error_from(
        "[ufuncs.f]\nsource = 'x'\nsignatures = ['float32(float32)']\n"
        "targets = ['cuda',\n'gpu']\n");
    CHECK(starts_with(message, "defs.toml:5: ufuncs.f: unknown target 'gpu'"));
    CHECK(contains(message, "'cuda', 'cpu', or 'parallel'"));
  }
  SECTION("a target listed twice") {
    CHECK(error_from("[ufuncs.f]\nsource = 'x'\nsignatures = ['float32(float32)']\n"
                     "targets = ['cpu', 'cpu']\n") ==
          "defs.toml:4: ufuncs.f: target 'cpu' is listed twice");
  }
  SECTION("names that are not C++ identifiers") {
    CHECK(starts_with(error_from("[ufuncs.polar-distance]\nsignatures = ['float32(float32)']\n"
                                 "source = 'x'\n"),
                      "defs.toml:1: ufuncs.polar-distance: 'polar-distance' is not a valid C++ "
                      "identifier"));
    CHECK(starts_with(error_from("\n[device_functions.2d]\nsource = 'x'\n"),
                      "defs.toml:2: device_functions.2d: '2d' is not a valid C++ identifier"));
    CHECK(starts_with(error_from("[device_functions.float]\nsource = 'x'\n"),
                      "defs.toml:1: device_functions.float: 'float' is not a valid C++ "
                      "identifier"));
    CHECK(starts_with(error_from("[device_functions.\"\"]\nsource = 'x'\n"),
                      "defs.toml:1: device_functions.: '' is not a valid C++ identifier"));
  }
  SECTION("a name used by a helper and a ufunc") {
    CHECK(error_from("[device_functions.f]\nsource = 'x'\n\n"
                     "[ufuncs.f]\nsignatures = ['float32(float32)']\nsource = 'x'\n") ==
          "defs.toml:4: ufuncs.f: the name 'f' is already defined by device_functions.f (line "
          "1); helpers and ufuncs share one namespace");
  }
}

TEST_CASE("definition files that cannot be read", "[definitions]") {
  SECTION("a missing file") {
    const std::filesystem::path missing = kSamples / "no_such_definitions.toml";
    try {
      parse_definition_file(missing);
      FAIL("no DefinitionError");
    } catch (const DefinitionError& error) {
      const std::string message = error.what();
      CHECK(starts_with(message, missing.string() + ": cannot read definition file: "));
    }
  }
  SECTION("a directory") {
    CHECK_THROWS_AS(parse_definition_file(kSamples), DefinitionError);
  }
  SECTION("errors in a file name that file") {
    const std::filesystem::path file =
        std::filesystem::temp_directory_path() / "jitvec_test_definitions_bad.toml";
    {
      std::ofstream stream(file, std::ios::binary);
      stream << "[ufuncs.f]\nsignatures = ['float32(float32)']\ntarget = ['cpu']\nsource = 'x'\n";
    }
    try {
      parse_definition_file(file);
      FAIL("no DefinitionError");
    } catch (const DefinitionError& error) {
      const std::string message = error.what();
      CHECK(starts_with(message, file.string() + ":3: ufuncs.f: unknown key 'target' (did you "
                                                 "mean 'targets'?)"));
    }
    std::filesystem::remove(file);
  }
}

namespace {

// What `read` throws, or "no error"; FAILs (after unblocking it) if it has not returned within
// ten seconds, which it did when it opened a FIFO with no writer.
template <class Read>
std::string error_within_seconds(Read read, const std::filesystem::path& fifo) {
  auto pending = std::async(std::launch::async, [read]() -> std::string {
    try {
      read();
      return "no error";
    } catch (const DefinitionError& error) {
      return error.what();
    }
  });
  if (pending.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    // A writer that comes and goes lets the blocked open() return, so the test can end.
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) ::close(writer);
    pending.wait();
    FAIL("reading " << fifo << " blocked for over ten seconds");
  }
  return pending.get();
}

}  // namespace

TEST_CASE("a path that is not a regular file is refused at once, saying what it is",
          "[definitions]") {
  jitvec_test::TempDir dir;
  const std::filesystem::path fifo = dir.path() / "defs.toml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(error_within_seconds([&] { parse_definition_file(fifo); }, fifo) ==
        fifo.string() + ": cannot read definition file: it is a FIFO (named pipe), not a regular "
                        "file");
  jitvec::Engine engine(jitvec::EngineOptions{
      jitvec::CacheOptions{std::nullopt, std::nullopt, true, std::nullopt}});
  CHECK(error_within_seconds([&] { engine.load_definitions(fifo); }, fifo) ==
        fifo.string() + ": cannot read definition file: it is a FIFO (named pipe), not a regular "
                        "file");

  const std::filesystem::path socket_path = dir.path() / "socket.toml";
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(listener >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  REQUIRE(socket_path.string().size() < sizeof address.sun_path);
  std::strcpy(address.sun_path, socket_path.c_str());
  REQUIRE(::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  CHECK_THROWS_WITH(parse_definition_file(socket_path),
                    socket_path.string() +
                        ": cannot read definition file: it is a socket, not a regular file");
  ::close(listener);

  CHECK_THROWS_WITH(parse_definition_file("/dev/null"),
                    "/dev/null: cannot read definition file: it is a character device, not a "
                    "regular file");
  CHECK_THROWS_WITH(parse_definition_file("/dev/zero"),
                    "/dev/zero: cannot read definition file: it is a character device, not a "
                    "regular file");
  CHECK_THROWS_WITH(parse_definition_file(dir.path()),
                    dir.path().string() +
                        ": cannot read definition file: it is a directory, not a regular file");
  // A link to a regular file is read as that file.
  const std::filesystem::path real = dir.path() / "real.toml";
  std::ofstream(real) << "[device_functions.h]\nsource = 'float h(float x) { return x; }'\n";
  std::filesystem::create_symlink(real, dir.path() / "link.toml");
  CHECK(parse_definition_file(dir.path() / "link.toml").helpers.size() == 1);
}

TEST_CASE("a definition file over 16 MiB is refused without reading it all", "[definitions]") {
  jitvec_test::TempDir dir;
  const std::filesystem::path file = dir.path() / "huge.toml";
  {
    std::ofstream stream(file, std::ios::binary);
    const std::string comment = "# " + std::string(1022, 'x') + "\n";
    for (int i = 0; i < 17 * 1024; ++i) stream << comment;  // 17 MiB of comments: valid TOML
  }
  try {
    parse_definition_file(file);
    FAIL("no DefinitionError");
  } catch (const DefinitionError& error) {
    CHECK(std::string(error.what()) ==
          file.string() +
              ": definition file is too large (over 16 MiB; definition files hold source text)");
  }
  CHECK_THROWS_WITH(
      jitvec::definitions::parse_definition_text(
          std::string(jitvec::definitions::kMaxDefinitionFileSize + 1, '\n'), "big.toml"),
      "big.toml: definition file is too large (16777217 bytes; at most 16 MiB of definitions are "
      "read)");
}
