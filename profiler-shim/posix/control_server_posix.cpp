// The control channel on POSIX: a unix stream socket (control_server.hpp).
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "control_server.hpp"

namespace gcsnap::shim {

struct ControlServer::Endpoint {
  int listen_fd = -1;
  int wake_read = -1;
  int wake_write = -1;
};

ControlServer::Endpoint* ControlServer::open_endpoint(const std::string& path, std::string& error) {
  sockaddr_un address{};
  if (path.size() >= sizeof(address.sun_path)) {
    error = "control socket path is too long: " + path;
    return nullptr;
  }
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = std::string("cannot create the control socket: ") + std::strerror(errno);
    return nullptr;
  }
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  ::unlink(path.c_str());  // a stale socket of a dead process that had our pid
  mode_t old_mask = ::umask(0077);
  int bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  ::umask(old_mask);
  int pipe_fds[2] = {-1, -1};
  if (bound != 0 || ::listen(fd, 4) != 0 || ::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    error = "cannot listen on " + path + ": " + std::strerror(errno);
    ::close(fd);
    if (bound == 0) ::unlink(path.c_str());
    return nullptr;
  }
  return new Endpoint{fd, pipe_fds[0], pipe_fds[1]};
}

namespace {

/// recv() that also picks up one SCM_RIGHTS descriptor into PASSED_FD (closing extras).
ssize_t receive(int client, char* buffer, size_t size, intptr_t& passed_fd) noexcept {
  iovec io{buffer, size};
  alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))];
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  ssize_t got = ::recvmsg(client, &message, MSG_CMSG_CLOEXEC);
  if (got < 0) return got;
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      if (passed_fd < 0) passed_fd = fd;
      else ::close(fd);
    }
  }
  return got;
}

/// Read CLIENT's request line (without '\n') into REQUEST; false when none came.
bool read_request(int client, std::string& request, intptr_t& passed_fd) {
  ucred peer{};
  socklen_t peer_size = sizeof(peer);
  if (::getsockopt(client, SOL_SOCKET, SO_PEERCRED, &peer, &peer_size) != 0 ||
      (peer.uid != ::getuid() && peer.uid != 0)) {
    return false;
  }
  timeval timeout{5, 0};
  // Without the timeouts a silent client would block the control thread for good.
  if (::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) != 0 ||
      ::setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout)) != 0)
    return false;
  char buffer[256];
  while (request.find('\n') == std::string::npos && request.size() < 1024) {
    ssize_t got = receive(client, buffer, sizeof(buffer), passed_fd);
    if (got <= 0) break;
    request.append(buffer, static_cast<size_t>(got));
  }
  size_t newline = request.find('\n');
  if (newline == std::string::npos) return false;
  request.resize(newline);
  return true;
}

}  // namespace

bool ControlServer::serve_one() noexcept {
  pollfd fds[2] = {{endpoint_->listen_fd, POLLIN, 0}, {endpoint_->wake_read, POLLIN, 0}};
  int n = ::poll(fds, 2, -1);
  if (n < 0 && errno == EINTR) return true;
  if (n < 0 || (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) return false;
  if (!(fds[0].revents & POLLIN)) return true;
  int client = ::accept4(endpoint_->listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (client < 0) return true;
  try {
    std::string request;
    if (read_request(client, request, passed_file_)) {
      std::string reply = reply_to(request);
      if (!reply.empty()) ::send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
    }
  } catch (...) {
    // Out of memory for a request line: the client sees the connection close.
  }
  if (passed_file_ >= 0) ::close(static_cast<int>(passed_file_));
  passed_file_ = -1;
  ::close(client);
  return true;
}

void ControlServer::wake() noexcept {
  char byte = 1;
  (void)!::write(endpoint_->wake_write, &byte, 1);
  ::unlink(path_.c_str());
}

void ControlServer::close_endpoint() noexcept {
  ::close(endpoint_->listen_fd);
  ::close(endpoint_->wake_read);
  ::close(endpoint_->wake_write);
  delete endpoint_;
  endpoint_ = nullptr;
}

}  // namespace gcsnap::shim
