// bench/startup_cpu.cpp: the warm start-up of a fresh process on the cpu target, by phase,
// for two builds of jitvec alternating (issue 9: the new code's warm start against the old's).
//
// A warm start is the path bench/gpu_startup.cpp times on the GPU, minus the GPU: an empty
// process constructs an Engine (cache settings, the cache folder's trust checks), loads the
// samples' gaussian_pdf definition, makes the loop's key (generated module source, compiler
// identity), reads and checks the disk-cache entry (file trust, checksum, ELF validation),
// dlopens the shared object and makes its first call. Only the public API (and one internal
// header both versions have) is used, so the same file builds against an old jitvec too, e.g.
// the old tree in .base/ with this CMakeLists.txt in a folder of its own:
//
//   cmake_minimum_required(VERSION 3.20)
//   project(base_tool CXX)
//   set(CMAKE_CXX_STANDARD 17)
//   set(JITVEC_BUILD_TESTS OFF CACHE BOOL "" FORCE)   # and _BENCH, _SAMPLES, _CLI
//   add_subdirectory(/path/to/.base jv)
//   add_executable(startup_old /path/to/bench/startup_cpu.cpp)
//   target_include_directories(startup_old PRIVATE /path/to/.base/src)
//   target_link_libraries(startup_old PRIVATE jitvec)
//
// and then:
//
//   jitvec_startup_cpu --compare OTHER_BINARY [--runs N] [--samples DIR]
//
// warms a private cache folder for each binary (one run each, which compiles), then runs the
// two binaries alternately N times each in fresh processes and prints the median of each
// phase for both and the difference. `--child CACHE_DIR DEFINITIONS` is one timed run (what
// the driver executes); it prints one line of `phase=milliseconds`. Phases:
//   exec        from the driver's fork to the child's main (loading libjitvec.so, static init)
//   compiler    finding the host compiler and asking it for its identity (two subprocesses,
//               part of the cpu target's key; the GPU's key asks no process): timed apart so
//               that `key` compares what the GPU start-up does (src/cpu/host_compiler.hpp is
//               the one internal header, in both builds)
//   engine      Engine construction (cache settings, the cache folder's checks)
//   definitions load_definitions(gaussian_pdf.toml) + ufunc("gaussian_pdf")
//   key         precompile(cpu) minus the two below: loop choice, helper closure, the module
//               source, the key, and whatever else precompile does outside them
//   disk_read   the disk-cache lookup of a hit (EngineStats::disk_read_seconds)
//   load        dlopen of the shared object (EngineStats::load_seconds)
//   call        the first call on 1024 host floats, result copied into a std::vector
//   total       engine + definitions + precompile + call (exec and compiler not included)
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <jitvec/jitvec.hpp>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/host_compiler.hpp"

namespace {

constexpr const char* kMarker = "jitvec-startup-cpu";
constexpr const char* kPhases[] = {"exec", "compiler", "engine", "definitions", "key",
                                   "disk_read", "load", "call", "total"};

double now_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

int run_child(const std::string& cache_dir, const std::string& definitions, double forked_ms) {
  const double main_ms = now_ms();
  double phase = main_ms;
  auto lap = [&phase] {
    const double t = now_ms(), elapsed = t - phase;
    phase = t;
    return elapsed;
  };
  jitvec::cpu::host_compiler();
  const double compiler_ms = lap();
  jitvec::EngineOptions options;
  options.cache.dir = std::filesystem::path(cache_dir);
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  options.cache.disabled = false;
  jitvec::Engine engine(options);
  const double engine_ms = lap();
  engine.load_definitions(definitions);
  const jitvec::Ufunc gaussian_pdf = engine.ufunc("gaussian_pdf");
  const double definitions_ms = lap();
  gaussian_pdf.precompile(0, jitvec::Target::cpu);
  const double precompile_ms = lap();
  std::vector<float> x(1024);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = -3.0f + 6.0f * static_cast<float>(i) / 1024.0f;
  lap();  // the inputs are not part of start-up
  const std::vector<float> y =
      gaussian_pdf(x, 0.0f, 1.0f, jitvec::target(jitvec::Target::cpu)).to_vector<float>();
  const double call_ms = lap();

  int wrong = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(-0.5 * double(x[i]) * double(x[i])) / 2.5066282746310002;
    if (!(std::fabs(y[i] - want) <= 1e-6 + 1e-5 * want)) ++wrong;
  }
  const jitvec::EngineStats stats = engine.stats();
  const double disk_read_ms = stats.disk_read_seconds * 1e3, load_ms = stats.load_seconds * 1e3;
  std::printf("%s exec=%.4f compiler=%.4f engine=%.4f definitions=%.4f key=%.4f disk_read=%.4f load=%.4f "
              "call=%.4f total=%.4f compiles=%llu wrong=%d\n",
              kMarker, main_ms - forked_ms, compiler_ms, engine_ms, definitions_ms,
              precompile_ms - disk_read_ms - load_ms, disk_read_ms, load_ms, call_ms,
              engine_ms + definitions_ms + precompile_ms + call_ms,
              static_cast<unsigned long long>(stats.compiles), wrong);
  return wrong == 0 ? 0 : 1;
}

using Figures = std::map<std::string, double>;

// Runs `program --child cache definitions T` and parses its line.
Figures run_once(const std::string& program, const std::string& cache_dir,
                 const std::string& definitions) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  char forked[64];
  std::snprintf(forked, sizeof(forked), "%.6f", now_ms());
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execl(program.c_str(), program.c_str(), "--child", cache_dir.c_str(), definitions.c_str(),
          forked, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_fds[1]);
  std::string output;
  char buffer[4096];
  for (ssize_t got; (got = read(pipe_fds[0], buffer, sizeof(buffer))) > 0;) {
    output.append(buffer, static_cast<std::size_t>(got));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  const auto marker = output.find(kMarker);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || marker == std::string::npos) {
    throw std::runtime_error(program + " --child failed (status " + std::to_string(status) +
                             "); it printed:\n" + output);
  }
  std::istringstream line(output.substr(marker, output.find('\n', marker) - marker));
  Figures figures;
  std::string token;
  line >> token;
  while (line >> token) {
    const auto equals = token.find('=');
    if (equals != std::string::npos) {
      figures[token.substr(0, equals)] = std::stod(token.substr(equals + 1));
    }
  }
  return figures;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string make_temporary_folder() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "jitvec-startup-cpu-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

int run_compare(const std::string& other, int runs, const std::string& samples) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string definitions = samples + "/gaussian_pdf.toml";
  const std::vector<std::string> programs = {self, other};
  std::vector<std::string> caches;
  for (std::size_t p = 0; p < programs.size(); ++p) caches.push_back(make_temporary_folder());
  std::vector<std::map<std::string, std::vector<double>>> columns(programs.size());
  int failures = 0;
  try {
    for (std::size_t p = 0; p < programs.size(); ++p) run_once(programs[p], caches[p], definitions);
    for (int run = 0; run < runs; ++run) {
      for (std::size_t p = 0; p < programs.size(); ++p) {
        const Figures figures = run_once(programs[p], caches[p], definitions);
        if (figures.at("compiles") != 0) {
          std::fprintf(stderr, "%s compiled on a warm start\n", programs[p].c_str());
          ++failures;
        }
        for (const auto& [key, value] : figures) columns[p][key].push_back(value);
      }
    }
  } catch (...) {
    for (const auto& cache : caches) std::filesystem::remove_all(cache);
    throw;
  }
  for (const auto& cache : caches) std::filesystem::remove_all(cache);
  std::printf("warm start-up on the cpu target, median of %d fresh processes each, alternating "
              "(ms)\n  A = %s\n  B = %s\n%-12s %9s %9s %9s\n",
              runs, self.c_str(), other.c_str(), "phase", "A", "B", "A - B");
  for (const char* phase : kPhases) {
    const double a = median(columns[0][phase]), b = median(columns[1][phase]);
    std::printf("%-12s %9.4f %9.4f %+9.4f\n", phase, a, b, a - b);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 5 && std::strcmp(argv[1], "--child") == 0) {
      return run_child(argv[2], argv[3], std::stod(argv[4]));
    }
    std::string other, samples;
    int runs = 21;
    for (int i = 1; i + 1 < argc; i += 2) {
      if (std::strcmp(argv[i], "--compare") == 0) {
        other = argv[i + 1];
      } else if (std::strcmp(argv[i], "--runs") == 0) {
        runs = std::max(1, std::atoi(argv[i + 1]));
      } else if (std::strcmp(argv[i], "--samples") == 0) {
        samples = argv[i + 1];
      } else {
        other.clear();
        break;
      }
    }
    if (other.empty()) {
      std::fprintf(stderr,
                   "usage: %s --compare OTHER_BINARY [--runs N] [--samples DIR]\n"
                   "(OTHER_BINARY: this file built against another jitvec; see bench/NOTES.md)\n",
                   argv[0]);
      return 2;
    }
#ifdef JITVEC_SOURCE_DIR
    if (samples.empty()) samples = std::string(JITVEC_SOURCE_DIR) + "/samples";
#endif
    if (samples.empty()) samples = "samples";
    return run_compare(other, runs, samples);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jitvec_startup_cpu: %s\n", e.what());
    return 1;
  }
}
