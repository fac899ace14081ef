// Built only with the command (JITVEC_BUILD_CLI), which defines JITVEC_CLI_PATH.
#if defined(JITVEC_CLI_PATH)
#include "cli/test_cli_support.hpp"

#include <sys/wait.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace jitvec::test {
namespace fs = std::filesystem;
namespace {

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// ---- JSON ----

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : text_(text) {}

  Json document() {
    Json value = read_value();
    skip_space();
    if (at_ < text_.size()) fail("text after the document");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(at_));
  }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool take(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(std::string("expected '") + c + "'");
  }
  bool take_word(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  Json read_value() {
    skip_space();
    if (at_ >= text_.size()) fail("unexpected end");
    Json value;
    const char c = text_[at_];
    if (c == '{') {
      value.kind = Json::Kind::object;
      ++at_;
      if (take('}')) return value;
      do {
        skip_space();
        std::string key = read_string();
        expect(':');
        value.object[key] = read_value();
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      value.kind = Json::Kind::array;
      ++at_;
      if (take(']')) return value;
      do {
        value.array.push_back(read_value());
      } while (take(','));
      expect(']');
    } else if (c == '"') {
      value.kind = Json::Kind::string;
      value.string = read_string();
    } else if (take_word("true") || take_word("false")) {
      value.kind = Json::Kind::boolean;
      value.boolean = c == 't';
    } else if (take_word("null")) {
      value.kind = Json::Kind::null;
    } else {
      value.kind = Json::Kind::number;
      const std::size_t start = at_;
      while (at_ < text_.size() && std::string_view("+-0123456789.eE").find(text_[at_]) !=
                                       std::string_view::npos) {
        ++at_;
      }
      if (at_ == start) fail("unexpected character");
      value.number = std::stod(std::string(text_.substr(start, at_ - start)));
    }
    return value;
  }

  std::string read_string() {
    if (at_ >= text_.size() || text_[at_] != '"') fail("expected a string");
    ++at_;
    std::string result;
    while (true) {
      if (at_ >= text_.size()) fail("unterminated string");
      const char c = text_[at_++];
      if (c == '"') return result;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        result += c;
        continue;
      }
      if (at_ >= text_.size()) fail("unterminated escape");
      const char e = text_[at_++];
      switch (e) {
        case '"': case '\\': case '/': result += e; break;
        case 'b': result += '\b'; break;
        case 'f': result += '\f'; break;
        case 'n': result += '\n'; break;
        case 'r': result += '\r'; break;
        case 't': result += '\t'; break;
        case 'u': {
          if (at_ + 4 > text_.size()) fail("short \\u escape");
          const unsigned code = std::stoul(std::string(text_.substr(at_, 4)), nullptr, 16);
          at_ += 4;
          // The tests only compare ASCII text; other code points are kept as a marker.
          result += code < 0x80 ? static_cast<char>(code) : '?';
          break;
        }
        default: fail("bad escape");
      }
    }
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

CommandOutput run_jitvec(const std::vector<std::string>& args,
                         const std::vector<std::string>& environment) {
  TempFolder capture;
  std::string command =
      "env -u JITVEC_CACHE_DIR -u JITVEC_CACHE_PATH -u JITVEC_CACHE_DISABLE "
      "-u JITVEC_CACHE_MAX_SIZE -u JITVEC_TARGET";
  for (const std::string& assignment : environment) command += " " + shell_quote(assignment);
  command += " " + shell_quote(JITVEC_CLI_PATH);
  for (const std::string& arg : args) command += " " + shell_quote(arg);
  command += " >" + shell_quote((capture.path() / "out").string()) + " 2>" +
             shell_quote((capture.path() / "err").string()) + " </dev/null";
  const int status = std::system(command.c_str());
  CommandOutput output;
  output.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  output.out = read_text(capture.path() / "out");
  output.err = read_text(capture.path() / "err");
  return output;
}


std::vector<fs::path> entry_files(const fs::path& folder) {
  std::vector<fs::path> files;
  if (!fs::exists(folder)) return files;
  for (const auto& item : fs::recursive_directory_iterator(folder)) {
    if (item.is_regular_file() && item.path().extension() == ".jvk") files.push_back(item.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<fs::path> sample_files() {
  std::vector<fs::path> files;
  for (const auto& item : fs::directory_iterator(fs::path(JITVEC_SOURCE_DIR) / "samples")) {
    if (item.path().extension() == ".toml") files.push_back(item.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::size_t signature_count(const std::vector<fs::path>& files) {
  std::size_t count = 0;
  for (const fs::path& file : files) {
    const toml::table definitions = toml::parse_file(file.string());
    for (const char* group : {"ufuncs", "gufuncs"}) {  // a gufunc's signature is one module too
      if (const toml::table* entries = definitions[group].as_table()) {
        for (const auto& [name, entry] : *entries) {
          count += entry.as_table()->get_as<toml::array>("signatures")->size();
        }
      }
    }
  }
  return count;
}

std::vector<std::string> compile_samples_args(const fs::path& cache) {
  std::vector<std::string> args{"compile"};
  for (const fs::path& file : sample_files()) args.push_back(file.string());
  for (const char* option : {"--arch", "sm_80,sm_90", "--target", "cuda", "--cache-dir"}) {
    args.push_back(option);
  }
  args.push_back(cache.string());
  return args;
}

PrecompiledSamples::PrecompiledSamples()
    : cache(folder.path() / "cache"), first_run(run_jitvec(compile_samples_args(cache))) {}

const PrecompiledSamples& precompiled_samples() {
  static const PrecompiledSamples samples;
  return samples;
}

void copy_cache(const fs::path& from, const fs::path& to) {
  fs::copy(from, to, fs::copy_options::recursive);
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

void write_text(const fs::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

const Json& Json::operator[](const std::string& key) const {
  if (kind != Kind::object) throw std::runtime_error("JSON: not an object, looking up " + key);
  auto it = object.find(key);
  if (it == object.end()) throw std::runtime_error("JSON: no member " + key);
  return it->second;
}

Json parse_json(std::string_view text) { return JsonReader(text).document(); }

}  // namespace jitvec::test

#endif  // JITVEC_CLI_PATH
