#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include <catch2/catch.hpp>

#include "control_server.hpp"
#include "temp_path.hpp"

using namespace gcsnap::shim;

namespace {

std::string ask(const std::string& path, const std::string& request) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return "connect failed";
  }
  (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string reply;
  char buffer[128];
  ssize_t got;
  while ((got = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) reply.append(buffer, static_cast<size_t>(got));
  ::close(fd);
  return reply;
}

}  // namespace

TEST_CASE("control server answers one line per connection and removes its socket", "[shim][control]") {
  std::string path = gcsnap::test::temp_path("shim-control", ".ctl");
  std::string error;
  int calls = 0;
  auto server = ControlServer::start(
      path, [&](const std::string& request) { ++calls; return "ok " + request; }, error);
  REQUIRE(server);
  CHECK(::access(path.c_str(), F_OK) == 0);
  CHECK(ask(path, "snapshot\n") == "ok snapshot\n");
  CHECK(ask(path, "again\n") == "ok again\n");
  CHECK(calls == 2);
  server->stop(1000);
  CHECK(::access(path.c_str(), F_OK) != 0);
  CHECK(ask(path, "snapshot\n") == "connect failed");
}
