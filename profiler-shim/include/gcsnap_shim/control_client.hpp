#pragma once
/// The client side of the shim's control socket (shim_protocol.hpp, docs/shim.md "On-demand
/// snapshots"): one request line, one reply line. Used by `gcsnap snapshot` and the attach
/// client; POSIX and the standard library only, so that any tool can link it without the shim.

#include <string>
#include <string_view>

namespace gcsnap::shim {

/// What one request on the control socket came back with.
struct ControlReply {
  bool answered = false;  ///< a reply line came back
  std::string text;       ///< the reply line without '\n'; when not answered, why (one line)
};

/// Send REQUEST (one line with '\n') to the control socket at PATH, with descriptor FD attached
/// (SCM_RIGHTS) when >= 0, and wait up to TIMEOUT_S seconds for the reply line. Never throws
/// but std::bad_alloc; every failure (no socket, no answer, timeout) is a reply not answered.
ControlReply send_control_request(const std::string& path, std::string_view request, int timeout_s, int fd = -1);

}  // namespace gcsnap::shim
