#include "gcsnap_shim/control_client.hpp"
#include "reply_line.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gcsnap::shim {

namespace {

ControlReply failed(std::string why) { return ControlReply{false, std::move(why)}; }

std::string errno_text() { return std::strerror(errno); }

// Send REQUEST on SOCK with FD attached when >= 0.
bool send_request(int sock, std::string_view request, int fd) {
  iovec io{const_cast<char*>(request.data()), request.size()};
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    cmsghdr* c = CMSG_FIRSTHDR(&message);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  return ::sendmsg(sock, &message, MSG_NOSIGNAL) == static_cast<ssize_t>(request.size());
}

}  // namespace

ControlReply send_control_request(const std::string& path, std::string_view request, int timeout_s,
                                  intptr_t file) {
  const int fd = static_cast<int>(file);
  sockaddr_un address{};
  if (path.size() >= sizeof(address.sun_path)) return failed("control socket path too long: " + path);
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int sock = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0) return failed("cannot create a socket: " + errno_text());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{sock};
  if (::connect(sock, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0)
    return failed("cannot reach the gcsnap shim at " + path + ": " + errno_text());
  timeval timeout{timeout_s, 0};
  // Without the timeouts a shim that stopped answering would hang the caller: refuse to go on.
  if (::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) != 0 ||
      ::setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout)) != 0)
    return failed("cannot set timeouts on the socket to " + path + ": " + errno_text());
  if (!send_request(sock, request, fd)) return failed("the gcsnap shim closed its control socket");
  return read_reply_line(
      [&](char* buffer, size_t size) -> long {
        for (;;) {
          const ssize_t got = ::recv(sock, buffer, size, 0);
          if (got < 0 && errno == EINTR) continue;
          if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return kReadTimedOut;  // SO_RCVTIMEO
          return got < 0 ? 0 : static_cast<long>(got);
        }
      },
      timeout_s);
}

}  // namespace gcsnap::shim
