// The control channel on Windows: the named pipe \\.\pipe\gcsnap-control-<pid>, one instance,
// overlapped I/O so that stop() can wake the thread (control_server.hpp).
// The output file of an attach comes as "output <handle>\n": the CLI has duplicated its file
// handle into this process (the pipe tells it the server's pid) and sends the value.
#include <windows.h>

#include <cstdlib>

#include "control_server.hpp"
#include "windows/win_text.hpp"

namespace gcsnap::shim {

struct ControlServer::Endpoint {
  HANDLE pipe = INVALID_HANDLE_VALUE;
  HANDLE stop_event = nullptr;
  HANDLE io_event = nullptr;
};

namespace {

constexpr DWORD kClientTimeoutMs = 5000;  // a silent client must not block the thread for good

/// Wait for the overlapped operation OV on PIPE, at most TIMEOUT_MS or until STOP is set;
/// cancel it then. The bytes moved, or -1.
long finish_io(HANDLE pipe, OVERLAPPED& ov, HANDLE stop, DWORD timeout_ms) noexcept {
  HANDLE events[2] = {stop, ov.hEvent};
  DWORD woke = WaitForMultipleObjects(2, events, FALSE, timeout_ms);
  DWORD moved = 0;
  if (woke != WAIT_OBJECT_0 + 1) {
    CancelIoEx(pipe, &ov);
    (void)GetOverlappedResult(pipe, &ov, &moved, TRUE);
    return -1;
  }
  return GetOverlappedResult(pipe, &ov, &moved, FALSE) ? static_cast<long>(moved) : -1;
}

/// Start ReadFile/WriteFile/ConnectNamedPipe as an overlapped operation and finish it.
template <class Start>
long overlapped(HANDLE pipe, HANDLE event, HANDLE stop, DWORD timeout_ms, Start start) noexcept {
  OVERLAPPED ov{};
  ov.hEvent = event;
  ResetEvent(event);
  if (!start(&ov)) {
    DWORD code = GetLastError();
    if (code == ERROR_PIPE_CONNECTED) return 0;
    if (code != ERROR_IO_PENDING) return -1;
  }
  return finish_io(pipe, ov, stop, timeout_ms);
}

/// "output <handle>": keep the handle when it is a file on a disk, close it otherwise.
void take_output_handle(std::string& request, intptr_t& passed) {
  constexpr std::string_view kOutput = "output ";
  if (request.compare(0, kOutput.size(), kOutput) != 0) return;
  unsigned long long value = std::strtoull(request.c_str() + kOutput.size(), nullptr, 10);
  request.resize(kOutput.size() - 1);
  auto handle = reinterpret_cast<HANDLE>(static_cast<uintptr_t>(value));
  if (value == 0 || GetFileType(handle) != FILE_TYPE_DISK) return;
  if (passed >= 0) CloseHandle(reinterpret_cast<HANDLE>(passed));
  passed = static_cast<intptr_t>(value);
}

}  // namespace

ControlServer::Endpoint* ControlServer::open_endpoint(const std::string& path, std::string& error) {
  auto* e = new Endpoint;
  e->stop_event = CreateEventW(nullptr, TRUE, FALSE, nullptr);
  e->io_event = CreateEventW(nullptr, TRUE, FALSE, nullptr);
  // FIRST_PIPE_INSTANCE: a pipe of that name held by someone else is refused, not joined.
  if (e->stop_event && e->io_event) {
    e->pipe = CreateNamedPipeW(os::widen(path).c_str(),
                               PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
                               PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1,
                               4096, 4096, 0, nullptr);
  }
  if (e->pipe != INVALID_HANDLE_VALUE) return e;
  error = "cannot create the pipe " + path + ": " + os::error_text(GetLastError());
  if (e->stop_event) CloseHandle(e->stop_event);
  if (e->io_event) CloseHandle(e->io_event);
  delete e;
  return nullptr;
}

bool ControlServer::serve_one() noexcept {
  HANDLE pipe = endpoint_->pipe, io = endpoint_->io_event, stop = endpoint_->stop_event;
  long connected = overlapped(pipe, io, stop, INFINITE, [&](OVERLAPPED* ov) { return ConnectNamedPipe(pipe, ov); });
  if (WaitForSingleObject(stop, 0) == WAIT_OBJECT_0) return false;
  if (connected < 0) {
    DisconnectNamedPipe(pipe);
    Sleep(50);  // a client that went away mid-connect; never spin
    return true;
  }
  try {
    std::string request;
    char buffer[256];
    while (request.find('\n') == std::string::npos && request.size() < 1024) {
      long got = overlapped(pipe, io, stop, kClientTimeoutMs,
                            [&](OVERLAPPED* ov) { return ReadFile(pipe, buffer, sizeof(buffer), nullptr, ov); });
      if (got <= 0) break;
      request.append(buffer, static_cast<size_t>(got));
    }
    size_t newline = request.find('\n');
    if (newline != std::string::npos) {
      request.resize(newline);
      take_output_handle(request, passed_file_);
      std::string reply = reply_to(request);
      if (!reply.empty()) {
        (void)overlapped(pipe, io, stop, kClientTimeoutMs, [&](OVERLAPPED* ov) {
          return WriteFile(pipe, reply.data(), static_cast<DWORD>(reply.size()), nullptr, ov);
        });
        // Disconnecting drops what the client has not read yet: wait for it to close its end.
        (void)overlapped(pipe, io, stop, kClientTimeoutMs,
                         [&](OVERLAPPED* ov) { return ReadFile(pipe, buffer, sizeof(buffer), nullptr, ov); });
      }
    }
  } catch (...) {
    // Out of memory for a request line: the client sees the pipe close.
  }
  if (passed_file_ >= 0) CloseHandle(reinterpret_cast<HANDLE>(passed_file_));
  passed_file_ = -1;
  DisconnectNamedPipe(pipe);
  return true;
}

void ControlServer::wake() noexcept { SetEvent(endpoint_->stop_event); }

void ControlServer::close_endpoint() noexcept {
  CloseHandle(endpoint_->pipe);
  CloseHandle(endpoint_->stop_event);
  CloseHandle(endpoint_->io_event);
  delete endpoint_;
  endpoint_ = nullptr;
}

}  // namespace gcsnap::shim
