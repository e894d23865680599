// Send one request to the control channel of a process the gcsnap shim records, and print the
// reply line: control_request PID REQUEST. Exit 0 when a reply came, 1 when none did (the
// reason on stderr), 2 on bad arguments. The Windows end-to-end tests use it to reach the
// shim's named pipe before gcsnap.exe has a command that does.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gcsnap_shim/control_client.hpp"
#include "gcsnap_shim/shim_protocol.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: control_request PID REQUEST\n");
    return 2;
  }
  long pid = std::strtol(argv[1], nullptr, 10);
  std::string request = std::string(argv[2]) + "\n";
  auto reply = gcsnap::shim::send_control_request(gcsnap::shim::control_socket_path(pid), request, 60);
  if (!reply.answered) {
    std::fprintf(stderr, "control_request: %s\n", reply.text.c_str());
    return 1;
  }
  std::printf("%s\n", reply.text.c_str());
  return 0;
}
