// The client of the shim's control channel on Windows: the named pipe
// \\.\pipe\gcsnap-control-<pid> (shim_protocol.hpp).
#include <windows.h>

#include <string>

#include "gcsnap_shim/control_client.hpp"
#include "gcsnap_utf16_text.hpp"
#include "reply_line.hpp"

namespace gcsnap::shim {
namespace {

ControlReply failed(std::string why) { return ControlReply{false, std::move(why)}; }

/// PATH as UTF-16; "" when it is not UTF-8 (then no pipe has the name).
std::wstring widen(const std::string& path) {
  return gcsnap::text::utf16_from_utf8<wchar_t>(path).value_or(std::wstring());
}

struct Handle {
  HANDLE h;
  ~Handle() {
    if (h && h != INVALID_HANDLE_VALUE) CloseHandle(h);
  }
};

/// Run one overlapped ReadFile/WriteFile on PIPE for at most TIMEOUT_MS: the bytes moved, or
/// -1 (failed or timed out; then cancelled).
template <class Start>
long overlapped(HANDLE pipe, DWORD timeout_ms, Start start) {
  Handle event{CreateEventW(nullptr, TRUE, FALSE, nullptr)};
  if (!event.h) return -1;
  OVERLAPPED ov{};
  ov.hEvent = event.h;
  if (!start(&ov) && GetLastError() != ERROR_IO_PENDING) return -1;
  DWORD moved = 0;
  if (WaitForSingleObject(event.h, timeout_ms) != WAIT_OBJECT_0) {
    CancelIoEx(pipe, &ov);
    (void)GetOverlappedResult(pipe, &ov, &moved, TRUE);
    return -1;
  }
  return GetOverlappedResult(pipe, &ov, &moved, FALSE) ? static_cast<long>(moved) : -1;
}

HANDLE open_pipe(const std::wstring& name, DWORD timeout_ms) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    HANDLE h = CreateFileW(name.c_str(), GENERIC_READ | GENERIC_WRITE, 0, nullptr, OPEN_EXISTING,
                           FILE_FLAG_OVERLAPPED, nullptr);
    if (h != INVALID_HANDLE_VALUE || GetLastError() != ERROR_PIPE_BUSY) return h;
    if (!WaitNamedPipeW(name.c_str(), timeout_ms)) break;  // another client is being served
  }
  SetLastError(ERROR_PIPE_BUSY);
  return INVALID_HANDLE_VALUE;
}

}  // namespace

ControlReply send_control_request(const std::string& path, std::string_view request, int timeout_s,
                                  intptr_t file) {
  const DWORD timeout_ms = static_cast<DWORD>(timeout_s) * 1000;
  Handle pipe{open_pipe(widen(path), timeout_ms)};
  if (pipe.h == INVALID_HANDLE_VALUE) {
    DWORD code = GetLastError();
    return failed("cannot reach the gcsnap shim at " + path +
                  (code == ERROR_FILE_NOT_FOUND ? std::string(": no such pipe")
                                                : ": Windows error " + std::to_string(code)));
  }
  std::string line(request);
  HANDLE remote = nullptr;
  Handle target{nullptr};
  if (file >= 0) {
    // The handle is the shim's once duplicated into its process; the line carries its value.
    ULONG server_pid = 0;
    if (!GetNamedPipeServerProcessId(pipe.h, &server_pid)) return failed("cannot tell which process serves " + path);
    target.h = OpenProcess(PROCESS_DUP_HANDLE, FALSE, server_pid);
    if (!target.h ||
        !DuplicateHandle(GetCurrentProcess(), reinterpret_cast<HANDLE>(file), target.h, &remote, 0, FALSE,
                         DUPLICATE_SAME_ACCESS))
      return failed("cannot hand the output file to process " + std::to_string(server_pid) + " (Windows error " +
                    std::to_string(GetLastError()) + ")");
    if (!line.empty() && line.back() == '\n') line.pop_back();
    line += " " + std::to_string(reinterpret_cast<uintptr_t>(remote)) + "\n";
  }
  long sent = overlapped(pipe.h, timeout_ms, [&](OVERLAPPED* ov) {
    return WriteFile(pipe.h, line.data(), static_cast<DWORD>(line.size()), nullptr, ov);
  });
  if (sent != static_cast<long>(line.size())) {
    if (remote) DuplicateHandle(target.h, remote, nullptr, nullptr, 0, FALSE, DUPLICATE_CLOSE_SOURCE);
    return failed("the gcsnap shim closed its control channel");
  }
  return read_reply_line(
      [&](char* buffer, size_t size) -> long {
        const long got = overlapped(pipe.h, timeout_ms, [&](OVERLAPPED* ov) {
          return ReadFile(pipe.h, buffer, static_cast<DWORD>(size), nullptr, ov);
        });
        if (got < 0 && GetLastError() == ERROR_OPERATION_ABORTED) return kReadTimedOut;  // cancelled at the timeout
        return got < 0 ? 0 : got;
      },
      timeout_s);
}

}  // namespace gcsnap::shim
