#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <cerrno>
#include <cstdio>

#include "platform/console.hpp"
#include "platform/windows/windows_text.hpp"

namespace gcsnap::cli {
namespace {

HANDLE handle_of(std::FILE* stream) noexcept {
  const int fd = _fileno(stream);
  return fd < 0 ? INVALID_HANDLE_VALUE : reinterpret_cast<HANDLE>(_get_osfhandle(fd));
}

std::atomic<bool>* g_stop = nullptr;

BOOL WINAPI note_stop(DWORD event) {
  if (event != CTRL_C_EVENT && event != CTRL_BREAK_EVENT && event != CTRL_CLOSE_EVENT) return FALSE;
  if (g_stop) g_stop->store(true);
  return TRUE;
}

}  // namespace

void stop_on_request(std::atomic<bool>* stop) noexcept {
  g_stop = stop;
  SetConsoleCtrlHandler(note_stop, TRUE);
}

void use_binary_standard_streams() noexcept {
  (void)_setmode(_fileno(stdout), _O_BINARY);
  (void)_setmode(_fileno(stderr), _O_BINARY);
}

// A console handle answers GetConsoleMode; files and pipes do not.
bool is_terminal(std::FILE* stream) noexcept {
  DWORD mode = 0;
  const HANDLE h = handle_of(stream);
  return h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode) != 0;
}

int terminal_columns(std::FILE* stream) noexcept {
  CONSOLE_SCREEN_BUFFER_INFO info{};
  const HANDLE h = handle_of(stream);
  if (h == INVALID_HANDLE_VALUE || !GetConsoleScreenBufferInfo(h, &info)) return 0;
  const int columns = info.srWindow.Right - info.srWindow.Left + 1;
  return columns > 0 ? columns : 0;
}

unsigned long current_process_id() noexcept { return GetCurrentProcessId(); }

// The C runtime's rename refuses an existing target on Windows.
bool replace_file(const std::string& from, const std::string& to) noexcept {
  try {
    if (MoveFileExW(widen(from).c_str(), widen(to).c_str(), MOVEFILE_REPLACE_EXISTING)) return true;
  } catch (...) {
  }
  errno = EACCES;
  return false;
}

}  // namespace gcsnap::cli
