// src/cache/compiler_memo.hpp: the host compiler's self-report, remembered in the cache folder.
//
// The cpu targets' cache keys name the host compiler exactly (cpu/host_compiler.hpp): the
// first lines of `c++ --version` and `c++ -dumpmachine`. Asking costs two processes, 5-20 ms,
// more than the rest of a warm first call, so the answer is remembered in the writable cache
// folder, in `compilers/<XXH3-64 of the signature>`, a text file:
//
//     jitvec compiler self-report 1
//     <the compiler file's signature: path, device, inode, size, mtime, ctime>
//     <version line>
//     <target line>
//
// A file whose first two lines are not exactly these (another format, a hash collision, a
// changed compiler: its signature differs) is not used and is replaced. Only regular files the
// user owns are read (never through a link); writes are atomic (atomic_file.hpp) and never
// throw. Cache maintenance (`jitvec cache clear`) removes the folder with the entries.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "cpu/host_compiler.hpp"

namespace jitvec::cache {

/// The name of the memo's subfolder of a cache folder.
inline constexpr const char* kCompilerMemoFolder = "compilers";

class FolderSelfReportMemo final : public cpu::SelfReportMemo {
 public:
  /// `cache_folder`: the writable cache folder (trusted by DiskCache); the memo lives in its
  /// `compilers/` subfolder, made on the first remember().
  explicit FolderSelfReportMemo(std::filesystem::path cache_folder);

  std::optional<cpu::CompilerSelfReport> recall(const std::string& signature) override;
  void remember(const std::string& signature, const cpu::CompilerSelfReport& report) override;

  /// The file `signature`'s report is kept in.
  std::filesystem::path file_for(const std::string& signature) const;

 private:
  std::filesystem::path folder_;
};

/// Removes the memo's files (and temporary files) the user owns from `cache_folder`, and its
/// subfolder when that leaves it empty: `jitvec cache clear`. Never throws.
void forget_self_reports(const std::filesystem::path& cache_folder);

}  // namespace jitvec::cache
