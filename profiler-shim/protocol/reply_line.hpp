#pragma once
// The reply half of a control request, the same on every system: read until the reply line's
// '\n' through the system's READ_SOME (control_client_posix.cpp: recv on the Unix socket;
// control_client_windows.cpp: an overlapped ReadFile on the pipe).

#include <cstddef>
#include <functional>
#include <string>

#include "gcsnap_shim/control_client.hpp"

namespace gcsnap::shim {

/// What READ_SOME returns besides a byte count (> 0) and 0 (end of input, or a failure).
inline constexpr long kReadTimedOut = -1;

/// Read one reply line with READ_SOME(buffer, size) and return it without '\n', or a reply
/// not answered that says why: the shim did not answer within TIMEOUT_S seconds (READ_SOME
/// returned kReadTimedOut), or closed the channel first (it returned 0).
inline ControlReply read_reply_line(const std::function<long(char*, size_t)>& read_some, int timeout_s) {
  std::string reply;
  char buffer[256];
  while (reply.find('\n') == std::string::npos) {
    const long got = read_some(buffer, sizeof(buffer));
    if (got == kReadTimedOut)
      return ControlReply{false, "the gcsnap shim did not answer within " + std::to_string(timeout_s) + " s"};
    if (got <= 0) break;
    reply.append(buffer, static_cast<size_t>(got));
  }
  const size_t newline = reply.find('\n');
  if (newline == std::string::npos) return ControlReply{false, "the gcsnap shim gave no answer (is the process exiting?)"};
  reply.resize(newline);
  return ControlReply{true, std::move(reply)};
}

}  // namespace gcsnap::shim
