#pragma once
// A file a command writes in one go (an export, a report): buffered, written next to its final
// name and renamed into place by commit(), so a failed or interrupted write never leaves a
// half file under the name the user asked for. "-" writes to standard output.

#include <cstdio>
#include <string>
#include <string_view>

namespace gcsnap::cli {

class OutputFile {
 public:
  /// Open PATH for writing (its temporary sibling "PATH.tmp-<pid>"); throws CliError naming
  /// PATH when it cannot be created.
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= kFlushAt) flush();
  }
  /// Flush, close and rename into place; throws CliError naming the path on any write error.
  void commit();
  const std::string& path() const noexcept { return path_; }
  bool is_stdout() const noexcept { return path_ == "-"; }

 private:
  static constexpr size_t kFlushAt = 1 << 20;
  void flush();
  std::string path_, temp_path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  bool committed_ = false;
};

}  // namespace gcsnap::cli
