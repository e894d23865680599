#include <windows.h>

#include <chrono>
#include <string>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "platform/diagnostics_transport.hpp"
#include "platform/windows/windows_text.hpp"

namespace gcsnap::cli {
namespace {

HANDLE as_handle(intptr_t h) { return reinterpret_cast<HANDLE>(h); }

/// One overlapped ReadFile or WriteFile on PIPE, waited for until DEADLINE; the bytes moved,
/// or -1 (timed out: the I/O is cancelled) or -2 (failed).
long transfer(HANDLE pipe, HANDLE event, bool write, char* data, DWORD size,
              std::chrono::steady_clock::time_point deadline) {
  OVERLAPPED overlapped{};
  overlapped.hEvent = event;
  ResetEvent(event);
  BOOL done = write ? WriteFile(pipe, data, size, nullptr, &overlapped) : ReadFile(pipe, data, size, nullptr, &overlapped);
  if (!done && GetLastError() != ERROR_IO_PENDING) return -2;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  DWORD wait_ms = left.count() > 0 ? static_cast<DWORD>(left.count()) : 0;
  if (WaitForSingleObject(event, wait_ms) != WAIT_OBJECT_0) {
    CancelIoEx(pipe, &overlapped);
    DWORD ignored = 0;
    GetOverlappedResult(pipe, &overlapped, &ignored, TRUE);
    return -1;
  }
  DWORD moved = 0;
  if (!GetOverlappedResult(pipe, &overlapped, &moved, FALSE)) return -2;
  return static_cast<long>(moved);
}

/// Open the pipe PIPE_NAME, waiting while every instance is busy until DEADLINE.
HANDLE open_pipe(const std::string& pipe_name, std::chrono::steady_clock::time_point deadline) {
  const std::wstring name = widen(pipe_name);
  for (;;) {
    HANDLE pipe = CreateFileW(name.c_str(), GENERIC_READ | GENERIC_WRITE, 0, nullptr, OPEN_EXISTING,
                              FILE_FLAG_OVERLAPPED, nullptr);
    if (pipe != INVALID_HANDLE_VALUE) return pipe;
    DWORD err = GetLastError();
    // Every instance busy: the runtime makes a new one after each connection; wait a little.
    if (err == ERROR_PIPE_BUSY && std::chrono::steady_clock::now() < deadline) {
      WaitNamedPipeW(name.c_str(), 1000);
      continue;
    }
    if (err == ERROR_ACCESS_DENIED) {
      throw CliError("no permission to open " + pipe_name + " (the process belongs to another user, or runs "
                     "elevated; run gcsnap as that user or as an administrator)", kExitProblems);
    }
    throw CliError(fmt::format("cannot open the runtime's diagnostics pipe {}: {} (is the process still running?)",
                               pipe_name, system_message(err)), kExitProblems);
  }
}

}  // namespace

DiagnosticsChannel::DiagnosticsChannel(const std::string& pipe_name, int timeout_s)
    : deadline_(std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s)), timeout_s_(timeout_s) {
  HANDLE pipe = open_pipe(pipe_name, deadline_);
  HANDLE event = CreateEventW(nullptr, TRUE, FALSE, nullptr);
  if (!event) {
    const DWORD err = GetLastError();
    CloseHandle(pipe);
    throw CliError("cannot create an event: " + system_message(err), kExitProblems);
  }
  handle_ = reinterpret_cast<intptr_t>(pipe);
  event_ = reinterpret_cast<intptr_t>(event);
}

DiagnosticsChannel::~DiagnosticsChannel() {
  CloseHandle(as_handle(event_));
  CloseHandle(as_handle(handle_));
}

void DiagnosticsChannel::send(std::string_view message) {
  std::string out(message);
  size_t sent = 0;
  while (sent < out.size()) {
    long n = transfer(as_handle(handle_), as_handle(event_), true, out.data() + sent,
                      static_cast<DWORD>(out.size() - sent), deadline_);
    if (n == -1) throw CliError("the runtime did not take the request", kExitProblems);
    if (n <= 0) throw CliError("sending the request failed: " + system_message(GetLastError()), kExitProblems);
    sent += static_cast<size_t>(n);
  }
}

size_t DiagnosticsChannel::receive(char* data, size_t size) {
  long n = transfer(as_handle(handle_), as_handle(event_), false, data, static_cast<DWORD>(size), deadline_);
  if (n == -1) throw CliError(fmt::format("the runtime did not answer within {} s", timeout_s_), kExitProblems);
  if (n <= 0) throw CliError("the runtime closed the diagnostics pipe without an answer", kExitProblems);
  return static_cast<size_t>(n);
}

}  // namespace gcsnap::cli
