#include <windows.h>

#include <chrono>
#include <string>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "platform/diagnostics_transport.hpp"
#include "platform/windows/windows_text.hpp"

namespace gcsnap::cli {
namespace {

constexpr size_t kHeaderSize = 20;

struct Handle {
  HANDLE h = INVALID_HANDLE_VALUE;
  ~Handle() {
    if (h != INVALID_HANDLE_VALUE && h != nullptr) CloseHandle(h);
  }
};

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

}  // namespace

std::string diagnostics_exchange(const std::string& pipe_name, std::string_view message, int timeout_s) {
  const std::wstring name = widen(pipe_name);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  Handle pipe;
  for (;;) {
    pipe.h = CreateFileW(name.c_str(), GENERIC_READ | GENERIC_WRITE, 0, nullptr, OPEN_EXISTING, FILE_FLAG_OVERLAPPED,
                         nullptr);
    if (pipe.h != INVALID_HANDLE_VALUE) break;
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
  Handle event;
  event.h = CreateEventW(nullptr, TRUE, FALSE, nullptr);
  if (!event.h) throw CliError("cannot create an event: " + system_message(GetLastError()), kExitProblems);
  std::string out(message);
  size_t sent = 0;
  while (sent < out.size()) {
    long n = transfer(pipe.h, event.h, true, out.data() + sent, static_cast<DWORD>(out.size() - sent), deadline);
    if (n == -1) throw CliError("the runtime did not take the request", kExitProblems);
    if (n <= 0) throw CliError("sending the request failed: " + system_message(GetLastError()), kExitProblems);
    sent += static_cast<size_t>(n);
  }
  std::string reply;
  size_t want = kHeaderSize;
  char buffer[4096];
  while (reply.size() < want) {
    DWORD ask = static_cast<DWORD>(std::min(sizeof(buffer), want - reply.size()));
    long n = transfer(pipe.h, event.h, false, buffer, ask, deadline);
    if (n == -1) throw CliError(fmt::format("the runtime did not answer within {} s", timeout_s), kExitProblems);
    if (n <= 0) throw CliError("the runtime closed the diagnostics pipe without an answer", kExitProblems);
    reply.append(buffer, static_cast<size_t>(n));
    if (want == kHeaderSize && reply.size() == kHeaderSize) {
      size_t total = static_cast<unsigned char>(reply[14]) | static_cast<size_t>(static_cast<unsigned char>(reply[15])) << 8;
      if (total > kHeaderSize) want = total;
    }
  }
  return reply;
}

}  // namespace gcsnap::cli
