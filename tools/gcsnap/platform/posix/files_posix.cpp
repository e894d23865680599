// platform/files.hpp on Linux: names are bytes, folders come from mkdtemp, files are descriptors.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "gcsnap_shim/shim_protocol.hpp"
#include "errors/cli_error.hpp"
#include "platform/files.hpp"

namespace gcsnap::cli {

std::filesystem::path path_of(const std::string& text) { return std::filesystem::path(text); }

std::string utf8(const std::filesystem::path& path) { return path.string(); }

bool path_taken(const std::string& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0;
}

bool is_path_separator(char c) noexcept { return c == '/'; }

std::optional<std::string> absolute_path(const std::string& path) {
  if (!path.empty() && path.front() == '/') return path;
  char cwd[PATH_MAX];
  if (!::getcwd(cwd, sizeof(cwd))) return std::nullopt;
  return std::string(cwd) + "/" + path;
}

std::string parent_directory(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool is_directory(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string why_not_writable(const std::string& dir) {
  return ::access(dir.c_str(), W_OK | X_OK) == 0 ? std::string() : std::strerror(errno);
}

NameKind name_kind(const std::string& path) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) return NameKind::None;
  return S_ISDIR(st.st_mode) ? NameKind::Directory : NameKind::Other;
}

std::string remove_file(const std::string& path) {
  return ::unlink(path.c_str()) == 0 ? std::string() : std::strerror(errno);
}

std::string make_private_directory(const std::string& prefix) {
  // Where the shims write too: their control sockets go to the same $TMPDIR.
  std::string pattern = shim::control_socket_dir() + "/" + prefix + "XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data())) {
    throw CliError(fmt::format("cannot create a directory like {}: {}", pattern, std::strerror(errno)), kExitNotRecorded);
  }
  return buffer.data();
}

std::tm local_time(std::time_t now) {
  std::tm local{};
  ::localtime_r(&now, &local);
  return local;
}

AttachOutput::AttachOutput(const std::string& path) : path_(path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw CliError("output path not writable: " + path + ": " + std::strerror(errno), kExitNotRecorded);
  handle_ = fd;
}

AttachOutput::~AttachOutput() { close(); }

void AttachOutput::close() noexcept {
  if (handle_ >= 0) ::close(static_cast<int>(handle_));
  handle_ = -1;
}

void AttachOutput::discard() noexcept {
  close();
  ::unlink(path_.c_str());
}

}  // namespace gcsnap::cli
