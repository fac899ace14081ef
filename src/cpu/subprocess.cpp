#include "cpu/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "jitvec/errors.hpp"

extern char** environ;

namespace jitvec::cpu {

namespace {

/// Closes a file descriptor when it goes out of scope.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

[[noreturn]] void throw_cannot_start(const std::string& program, int error) {
  throw TargetError(fmt::format("could not start '{}': {}", program, std::strerror(error)));
}

// ---- in the forked processes: async-signal-safe calls only, no allocation ----

void kill_own_group(int) { ::kill(0, SIGKILL); }

/// Writes `error` to the exec-error pipe and ends the process.
[[noreturn]] void report_and_exit(int error_fd, int error) {
  while (::write(error_fd, &error, sizeof error) < 0 && errno == EINTR) {
  }
  ::_exit(127);
}

/// The watchdog: leads its own process group, dies (killing the group) with its parent, runs
/// the program as its child and ends as the program did.
[[noreturn]] void run_watchdog(pid_t parent, int output_fd, int error_fd, char* const* argv,
                               char* const* envp) {
  ::setpgid(0, 0);
  struct sigaction on_parent_death {};
  on_parent_death.sa_handler = kill_own_group;
  ::sigaction(SIGTERM, &on_parent_death, nullptr);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) report_and_exit(error_fd, errno);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect

  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0 || ::dup2(null_fd, STDIN_FILENO) < 0 || ::dup2(output_fd, STDOUT_FILENO) < 0 ||
      ::dup2(output_fd, STDERR_FILENO) < 0) {
    report_and_exit(error_fd, errno);
  }
  const pid_t program = ::fork();
  if (program < 0) report_and_exit(error_fd, errno);
  if (program == 0) {
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    ::sigaction(SIGTERM, &default_action, nullptr);
    ::execve(argv[0], argv, envp);
    report_and_exit(error_fd, errno);
  }
  ::close(error_fd);  // the program holds the only copy now, closed by a successful exec
  int status = 0;
  while (::waitpid(program, &status, 0) < 0) {
    if (errno != EINTR) ::_exit(127);
  }
  if (WIFSIGNALED(status)) {
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    ::sigaction(WTERMSIG(status), &default_action, nullptr);
    ::kill(::getpid(), WTERMSIG(status));
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

// ---- in the caller ----

/// Reads the pipe until every writer has closed it, killing the child's process group if the
/// deadline passes first.
void collect_output(int fd, pid_t group, std::optional<std::chrono::steady_clock::time_point> deadline,
                    ProcessResult& result) {
  char buffer[65536];
  for (;;) {
    int wait_ms = -1;
    if (deadline && !result.timed_out) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      wait_ms = static_cast<int>(std::max<std::int64_t>(0, std::min<std::int64_t>(left.count(), 1 << 30)));
    }
    pollfd ready{fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, wait_ms);
    if (polled < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (polled == 0) {  // out of time
      result.timed_out = true;
      ::kill(-group, SIGKILL);
      continue;
    }
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got > 0) {
      result.output.append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
}

/// The current environment with the assignments of `changes` in place of (or added to) its
/// variables of those names, as execve takes it. The strings stay owned by `environ` and
/// `changes`.
std::vector<char*> program_environment(const std::vector<std::string>& changes) {
  auto name_of = [](std::string_view assignment) {
    return assignment.substr(0, assignment.find('='));
  };
  std::vector<char*> variables;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string_view name = name_of(*variable);
    const bool changed = std::any_of(changes.begin(), changes.end(), [&](const std::string& c) {
      return name_of(c) == name;
    });
    if (!changed) variables.push_back(*variable);
  }
  for (const std::string& change : changes) variables.push_back(const_cast<char*>(change.c_str()));
  variables.push_back(nullptr);
  return variables;
}

}  // namespace

ProcessResult run_program(const std::vector<std::string>& argv,
                          std::optional<std::chrono::duration<double>> time_limit,
                          const std::vector<std::string>& environment) {
  if (argv.empty()) throw Error("run_program: empty argument vector");
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (time_limit) {
    deadline = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(*time_limit);
  }
  int output_fds[2];
  if (::pipe2(output_fds, O_CLOEXEC) != 0) throw_cannot_start(argv[0], errno);
  FileDescriptor output_read(output_fds[0]);
  FileDescriptor output_write(output_fds[1]);
  int error_fds[2];
  if (::pipe2(error_fds, O_CLOEXEC) != 0) throw_cannot_start(argv[0], errno);
  FileDescriptor error_read(error_fds[0]);
  FileDescriptor error_write(error_fds[1]);

  // Everything the forked processes need is made here: they may not allocate.
  std::vector<char*> arguments;
  arguments.reserve(argv.size() + 1);
  for (const std::string& argument : argv) arguments.push_back(const_cast<char*>(argument.c_str()));
  arguments.push_back(nullptr);
  std::vector<char*> variables = program_environment(environment);
  const pid_t parent = ::getpid();

  const pid_t watchdog = ::fork();
  if (watchdog < 0) throw_cannot_start(argv[0], errno);
  if (watchdog == 0) {
    run_watchdog(parent, output_write.get(), error_write.get(), arguments.data(), variables.data());
  }
  ::setpgid(watchdog, watchdog);  // as the watchdog does, so a kill of the group cannot miss
  output_write.reset();  // the children hold the only writing ends now
  error_write.reset();

  // Four bytes of errno if the program could not be started; end of file once it was.
  int start_error = 0;
  ssize_t got = 0;
  while ((got = ::read(error_read.get(), &start_error, sizeof start_error)) < 0 && errno == EINTR) {
  }
  ProcessResult result;
  if (got != static_cast<ssize_t>(sizeof start_error)) {
    start_error = 0;
    collect_output(output_read.get(), watchdog, deadline, result);
  }
  int status = 0;
  while (::waitpid(watchdog, &status, 0) < 0) {
    if (errno != EINTR) {
      throw Error(fmt::format("waiting for '{}' failed: {}", argv[0], std::strerror(errno)));
    }
  }
  if (start_error != 0) throw_cannot_start(argv[0], start_error);
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

std::string format_command(const std::vector<std::string>& argv) {
  std::string command;
  for (const std::string& argument : argv) {
    if (!command.empty()) command += ' ';
    const bool plain = !argument.empty() &&
                       argument.find_first_of(" \t\n'\"\\$`!*?[]{}()<>|&;#~") == std::string::npos;
    if (plain) {
      command += argument;
    } else {
      command += '\'';
      for (char c : argument) command += c == '\'' ? std::string("'\\''") : std::string(1, c);
      command += '\'';
    }
  }
  return command;
}

}  // namespace jitvec::cpu
