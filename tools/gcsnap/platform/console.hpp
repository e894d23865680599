#pragma once
// The console and the process as the output code sees them, one implementation per operating
// system (posix/console_posix.cpp, windows/console_windows.cpp).
#include <atomic>
#include <cstdio>
#include <string>

namespace gcsnap::cli {

/// Make stdout and stderr write bytes as given (Windows: no "\n" to "\r\n" translation, so
/// that output and files are the same bytes on every system). Call first in main.
void use_binary_standard_streams() noexcept;
/// Whether STREAM is a terminal (a console on Windows).
[[nodiscard]] bool is_terminal(std::FILE* stream) noexcept;
/// The width of the terminal STREAM writes to, in columns; 0 when it is not a terminal.
[[nodiscard]] int terminal_columns(std::FILE* stream) noexcept;
/// This process's id.
[[nodiscard]] unsigned long current_process_id() noexcept;
/// Set *STOP when the user asks this process to stop: SIGINT, SIGTERM, SIGHUP on POSIX; Ctrl+C,
/// Ctrl+Break and closing the console on Windows. The process itself goes on.
void stop_on_request(std::atomic<bool>* stop) noexcept;
/// Rename FROM to TO, replacing TO when it exists; false (errno set) on failure.
[[nodiscard]] bool replace_file(const std::string& from, const std::string& to) noexcept;

}  // namespace gcsnap::cli
