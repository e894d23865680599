#include "process/diagnostics_ipc.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "gcsnap_utf16_text.hpp"
#include "gcsnap_shim/shim_protocol.hpp"
#include "platform/diagnostics_transport.hpp"

namespace gcsnap::cli {
namespace {

constexpr char kMagic[14] = {'D', 'O', 'T', 'N', 'E', 'T', '_', 'I', 'P', 'C', '_', 'V', '1', '\0'};
constexpr size_t kHeaderSize = 20;
constexpr uint8_t kCommandSetProfiler = 0x03;
constexpr uint8_t kCommandAttachProfiler = 0x01;
constexpr uint8_t kCommandSetProcess = 0x04;
constexpr uint8_t kCommandProcessInfo = 0x00;
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
  std::optional<std::u16string> units = gcsnap::text::utf16_from_utf8(utf8);
  if (!units) throw CliError("profiler path is not UTF-8", kExitUsage);
  units->push_back(u'\0');
  put_u32(out, static_cast<uint32_t>(units->size()));
  for (char16_t u : *units) put_u16(out, static_cast<uint16_t>(u));
}

/// A UTF-16LE string of a reply at AT (u32 count of units with the NUL, then the units), as
/// UTF-8 up to its first NUL; AT moves past it. False when it runs past the end.
bool get_utf16(const std::string& reply, size_t& at, std::string& out) {
  if (at + 4 > reply.size()) return false;
  uint32_t count = get_u32(reinterpret_cast<const unsigned char*>(reply.data() + at));
  at += 4;
  if (count > (reply.size() - at) / 2) return false;
  std::u16string units;
  for (uint32_t i = 0; i < count; ++i) {
    const auto unit = static_cast<char16_t>(static_cast<unsigned char>(reply[at + 2 * i]) |
                                            static_cast<unsigned char>(reply[at + 2 * i + 1]) << 8);
    if (unit == 0) break;
    units.push_back(unit);
  }
  out = gcsnap::text::utf8_from_utf16(std::u16string_view(units));
  at += size_t{count} * 2;
  return true;
}

/// A message with no payload: the header only.
std::string header_only(uint8_t command_set, uint8_t command) {
  std::string message(kMagic, sizeof(kMagic));
  put_u16(message, static_cast<uint16_t>(kHeaderSize));
  message.push_back(static_cast<char>(command_set));
  message.push_back(static_cast<char>(command));
  put_u16(message, 0);
  return message;
}

/// Send MESSAGE to the runtime at ENDPOINT and return its reply: the header and the payload
/// the header's size announces (its u16 at offset 14 is the size of the whole message).
std::string exchange(const std::string& endpoint, std::string_view message, int timeout_s) {
  DiagnosticsChannel channel(endpoint, timeout_s);
  channel.send(message);
  std::string reply;
  size_t want = kHeaderSize;
  char buffer[4096];
  while (reply.size() < want) {
    reply.append(buffer, channel.receive(buffer, std::min(sizeof(buffer), want - reply.size())));
    if (want == kHeaderSize && reply.size() == kHeaderSize) {
      const size_t total = static_cast<unsigned char>(reply[14]) | size_t{static_cast<unsigned char>(reply[15])} << 8;
      if (total > kHeaderSize) want = total;
    }
  }
  return reply;
}

bool is_reply(const std::string& reply) {
  return reply.size() >= kHeaderSize && std::memcmp(reply.data(), kMagic, sizeof(kMagic)) == 0 &&
         static_cast<uint8_t>(reply[16]) == kCommandSetServer;
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

uint32_t attach_profiler(const std::string& endpoint, const AttachProfilerRequest& request, int io_timeout_s) {
  std::string reply = exchange(endpoint, encode_attach_profiler(request), io_timeout_s);
  if (!is_reply(reply) || reply.size() < kHeaderSize + 4) {
    throw CliError("the diagnostics endpoint " + endpoint + " answered something that is not a runtime reply",
                   kExitProblems);
  }
  uint32_t hresult = get_u32(reinterpret_cast<const unsigned char*>(reply.data()) + kHeaderSize);
  // Command id 0x00 is OK with a status, 0xFF an error with its HRESULT.
  if (static_cast<uint8_t>(reply[17]) == kServerOk && (hresult & 0x80000000u) == 0) return hresult;
  return (hresult & 0x80000000u) ? hresult : 0x80004005u;  // an error with a non-error code: E_FAIL
}

RuntimeProcessInfo query_process_info(const std::string& endpoint, int io_timeout_s) {
  std::string reply = exchange(endpoint, header_only(kCommandSetProcess, kCommandProcessInfo), io_timeout_s);
  RuntimeProcessInfo info;
  size_t at = kHeaderSize + 8 + 16;  // pid, then the runtime cookie (a GUID)
  if (!is_reply(reply) || static_cast<uint8_t>(reply[17]) != kServerOk || reply.size() < at ||
      !get_utf16(reply, at, info.command_line) || !get_utf16(reply, at, info.os) || !get_utf16(reply, at, info.arch)) {
    throw CliError("the diagnostics endpoint " + endpoint + " gave no ProcessInfo reply", kExitProblems);
  }
  const auto* p = reinterpret_cast<const unsigned char*>(reply.data()) + kHeaderSize;
  info.pid = uint64_t{get_u32(p)} | uint64_t{get_u32(p + 4)} << 32;
  return info;
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
