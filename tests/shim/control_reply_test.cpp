// The reply half of the control client that both systems share (profiler-shim/protocol/reply_line.hpp).
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/reply_line.hpp"

namespace {

using gcsnap::shim::ControlReply;
using gcsnap::shim::kReadTimedOut;
using gcsnap::shim::read_reply_line;

/// A READ_SOME that hands out CHUNKS one per call, then RESULT_AFTER (0: end, kReadTimedOut).
ControlReply read_chunks(std::vector<std::string> chunks, long result_after) {
  size_t next = 0;
  return read_reply_line(
      [&](char* buffer, size_t size) -> long {
        if (next == chunks.size()) return result_after;
        const std::string& chunk = chunks[next++];
        REQUIRE(chunk.size() <= size);
        chunk.copy(buffer, chunk.size());
        return static_cast<long>(chunk.size());
      },
      7);
}

}  // namespace

TEST_CASE("a reply line is read across chunks and cut at its newline", "[shim][control]") {
  ControlReply reply = read_chunks({"ok 1", "2", "3\nrest"}, 0);
  CHECK(reply.answered);
  CHECK(reply.text == "ok 123");
}

TEST_CASE("a reply without its newline is no answer, and a timeout says how long", "[shim][control]") {
  ControlReply closed = read_chunks({"ok 12"}, 0);
  CHECK_FALSE(closed.answered);
  CHECK(closed.text == "the gcsnap shim gave no answer (is the process exiting?)");
  ControlReply silent = read_chunks({"ok"}, kReadTimedOut);
  CHECK_FALSE(silent.answered);
  CHECK(silent.text == "the gcsnap shim did not answer within 7 s");
  ControlReply empty = read_chunks({}, 0);
  CHECK_FALSE(empty.answered);
}
