#include "process/diagnostics_ipc.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "output/cli_error.hpp"
#include "gcsnap_shim/shim_protocol.hpp"

namespace gcsnap::cli {
namespace {

constexpr char kMagic[14] = {'D', 'O', 'T', 'N', 'E', 'T', '_', 'I', 'P', 'C', '_', 'V', '1', '\0'};
constexpr size_t kHeaderSize = 20;
constexpr uint8_t kCommandSetProfiler = 0x03;
constexpr uint8_t kCommandAttachProfiler = 0x01;
constexpr uint8_t kCommandSetServer = 0xFF;
constexpr uint8_t kServerOk = 0x00;

void put_u16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>(v >> 8));
}
void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint32_t get_u32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

uint32_t hex_value(std::string_view text, size_t at, size_t digits) {
  uint32_t value = 0;
  for (size_t i = 0; i < digits; ++i) {
    char c = text[at + i];
    uint32_t d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
    value = value << 4 | d;
  }
  return value;
}

/// The 16-byte GUID: Data1 (u32), Data2, Data3 (u16) little-endian, then Data4's 8 bytes.
void put_clsid(std::string& out, std::string_view text) {
  if (text.size() != 38) throw CliError("internal error: bad CLSID text", kExitProblems);
  put_u32(out, hex_value(text, 1, 8));
  put_u16(out, static_cast<uint16_t>(hex_value(text, 10, 4)));
  put_u16(out, static_cast<uint16_t>(hex_value(text, 15, 4)));
  out.push_back(static_cast<char>(hex_value(text, 20, 2)));
  out.push_back(static_cast<char>(hex_value(text, 22, 2)));
  for (size_t i = 0; i < 6; ++i) out.push_back(static_cast<char>(hex_value(text, 25 + 2 * i, 2)));
}

/// A UTF-16LE string: u32 count of code units including the terminating NUL, then the units.
/// Paths are UTF-8 on Linux; code points above U+FFFF become surrogate pairs.
void put_utf16(std::string& out, const std::string& utf8) {
  std::u16string units;
  for (size_t i = 0; i < utf8.size();) {
    unsigned char c = static_cast<unsigned char>(utf8[i]);
    uint32_t cp = c;
    size_t extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    if (c >= 0x80) cp = c & (0x3F >> extra);
    if (i + extra >= utf8.size()) throw CliError("profiler path is not UTF-8", kExitUsage);
    for (size_t k = 1; k <= extra; ++k) cp = cp << 6 | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
    i += extra + 1;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      units.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      units.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      units.push_back(static_cast<char16_t>(cp));
    }
  }
  units.push_back(u'\0');
  put_u32(out, static_cast<uint32_t>(units.size()));
  for (char16_t u : units) put_u16(out, static_cast<uint16_t>(u));
}

/// Wait for FD to be ready for EVENTS until DEADLINE; false on timeout.
bool wait_ready(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

}  // namespace

std::string encode_attach_profiler(const AttachProfilerRequest& request) {
  std::string payload;
  put_u32(payload, request.timeout_ms);
  put_clsid(payload, request.clsid_text);
  put_utf16(payload, request.profiler_path);
  put_u32(payload, static_cast<uint32_t>(request.client_data.size()));
  payload += request.client_data;
  size_t total = kHeaderSize + payload.size();
  if (total > 0xFFFF) throw CliError("the attach request is too long (profiler path too long?)", kExitUsage);
  std::string message(kMagic, sizeof(kMagic));
  put_u16(message, static_cast<uint16_t>(total));
  message.push_back(static_cast<char>(kCommandSetProfiler));
  message.push_back(static_cast<char>(kCommandAttachProfiler));
  put_u16(message, 0);
  return message + payload;
}

uint32_t attach_profiler(const std::string& socket_path, const AttachProfilerRequest& request, int io_timeout_s) {
  std::string message = encode_attach_profiler(request);
  sockaddr_un address{};
  if (socket_path.size() >= sizeof(address.sun_path)) {
    throw CliError("diagnostics socket path too long: " + socket_path, kExitProblems);
  }
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw CliError(std::string("cannot create a socket: ") + std::strerror(errno), kExitProblems);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    int err = errno;
    if (err == EACCES || err == EPERM) {
      throw CliError("no permission to connect to " + socket_path + " (the process belongs to another user; "
                     "run gcsnap as that user or as root)", kExitProblems);
    }
    throw CliError(fmt::format("cannot connect to the runtime's diagnostics socket {}: {} (is the process "
                               "still running?)", socket_path, std::strerror(err)), kExitProblems);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(io_timeout_s);
  size_t sent = 0;
  while (sent < message.size()) {
    if (!wait_ready(fd, POLLOUT, deadline)) throw CliError("the runtime did not take the attach request", kExitProblems);
    ssize_t n = ::send(fd, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw CliError(std::string("sending the attach request failed: ") + std::strerror(errno), kExitProblems);
    sent += static_cast<size_t>(n);
  }
  unsigned char reply[kHeaderSize + 4];
  size_t got = 0;
  while (got < sizeof(reply)) {
    if (!wait_ready(fd, POLLIN, deadline)) {
      throw CliError(fmt::format("the runtime did not answer the attach request within {} s", io_timeout_s),
                     kExitProblems);
    }
    ssize_t n = ::recv(fd, reply + got, sizeof(reply) - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw CliError("the runtime closed the diagnostics connection without an answer", kExitProblems);
    got += static_cast<size_t>(n);
  }
  if (std::memcmp(reply, kMagic, sizeof(kMagic)) != 0 || reply[16] != kCommandSetServer) {
    throw CliError("the diagnostics socket answered something that is not a runtime reply", kExitProblems);
  }
  uint32_t hresult = get_u32(reply + kHeaderSize);
  // Command id 0x00 is OK with a status, 0xFF an error with its HRESULT.
  if (reply[17] == kServerOk && (hresult & 0x80000000u) == 0) return hresult;
  return (hresult & 0x80000000u) ? hresult : 0x80004005u;  // an error with a non-error code: E_FAIL
}

std::string describe_attach_result(uint32_t hr) {
  switch (hr) {
    case 0x8013136Au: return "another profiler is already loaded in the process (CORPROF_E_PROFILER_ALREADY_ACTIVE); a process has room for one";
    case 0x80131379u: return "timed out waiting for a background GC in progress to finish (CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC); try again";
    case 0x80131376u: return "the runtime refused to monitor GCs with background GC on (CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE)";
    case 0x80131368u: return "the runtime says the gcsnap shim cannot be attached (CORPROF_E_PROFILER_NOT_ATTACHABLE)";
    case 0x80131367u: return "a profiler is still detaching from the process (CORPROF_E_PROFILER_DETACHING); try again in a few seconds";
    case 0x80131371u: return "the runtime is not initialized yet (CORPROF_E_RUNTIME_UNINITIALIZED); try again";
    case 0x8013135Bu: return "the runtime cannot take the request yet (CORPROF_E_NOT_YET_AVAILABLE); try again";
    case 0x80131385u: return "the runtime does not know the AttachProfiler command (a .NET older than 5?)";
    case 0x80131384u: return "the runtime could not decode the attach request (DS_IPC_E_BAD_ENCODING)";
    case 0x80070057u: return "the runtime rejected the attach request as invalid (E_INVALIDARG)";
    case 0x8007007Eu: return "the process could not load the gcsnap shim (ERROR_MOD_NOT_FOUND: is the shim path readable from inside the process?)";
    case 0x80004002u: return "the gcsnap shim offers no profiler interface the runtime accepts (E_NOINTERFACE)";
    case shim::kAttachErrorClientData: return "the gcsnap shim in the process did not understand the request (another gcsnap version?)";
    case shim::kAttachErrorNoInfo: return "the runtime offers no ICorProfilerInfo4 or newer (.NET too old?)";
    case shim::kAttachErrorControlSocket: return "the gcsnap shim could not open its control socket in the process's TMPDIR";
    case 0x80131375u: return "the gcsnap shim declined to start (CORPROF_E_PROFILER_CANCEL_ACTIVATION; see the process's stderr)";
    default: return fmt::format("the runtime refused the attach with HRESULT 0x{:08x}", hr);
  }
}

}  // namespace gcsnap::cli
