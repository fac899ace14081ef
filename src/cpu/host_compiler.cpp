#include "cpu/host_compiler.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <signal.h>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include <cctype>

#include "compile/compile_time_limit.hpp"
#include "core/log.hpp"
#include "cpu/subprocess.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::cpu {

namespace {

namespace fs = std::filesystem;

// -O3 without -ffast-math: results must match NVRTC's IEEE defaults (no reassociation, NaN and
// infinity honoured). -ffp-contract=off keeps a * b + c unfused, so GCC and Clang (whose
// defaults differ) give the same bits and __fmul_rn really rounds. -fno-math-errno and
// -fno-trapping-math only drop errno and trap bookkeeping, which CUDA does not have either.
// No -march=native: cached objects must load on any machine of the same target. On x86-64
// CPUs with AVX2 and FMA the loops are built for x86-64-v3 (v4 with AVX-512): wider vectors;
// that flag is part of the cache key, so a v2 machine never loads a v3 object. With glibc on
// x86-64 the vectorizer may call libmvec's SIMD expf/sinf/... (declared in the prelude).
// -Wl,-z,defs turns a call to a declared but undefined function into a compile error that names
// it, instead of a load error. No source excerpts in messages (GCC's
// -fno-diagnostics-show-caret, Clang's -fno-caret-diagnostics, added in resolve_host_compiler):
// the compiler would print the line of whatever file has the `#line` name in its working
// folder; codegen::annotate_compile_log() adds the user's line and the caret instead.
const char* const kBaseFlags[] = {
    "-std=c++17",         "-O3",                 "-fPIC",         "-shared",
    "-fno-math-errno",    "-fno-trapping-math",  "-ffp-contract=off",
    "-fvisibility=hidden", "-Wl,-z,defs",
};
const char* const kCompilerNames[] = {"c++", "g++", "clang++"};
constexpr const char* kNoCompilerMessage =
    "no host C++ compiler: set JITVEC_CXX or install g++; the cpu and parallel targets compile "
    "ufuncs with it";

bool is_executable_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

/// The first executable `name` in the ':'-separated `path_list` (an empty entry is the current
/// folder, as POSIX says), or nullopt.
std::optional<std::string> find_on_path(const std::string& name, const std::string& path_list) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = path_list.find(':', start);
    std::string folder = path_list.substr(start, colon == std::string::npos ? std::string::npos
                                                                             : colon - start);
    if (folder.empty()) folder = ".";
    std::string candidate = folder + "/" + name;
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string::npos) return std::nullopt;
    start = colon + 1;
  }
}

std::vector<std::string> split_on_white_space(const std::string& text) {
  std::istringstream stream(text);
  return {std::istream_iterator<std::string>(stream), std::istream_iterator<std::string>()};
}

/// The compiler's output for one informational flag, trimmed to its first line.
std::string first_output_line(const std::string& compiler, const char* flag) {
  const ProcessResult result = run_program({compiler, flag});
  if (!result.succeeded()) {
    throw TargetError(fmt::format(
        "the host C++ compiler '{}' does not work: '{} {}' {}{}{}", compiler, compiler, flag,
        result.signal != 0 ? fmt::format("was killed by signal {}", result.signal)
                           : fmt::format("exited with status {}", result.exit_status),
        result.output.empty() ? "" : ":\n", result.output));
  }
  const std::string& text = result.output;
  std::size_t end = text.find('\n');
  if (end == std::string::npos) end = text.size();
  while (end > 0 && (text[end - 1] == '\r' || text[end - 1] == ' ')) --end;
  return text.substr(0, end);
}

std::string find_compiler(const HostCompilerSearch& search) {
  if (search.cxx && !search.cxx->empty()) {
    const std::string& wanted = *search.cxx;
    if (wanted.find('/') != std::string::npos) {
      if (is_executable_file(wanted)) return wanted;
      throw TargetError(fmt::format(
          "JITVEC_CXX is '{}', which is not an executable file; set it to a C++ compiler (a path, "
          "or a name on PATH) or unset it to use c++ from PATH",
          wanted));
    }
    if (auto found = find_on_path(wanted, search.path)) return *found;
    throw TargetError(fmt::format(
        "JITVEC_CXX is '{}', which was not found on PATH; set it to a C++ compiler (a path, or a "
        "name on PATH) or unset it to use c++ from PATH",
        wanted));
  }
  for (const char* name : kCompilerNames) {
    if (auto found = find_on_path(name, search.path)) return *found;
  }
  if (!search.build_compiler.empty() && is_executable_file(search.build_compiler)) {
    return search.build_compiler;
  }
  throw TargetError(kNoCompilerMessage);
}

constexpr std::string_view kScratchPrefix = "jitvec-cxx-";
// A scratch folder lives for one compile, which the time limit bounds; one this old whose
// process cannot be told (an old name, a reused pid) is stale all the same.
constexpr auto kStaleScratchAge = std::chrono::hours(24);

fs::path scratch_parent() {
  std::error_code error;
  fs::path parent = fs::temp_directory_path(error);
  return error ? fs::path("/tmp") : parent;
}

/// Whether the process `pid` is gone (so its scratch folder is stale).
bool process_gone(pid_t pid) { return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH; }

/// A private folder made with mkdtemp, "jitvec-cxx-<pid>-XXXXXX", removed with everything in
/// it when this goes. The pid lets a later process see that a killed one left it behind.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern =
        (scratch_parent() / fmt::format("{}{}-XXXXXX", kScratchPrefix, ::getpid())).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error(fmt::format("could not make a temporary folder '{}': {}", pattern,
                              std::strerror(errno)));
    }
    path_ = pattern;
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  ~TemporaryFolder() {
    std::error_code ignored;  // nothing useful can be done about a folder that will not go
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_file(const fs::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) {
    throw Error(fmt::format("could not write '{}': {}", path.string(), std::strerror(errno)));
  }
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    throw Error(fmt::format("could not read '{}': {}", path.string(), std::strerror(errno)));
  }
  return contents;
}

/// A file name made of the ufunc's letters, digits and underscores.
std::string source_file_name(const std::string& ufunc_name) {
  std::string stem;
  for (char c : ufunc_name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_';
    if (keep && stem.size() < 64) stem += c;
  }
  return (stem.empty() ? std::string("ufunc") : stem) + ".cpp";
}

/// `text` without the scratch folder's path and the linker's temporary object names, so that
/// messages name no temporary file (the source's own lines carry `#line` names).
std::string without_scratch_names(std::string text, const fs::path& folder) {
  const std::string prefix = folder.string() + "/";
  for (std::size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at)) {
    text.erase(at, prefix.size());
  }
  // Each "<path>/ccXXXXXX.o" (GCC's temporary objects) becomes "<object>". Written out rather
  // than with std::regex: <regex> instantiates locale facets in this library, which crashed
  // (SIGSEGV in codecvt) in a Python process whose other extensions loaded another libstdc++.
  auto in_path = [](char c) {
    return !std::isspace(static_cast<unsigned char>(c)) && c != ':' && c != '\'' && c != '"';
  };
  std::string out;
  std::size_t copied = 0;
  for (std::size_t at = text.find("/cc"); at != std::string::npos; at = text.find("/cc", at + 1)) {
    std::size_t end = at + 3;
    while (end < text.size() && end < at + 9 && std::isalnum(static_cast<unsigned char>(text[end]))) ++end;
    if (end != at + 9 || text.compare(end, 2, ".o") != 0) continue;
    std::size_t begin = at;
    while (begin > copied && in_path(text[begin - 1])) --begin;
    out.append(text, copied, begin - copied);
    out += "<object>";
    copied = end + 2;
  }
  out.append(text, copied, std::string::npos);
  return out;
}

}  // namespace

HostCompilerSearch HostCompilerSearch::from_environment() {
  HostCompilerSearch search;
  if (const char* cxx = std::getenv("JITVEC_CXX")) search.cxx = cxx;
  if (const char* flags = std::getenv("JITVEC_CXXFLAGS")) search.cxxflags = flags;
  if (const char* path = std::getenv("PATH")) search.path = path;
#ifdef JITVEC_DEFAULT_CXX
  search.build_compiler = JITVEC_DEFAULT_CXX;
#endif
  return search;
}

namespace {

// Whether the file's own signature says which compiler runs: an ELF executable that is not a
// compiler wrapper. A script, or ccache/sccache/distcc (whose file stays the same when the
// compiler behind it is upgraded), is asked every time.
bool signature_names_the_compiler(const fs::path& resolved) {
  const std::string name = resolved.filename().string();
  for (const char* wrapper : {"ccache", "sccache", "distcc", "icecc", "buildcache"}) {
    if (name.find(wrapper) != std::string::npos) return false;
  }
  std::ifstream file(resolved, std::ios::binary);
  char magic[4] = {};
  return file.read(magic, sizeof magic) && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' &&
         magic[3] == 'F';
}

}  // namespace

std::string compiler_file_signature(const std::string& path) {
  std::error_code error;
  const fs::path resolved = fs::canonical(path, error);
  struct stat info {};
  if (error || ::stat(resolved.c_str(), &info) != 0 || !S_ISREG(info.st_mode) ||
      !signature_names_the_compiler(resolved)) {
    return {};
  }
  // The name it is run by too: GCC's `--version` line starts with it ("c++ (Debian ...)").
  return fmt::format("{} -> {} dev {} inode {} size {} mtime {}.{:09} ctime {}.{:09}", path,
                     resolved.string(),
                     static_cast<unsigned long long>(info.st_dev),
                     static_cast<unsigned long long>(info.st_ino),
                     static_cast<long long>(info.st_size), static_cast<long long>(info.st_mtim.tv_sec),
                     static_cast<long>(info.st_mtim.tv_nsec), static_cast<long long>(info.st_ctim.tv_sec),
                     static_cast<long>(info.st_ctim.tv_nsec));
}

HostCompiler resolve_host_compiler(const HostCompilerSearch& search, SelfReportMemo* memo) {
  HostCompiler compiler;
  compiler.path = find_compiler(search);
  std::error_code error;
  const fs::path resolved = fs::canonical(compiler.path, error);
  const std::string signature = memo ? compiler_file_signature(compiler.path) : std::string();
  std::optional<CompilerSelfReport> report;
  if (!signature.empty()) report = memo->recall(signature);
  if (!report) {
    report = CompilerSelfReport{first_output_line(compiler.path, "--version"),
                                first_output_line(compiler.path, "-dumpmachine")};
    if (!signature.empty()) memo->remember(signature, *report);
  }
  const std::string& version = report->version;
  const std::string& target = report->target;
  compiler.identity =
      fmt::format("{}; target {}; {}", version, target, error ? compiler.path : resolved.string());
  compiler.flags.assign(std::begin(kBaseFlags), std::end(kBaseFlags));
  compiler.flags.push_back(version.find("clang") != std::string::npos
                               ? "-fno-caret-diagnostics"
                               : "-fno-diagnostics-show-caret");
#if defined(__x86_64__)
  if (target.rfind("x86_64", 0) == 0) {
    const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi2");
    const bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                    __builtin_cpu_supports("avx512vl");
    if (v4) {
      compiler.flags.push_back("-march=x86-64-v4");
    } else if (v3) {
      compiler.flags.push_back("-march=x86-64-v3");
    }
  }
#endif
  for (std::string& flag : split_on_white_space(search.cxxflags)) {
    compiler.flags.push_back(std::move(flag));
  }
  detail::log().debug("host C++ compiler: {} ({})", compiler.path, compiler.identity);
  return compiler;
}

const HostCompiler& host_compiler(SelfReportMemo* memo) {
  static const HostCompiler compiler =
      resolve_host_compiler(HostCompilerSearch::from_environment(), memo);
  return compiler;
}

std::size_t remove_stale_scratch_folders(const fs::path& parent) {
  std::size_t removed = 0;
  std::error_code error;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(parent, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, kScratchPrefix.size(), kScratchPrefix) != 0) continue;
    struct stat info {};
    // Only the user's own folders, never through a link.
    if (::lstat(it->path().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) ||
        info.st_uid != ::geteuid()) {
      continue;
    }
    const std::string rest = name.substr(kScratchPrefix.size());
    const std::size_t dash = rest.find('-');
    pid_t owner = 0;
    if (dash != std::string::npos && dash > 0 && dash <= 9 &&
        rest.find_first_not_of("0123456789") == dash) {
      owner = static_cast<pid_t>(std::stol(rest.substr(0, dash)));
    }
    std::error_code time_error;
    const auto modified = fs::last_write_time(it->path(), time_error);
    const bool old = !time_error && now - modified > kStaleScratchAge;
    if (owner == ::getpid() || !(process_gone(owner) || old)) continue;
    std::error_code remove_error;
    if (fs::remove_all(it->path(), remove_error) > 0 && !remove_error) {
      ++removed;
      detail::log().debug("removed the stale host compiler folder {}", it->path().string());
    }
  }
  return removed;
}

std::string compile_shared_object(const std::string& source, const std::string& ufunc_name,
                                  const HostCompiler& compiler) {
  static std::once_flag tidied;
  std::call_once(tidied, [] { remove_stale_scratch_folders(scratch_parent()); });
  const auto started = std::chrono::steady_clock::now();
  TemporaryFolder folder;
  const fs::path source_path = folder.path() / source_file_name(ufunc_name);
  const fs::path object_path = folder.path() / "ufunc.so";
  write_file(source_path, source);

  std::vector<std::string> command{compiler.path};
  command.insert(command.end(), compiler.flags.begin(), compiler.flags.end());
  command.insert(command.end(), {"-o", object_path.string(), source_path.string()});
#if defined(__x86_64__) && defined(__GLIBC__)
  command.push_back("-lmvec");  // libmvec: the SIMD math the prelude declares
#endif
  command.push_back("-lm");
  const std::optional<std::chrono::duration<double>> limit = compile::compile_time_limit();
  // The compiler's own temporary files (GCC's cc*.s, cc*.o, cc*.res; Clang's) go in the
  // scratch folder too, so that whatever stops this compile, the folder holds all of them and
  // goes with them (remove_stale_scratch_folders once the process is gone).
  const fs::path compiler_temporary = folder.path() / "tmp";
  if (::mkdir(compiler_temporary.c_str(), 0700) != 0) {
    throw Error(fmt::format("could not make a temporary folder '{}': {}",
                            compiler_temporary.string(), std::strerror(errno)));
  }
  ProcessResult result = run_program(command, limit, {"TMPDIR=" + compiler_temporary.string()});
  result.output = without_scratch_names(std::move(result.output), folder.path());
  const std::string shown_command = without_scratch_names(format_command(command), folder.path());
  if (result.timed_out) {
    throw CompileError(
        fmt::format("host compiler did not finish compiling ufunc '{}' within {:g} s and was "
                    "stopped (JITVEC_COMPILE_TIMEOUT sets the limit in seconds, 0 for none)"
                    "{}{}\ncommand: {}",
                    ufunc_name, limit->count(), result.output.empty() ? "" : ":\n",
                    result.output, shown_command),
        ufunc_name, result.output, compiler.flags);
  }
  if (!result.succeeded()) {
    const std::string how = result.signal != 0
                                ? fmt::format("killed by signal {}", result.signal)
                                : fmt::format("exit status {}", result.exit_status);
    throw CompileError(fmt::format("host compiler failed to compile ufunc '{}' ({}):\n{}\ncommand: {}",
                                   ufunc_name, how, result.output, shown_command),
                       ufunc_name, result.output, compiler.flags);
  }
  std::string object = read_file(object_path);
  if (object.empty()) {
    throw CompileError(fmt::format("host compiler reported success for ufunc '{}' but wrote no "
                                   "object:\n{}\ncommand: {}",
                                   ufunc_name, result.output, shown_command),
                       ufunc_name, result.output, compiler.flags);
  }
  const double milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  detail::log().debug("host compiler built ufunc '{}' in {:.1f} ms ({} bytes)", ufunc_name,
                      milliseconds, object.size());
  if (!result.output.empty()) {
    detail::log().debug("host compiler output for ufunc '{}':\n{}", ufunc_name, result.output);
  }
  return object;
}

}  // namespace jitvec::cpu
