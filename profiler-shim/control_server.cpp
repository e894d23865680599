#include "control_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace gcsnap::shim {

std::unique_ptr<ControlServer> ControlServer::start(const std::string& path, Handler handler, std::string& error) {
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
  std::unique_ptr<ControlServer> server(new ControlServer(path, fd, pipe_fds[0], pipe_fds[1], std::move(handler)));
  server->thread_ = std::thread([s = server.get()] { s->serve(); });
  return server;
}

ControlServer::ControlServer(std::string path, int listen_fd, int wake_read, int wake_write, Handler handler)
    : path_(std::move(path)), listen_fd_(listen_fd), wake_read_(wake_read), wake_write_(wake_write),
      handler_(std::move(handler)) {}

ControlServer::~ControlServer() { stop(2000); }

void ControlServer::serve() noexcept {
  // Named so that a profile (and bench/pause.sh) can find it: an on-demand snapshot's forced GC,
  // heap walk included, runs on this thread.
  pthread_setname_np(pthread_self(), "gcsnap-control");
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    int n = ::poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) break;
    if (!(fds[0].revents & POLLIN)) continue;
    int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    answer(client);
    if (passed_fd_ >= 0) ::close(passed_fd_);
    passed_fd_ = -1;
    ::close(client);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  exited_ = true;
  exited_cv_.notify_all();
  if (stopped_from_inside_) {
    // Nobody will join this thread: it cleans up after itself (the object stays, see stop()).
    ::close(listen_fd_);
    ::close(wake_read_);
    ::close(wake_write_);
    thread_.detach();
  }
}

int ControlServer::take_passed_fd() noexcept {
  int fd = passed_fd_;
  passed_fd_ = -1;
  return fd;
}

namespace {

/// recv() that also picks up one SCM_RIGHTS descriptor into PASSED_FD (closing extras).
ssize_t receive(int client, char* buffer, size_t size, int& passed_fd) noexcept {
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

}  // namespace

void ControlServer::answer(int client) noexcept {
  try {
    ucred peer{};
    socklen_t peer_size = sizeof(peer);
    if (::getsockopt(client, SOL_SOCKET, SO_PEERCRED, &peer, &peer_size) != 0 ||
        (peer.uid != ::getuid() && peer.uid != 0)) {
      return;
    }
    timeval timeout{5, 0};
    // Without the timeouts a silent client would block the control thread for good.
    if (::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) != 0 ||
        ::setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout)) != 0)
      return;
    std::string request;
    char buffer[256];
    while (request.find('\n') == std::string::npos && request.size() < 1024) {
      ssize_t got = receive(client, buffer, sizeof(buffer), passed_fd_);
      if (got <= 0) break;
      request.append(buffer, static_cast<size_t>(got));
    }
    size_t newline = request.find('\n');
    if (newline == std::string::npos) return;
    request.resize(newline);
    std::string reply = handler_(request) + "\n";
    ::send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
  } catch (...) {
    // A failed request must not take the app down; the client sees the connection close.
  }
}

void ControlServer::stop(int timeout_ms) noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    stopped_from_inside_ = std::this_thread::get_id() == thread_.get_id();
  }
  char byte = 1;
  (void)!::write(wake_write_, &byte, 1);
  ::unlink(path_.c_str());
  if (stopped_from_inside_) return;  // serve() ends after this reply and cleans up
  std::unique_lock<std::mutex> lock(mutex_);
  bool done = exited_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return exited_; });
  lock.unlock();
  if (done) {
    if (thread_.joinable()) thread_.join();
    ::close(listen_fd_);
    ::close(wake_read_);
    ::close(wake_write_);
  } else if (thread_.joinable()) {
    thread_.detach();  // stuck in a forced GC during shutdown: never block the app's exit
  }
}

}  // namespace gcsnap::shim
