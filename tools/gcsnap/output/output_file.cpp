#include "output/output_file.hpp"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "platform/console.hpp"

namespace gcsnap::cli {

namespace {
[[noreturn]] void fail_write(const std::string& path, int error) {
  throw CliError(fmt::format("{}: cannot write: {}", path, std::strerror(error)), kExitBadInput);
}
}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  buffer_.reserve(kFlushAt + 4096);
  if (is_stdout()) {
    file_ = stdout;
    return;
  }
  temp_path_ = fmt::format("{}.tmp-{}", path_, current_process_id());
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (!file_) fail_write(path_, errno);
}

OutputFile::~OutputFile() {
  if (committed_ || is_stdout() || !file_) return;
  std::fclose(file_);
  std::remove(temp_path_.c_str());
}

void OutputFile::flush() {
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    fail_write(path_, errno ? errno : EIO);
  buffer_.clear();
}

void OutputFile::commit() {
  flush();
  if (std::fflush(file_) != 0) fail_write(path_, errno);
  committed_ = true;
  if (is_stdout()) return;
  const bool closed = std::fclose(file_) == 0;
  const int error = errno;
  file_ = nullptr;
  if (!closed || !replace_file(temp_path_, path_)) {
    const int e = closed ? errno : error;
    std::remove(temp_path_.c_str());
    fail_write(path_, e);
  }
}

}  // namespace gcsnap::cli
