// The diagnostics IPC client of `gcsnap snapshot` against a fake runtime on a Unix socket:
// the bytes of the AttachProfiler message (docs/shim.md "Attach"), the reply's HRESULT, and
// that a silent or garbled server gives an error within the bound instead of a hang.

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "errors/cli_error.hpp"
#include "process/diagnostics_ipc.hpp"
#include "gcsnap_shim/shim_protocol.hpp"
#include "temp_path.hpp"

using namespace gcsnap::cli;

namespace {

uint32_t u32_at(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(s[at + static_cast<size_t>(i)]);
  return v;
}
uint16_t u16_at(const std::string& s, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(s[at]) | static_cast<unsigned char>(s[at + 1]) << 8);
}

/// A one-shot fake runtime: accepts one connection, reads what comes for a moment, answers REPLY.
class FakeRuntime {
 public:
  explicit FakeRuntime(std::string reply) : path_(gcsnap::test::temp_path("ipc-test", ".sock")) {
    ::unlink(path_.c_str());
    fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path_.c_str(), sizeof(address.sun_path) - 1);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
    REQUIRE(::listen(fd_, 1) == 0);
    thread_ = std::thread([this, reply] {
      int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      timeval t{0, 300000};
      ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof(t));
      char buffer[4096];
      ssize_t n;
      while ((n = ::recv(client, buffer, sizeof(buffer), 0)) > 0) received_.append(buffer, static_cast<size_t>(n));
      if (!reply.empty()) (void)!::send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(reply.empty() ? 2500 : 0));
      ::close(client);
    });
  }
  ~FakeRuntime() {
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::string received() {
    if (thread_.joinable()) thread_.join();
    return received_;
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::string received_;
  std::thread thread_;
};

std::string reply(uint8_t command, uint32_t hresult) {
  std::string r("DOTNET_IPC_V1\0", 14);
  r += std::string("\x18\x00", 2);
  r.push_back(static_cast<char>(0xFF));
  r.push_back(static_cast<char>(command));
  r += std::string("\x00\x00", 2);
  for (int i = 0; i < 4; ++i) r.push_back(static_cast<char>((hresult >> (8 * i)) & 0xff));
  return r;
}

AttachProfilerRequest sample_request() {
  AttachProfilerRequest request;
  request.timeout_ms = 10000;
  request.clsid_text = gcsnap::shim::kClsidText;
  request.profiler_path = "/a/\xC3\xA9";  // "/a/é": 4 UTF-16 code units
  request.client_data = "gcsnap-attach 1\nmode=snapshot\n";
  return request;
}

}  // namespace

TEST_CASE("the AttachProfiler message has the runtime's layout", "[cli][ipc]") {
  std::string m = encode_attach_profiler(sample_request());
  REQUIRE(m.size() > 20);
  CHECK(m.compare(0, 14, std::string("DOTNET_IPC_V1\0", 14)) == 0);
  CHECK(u16_at(m, 14) == m.size());
  CHECK(static_cast<unsigned char>(m[16]) == 0x03);  // Profiler command set
  CHECK(static_cast<unsigned char>(m[17]) == 0x01);  // AttachProfiler
  CHECK(u16_at(m, 18) == 0);
  CHECK(u32_at(m, 20) == 10000);  // milliseconds
  // {12AFB2D9-48B7-44B1-92F2-A85820746D7E}: Data1..3 little-endian, Data4 as written.
  const unsigned char clsid[16] = {0xD9, 0xB2, 0xAF, 0x12, 0xB7, 0x48, 0xB1, 0x44,
                                   0x92, 0xF2, 0xA8, 0x58, 0x20, 0x74, 0x6D, 0x7E};
  CHECK(std::memcmp(m.data() + 24, clsid, 16) == 0);
  CHECK(u32_at(m, 40) == 5);  // 4 code units and the NUL
  CHECK(u16_at(m, 44) == u'/');
  CHECK(u16_at(m, 50) == 0x00E9);
  CHECK(u16_at(m, 52) == 0);
  std::string data = sample_request().client_data;
  CHECK(u32_at(m, 54) == data.size());
  CHECK(m.substr(58) == data);
  CHECK(m.size() == 58 + data.size());

  AttachProfilerRequest huge = sample_request();
  huge.client_data.assign(70000, 'x');
  CHECK_THROWS_AS(encode_attach_profiler(huge), CliError);
}

TEST_CASE("attach_profiler sends the message and returns the runtime's HRESULT", "[cli][ipc]") {
  {
    FakeRuntime runtime(reply(0x00, 0));
    CHECK(attach_profiler(runtime.path(), sample_request(), 5) == 0u);
    CHECK(runtime.received() == encode_attach_profiler(sample_request()));
  }
  {
    FakeRuntime runtime(reply(0xFF, 0x8013136Au));
    uint32_t hr = attach_profiler(runtime.path(), sample_request(), 5);
    CHECK(hr == 0x8013136Au);
    CHECK(describe_attach_result(hr).find("another profiler is already loaded") != std::string::npos);
  }
}

TEST_CASE("attach_profiler fails within its bound on a silent, garbled or missing runtime", "[cli][ipc]") {
  {
    FakeRuntime silent("");
    auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_AS(attach_profiler(silent.path(), sample_request(), 1), CliError);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  }
  {
    FakeRuntime garbled(std::string(24, 'x'));
    CHECK_THROWS_AS(attach_profiler(garbled.path(), sample_request(), 5), CliError);
  }
  CHECK_THROWS_AS(attach_profiler("no_such_socket_here", sample_request(), 1), CliError);
}

namespace {

/// A ProcessInfo reply: pid, a cookie, then the command line, OS and architecture as
/// UTF-16LE strings (u32 count with the NUL first).
std::string process_info_reply(uint64_t pid, const std::u16string& command, size_t cut = 0) {
  std::string payload;
  for (int i = 0; i < 8; ++i) payload.push_back(static_cast<char>((pid >> (8 * i)) & 0xff));
  payload += std::string(16, '\x5A');
  for (const std::u16string& text : {command, std::u16string(u"Windows"), std::u16string(u"x64")}) {
    const uint32_t count = static_cast<uint32_t>(text.size() + 1);
    for (int i = 0; i < 4; ++i) payload.push_back(static_cast<char>((count >> (8 * i)) & 0xff));
    for (char16_t c : text + u'\0') {
      payload.push_back(static_cast<char>(c & 0xff));
      payload.push_back(static_cast<char>(c >> 8));
    }
  }
  payload.resize(payload.size() - cut);
  const size_t total = 20 + payload.size();
  std::string r("DOTNET_IPC_V1\0", 14);
  r.push_back(static_cast<char>(total & 0xff));
  r.push_back(static_cast<char>(total >> 8));
  r.push_back(static_cast<char>(0xFF));
  r.push_back(static_cast<char>(0x00));
  r += std::string("\x00\x00", 2);
  return r + payload;
}

}  // namespace

TEST_CASE("query_process_info asks with a bare header and decodes the UTF-16 strings", "[cli][ipc]") {
  // "app.exe é 𝄞": a two-byte UTF-8 character and one outside the BMP (a surrogate pair).
  FakeRuntime runtime(process_info_reply(4242, u"app.exe \u00e9 \U0001D11E"));
  RuntimeProcessInfo info = query_process_info(runtime.path(), 5);
  CHECK(info.pid == 4242u);
  CHECK(info.command_line == "app.exe \xC3\xA9 \xF0\x9D\x84\x9E");
  CHECK(info.os == "Windows");
  CHECK(info.arch == "x64");
  const std::string sent = runtime.received();
  REQUIRE(sent.size() == 20);
  CHECK(u16_at(sent, 14) == 20);
  CHECK(static_cast<unsigned char>(sent[16]) == 0x04);  // the Process command set
  CHECK(static_cast<unsigned char>(sent[17]) == 0x00);  // ProcessInfo
}

TEST_CASE("query_process_info refuses a reply cut inside its strings", "[cli][ipc]") {
  FakeRuntime runtime(process_info_reply(7, u"app.exe", 3));
  CHECK_THROWS_WITH(query_process_info(runtime.path(), 5), Catch::Contains("gave no ProcessInfo reply"));
}
