#include "cpu/subprocess.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

/// posix_spawn_file_actions_t, destroyed when it goes out of scope.
class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

[[noreturn]] void throw_cannot_start(const std::string& program, int error) {
  throw TargetError(fmt::format("could not start '{}': {}", program, std::strerror(error)));
}

}  // namespace

ProcessResult run_program(const std::vector<std::string>& argv) {
  if (argv.empty()) throw Error("run_program: empty argument vector");
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw_cannot_start(argv[0], errno);
  FileDescriptor read_end(pipe_fds[0]);
  FileDescriptor write_end(pipe_fds[1]);

  // The pipe's ends are close-on-exec; dup2 makes uncloseable copies as the child's 1 and 2.
  SpawnActions actions;
  if (int error = posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null",
                                                   O_RDONLY, 0);
      error != 0) {
    throw_cannot_start(argv[0], error);
  }
  if (int error = posix_spawn_file_actions_adddup2(actions.get(), write_end.get(), STDOUT_FILENO);
      error != 0) {
    throw_cannot_start(argv[0], error);
  }
  if (int error = posix_spawn_file_actions_adddup2(actions.get(), write_end.get(), STDERR_FILENO);
      error != 0) {
    throw_cannot_start(argv[0], error);
  }

  std::vector<char*> arguments;
  arguments.reserve(argv.size() + 1);
  for (const std::string& argument : argv) arguments.push_back(const_cast<char*>(argument.c_str()));
  arguments.push_back(nullptr);

  pid_t pid = 0;
  if (int error = ::posix_spawn(&pid, argv[0].c_str(), actions.get(), nullptr, arguments.data(),
                                environ);
      error != 0) {
    throw_cannot_start(argv[0], error);
  }
  write_end.reset();  // the child holds the only writing end now: EOF comes when it exits

  ProcessResult result;
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(read_end.get(), buffer, sizeof buffer);
    if (got > 0) {
      result.output.append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      throw Error(fmt::format("waiting for '{}' failed: {}", argv[0], std::strerror(errno)));
    }
  }
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
