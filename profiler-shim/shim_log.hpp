#pragma once
// One-line messages on stderr, prefixed "gcsnap: ". Written with a single write(2) so lines
// from the app and the shim do not interleave mid-line. Never throws, never allocates.

#include <atomic>
#include <string_view>

namespace gcsnap::shim {

/// Write "gcsnap: MESSAGE\n" to stderr.
void log_line(std::string_view message) noexcept;
/// Write the line only the first time FLAG is seen unset; return true if it was written.
bool log_once(std::atomic<bool>& flag, std::string_view message) noexcept;

}  // namespace gcsnap::shim
