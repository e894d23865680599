// platform/files.hpp on Windows: UTF-16 names, %TEMP%, files as HANDLEs.
#include <windows.h>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "platform/files.hpp"
#include "platform/windows/windows_text.hpp"

namespace gcsnap::cli {

std::filesystem::path path_of(const std::string& text) { return std::filesystem::path(widen(text)); }

std::string utf8(const std::filesystem::path& path) { return narrow(path.wstring()); }

bool path_taken(const std::string& path) {
  return GetFileAttributesW(widen(path).c_str()) != INVALID_FILE_ATTRIBUTES;
}

bool is_path_separator(char c) noexcept { return c == '/' || c == '\\'; }

std::optional<std::string> absolute_path(const std::string& path) {
  return utf8(std::filesystem::absolute(path_of(path)));
}

std::string parent_directory(const std::string& path) { return utf8(path_of(path).parent_path()); }

bool is_directory(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path_of(path), ec);
}

std::string why_not_writable(const std::string& dir) {
  // Whether the folder takes a new file is known only by making one.
  std::filesystem::path probe = path_of(dir) / fmt::format(".gcsnap-probe-{}", GetCurrentProcessId());
  HANDLE h = CreateFileW(probe.wstring().c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                         FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, nullptr);
  if (h == INVALID_HANDLE_VALUE) return system_message(GetLastError());
  CloseHandle(h);
  return {};
}

NameKind name_kind(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p = path_of(path);
  if (!std::filesystem::exists(p, ec)) return NameKind::None;
  return std::filesystem::is_directory(p, ec) ? NameKind::Directory : NameKind::Other;
}

std::string remove_file(const std::string& path) {
  return DeleteFileW(widen(path).c_str()) ? std::string() : system_message(GetLastError());
}

std::string make_private_directory(const std::string& prefix) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) throw CliError("cannot find the temporary folder: " + ec.message(), kExitNotRecorded);
  // %TEMP% is the user's own folder: what is made in it is the user's only.
  for (int n = 0; n < 1000; ++n) {
    std::filesystem::path dir = base / path_of(fmt::format("{}{}-{}", prefix, GetCurrentProcessId(), n));
    if (std::filesystem::create_directory(dir, ec)) return utf8(dir);
  }
  throw CliError("cannot create a folder in " + utf8(base), kExitNotRecorded);
}

std::tm local_time(std::time_t now) {
  std::tm local{};
  localtime_s(&local, &now);
  return local;
}

AttachOutput::AttachOutput(const std::string& path) : path_(path) {
  HANDLE file = CreateFileW(widen(path).c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, nullptr, CREATE_NEW,
                            FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) {
    throw CliError("output path not writable: " + path + ": " + system_message(GetLastError()), kExitNotRecorded);
  }
  handle_ = reinterpret_cast<intptr_t>(file);
}

AttachOutput::~AttachOutput() { close(); }

void AttachOutput::close() noexcept {
  if (handle_ != -1) CloseHandle(reinterpret_cast<HANDLE>(handle_));
  handle_ = -1;
}

void AttachOutput::discard() noexcept {
  close();
  DeleteFileW(widen(path_).c_str());
}

}  // namespace gcsnap::cli
