#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

#include "platform/console.hpp"

namespace gcsnap::cli {
namespace {

std::atomic<bool>* g_stop = nullptr;

void note_stop(int) {
  if (g_stop) g_stop->store(true);
}

}  // namespace

void use_binary_standard_streams() noexcept {}

bool is_terminal(std::FILE* stream) noexcept {
  const int fd = fileno(stream);
  return fd >= 0 && ::isatty(fd);
}

int terminal_columns(std::FILE* stream) noexcept {
  const int fd = fileno(stream);
  if (fd < 0 || !::isatty(fd)) return 0;
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 0;
}

unsigned long current_process_id() noexcept { return static_cast<unsigned long>(::getpid()); }

void stop_on_request(std::atomic<bool>* stop) noexcept {
  g_stop = stop;
  struct sigaction action{};
  action.sa_handler = note_stop;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
}

bool replace_file(const std::string& from, const std::string& to) noexcept {
  return std::rename(from.c_str(), to.c_str()) == 0;
}

}  // namespace gcsnap::cli
