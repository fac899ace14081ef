#include "cache/file_trust.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace jitvec::cache {
namespace {

constexpr mode_t kGroupOrOtherWrite = S_IWGRP | S_IWOTH;

unsigned permission_bits(const struct stat& info) {
  return static_cast<unsigned>(info.st_mode & 07777);
}

std::optional<std::string> owner_distrust(const struct stat& info) {
  const uid_t me = ::geteuid();
  if (info.st_uid == me || info.st_uid == 0) return std::nullopt;
  if (me == 0) {
    return fmt::format("it is owned by user {}, and root uses only its own folders", info.st_uid);
  }
  return fmt::format("it is owned by user {}, not by the current user {} or root", info.st_uid,
                     me);
}

std::string errno_text(int error) { return std::generic_category().message(error); }

}  // namespace

std::optional<std::string> folder_distrust(const struct stat& info) {
  if (!S_ISDIR(info.st_mode)) return std::string("it is not a folder");
  if (auto why = owner_distrust(info)) return why;
  if ((info.st_mode & kGroupOrOtherWrite) != 0 && (info.st_mode & S_ISVTX) == 0) {
    return fmt::format("group or others can write to it and it is not sticky (mode {:04o})",
                       permission_bits(info));
  }
  return std::nullopt;
}

std::optional<std::string> folder_chain_distrust(const std::filesystem::path& folder) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(folder, error);
  if (error) return fmt::format("cannot find its absolute path: {}", error.message());
  // The links on the way as written: each must be one only the user or root can change.
  std::filesystem::path partial;
  for (const auto& part : absolute) {
    partial /= part;
    struct stat link_info {};
    if (::lstat(partial.c_str(), &link_info) != 0) {
      return fmt::format("cannot inspect {}: {}", partial.string(), errno_text(errno));
    }
    if (S_ISLNK(link_info.st_mode)) {
      if (auto why = owner_distrust(link_info)) {
        return fmt::format("the symbolic link {} on its path is refused: {}", partial.string(),
                           *why);
      }
    }
  }
  // Then the folders themselves, links resolved, from the folder up to /.
  const std::filesystem::path real = std::filesystem::canonical(absolute, error);
  if (error) return fmt::format("cannot resolve its path: {}", error.message());
  for (std::filesystem::path current = real;; current = current.parent_path()) {
    struct stat info {};
    if (::stat(current.c_str(), &info) != 0) {
      return fmt::format("cannot inspect {}: {}", current.string(), errno_text(errno));
    }
    if (auto why = folder_distrust(info)) {
      if (current == real) return why;
      return fmt::format("the folder {} above it is refused: {}", current.string(), *why);
    }
    if (current == current.root_path() || !current.has_relative_path()) break;
  }
  return std::nullopt;
}

std::optional<std::string> entry_file_distrust(const struct stat& info) {
  if (!S_ISREG(info.st_mode)) return std::string("it is not a regular file");
  if (auto why = owner_distrust(info)) return why;
  if ((info.st_mode & kGroupOrOtherWrite) != 0) {
    return fmt::format("group or others can write to it (mode {:04o})", permission_bits(info));
  }
  return std::nullopt;
}

}  // namespace jitvec::cache
