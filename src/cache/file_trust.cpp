#include "cache/file_trust.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace jitvec::cache {
namespace {

constexpr mode_t kGroupOrOtherWrite = S_IWGRP | S_IWOTH;

unsigned permission_bits(const struct stat& info) {
  return static_cast<unsigned>(info.st_mode & 07777);
}

}  // namespace

std::optional<std::string> folder_distrust(const struct stat& info) {
  if (!S_ISDIR(info.st_mode)) return std::string("it is not a folder");
  if ((info.st_mode & kGroupOrOtherWrite) != 0 && (info.st_mode & S_ISVTX) == 0) {
    return fmt::format("group or others can write to it and it is not sticky (mode {:04o})",
                       permission_bits(info));
  }
  return std::nullopt;
}

std::optional<std::string> entry_file_distrust(const struct stat& info) {
  if (!S_ISREG(info.st_mode)) return std::string("it is not a regular file");
  if (info.st_uid != geteuid() && info.st_uid != 0) {
    return fmt::format("it is owned by user {}, not by the current user {} or root", info.st_uid,
                       geteuid());
  }
  if ((info.st_mode & kGroupOrOtherWrite) != 0) {
    return fmt::format("group or others can write to it (mode {:04o})", permission_bits(info));
  }
  return std::nullopt;
}

}  // namespace jitvec::cache
