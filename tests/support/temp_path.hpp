#pragma once
// Scratch file names for tests. ctest runs every test case in a process of its own, several at
// a time in one working directory, so a fixed name would let two cases (or two build trees
// sharing /tmp) write the same file.

#include <string>
#include <string_view>

namespace gcsnap::test {

/// Return "<stem>-<pid>-<n><suffix>" in the working directory: unique within the test run.
std::string temp_path(std::string_view stem, std::string_view suffix = ".snap");

/// A temp_path that is removed when it goes out of scope.
class TempFile {
 public:
  explicit TempFile(std::string_view stem, std::string_view suffix = ".snap") : path_(temp_path(stem, suffix)) {}
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

}  // namespace gcsnap::test
