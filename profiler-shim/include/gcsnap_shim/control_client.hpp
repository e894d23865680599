#pragma once
/// The client side of the shim's control socket (shim_protocol.hpp, docs/shim.md "On-demand
/// snapshots"): one request line, one reply line. Used by `gcsnap snapshot` and the attach
/// client; the system and the standard library only, so that any tool can link it without the
/// shim (protocol/control_client_posix.cpp, protocol/control_client_windows.cpp).

#include <cstdint>
#include <string>
#include <string_view>

namespace gcsnap::shim {

/// What one request on the control socket came back with.
struct ControlReply {
  bool answered = false;  ///< a reply line came back
  std::string text;       ///< the reply line without '\n'; when not answered, why (one line)
};

/// Send REQUEST (one line with '\n') to the control channel at PATH, with FILE attached when
/// >= 0, and wait up to TIMEOUT_S seconds for the reply line. FILE is a descriptor on POSIX
/// (sent with SCM_RIGHTS) and a HANDLE on Windows (duplicated into the shim's process, its
/// value appended to the request line: "output <handle>\n"). Never throws but
/// std::bad_alloc; every failure (no channel, no answer, timeout) is a reply not answered.
ControlReply send_control_request(const std::string& path, std::string_view request, int timeout_s,
                                  intptr_t file = -1);

}  // namespace gcsnap::shim
