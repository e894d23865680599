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
