// The follow-up walker's thread (follow_up_walker.hpp): a wake runs the walk once on its own
// thread; wakes while a walk is under way are one more walk, not one each; stop waits for it.
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include <catch2/catch.hpp>

#include "follow_up_walker.hpp"

using namespace gcsnap::shim;
using namespace std::chrono_literals;

namespace {

bool eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(10ms);
  return done();
}

}  // namespace

TEST_CASE("follow-up walker: a wake walks once on its own thread; wakes during a walk fold into one",
          "[shim][follow_up]") {
  std::atomic<int> walks{0};
  std::atomic<bool> release{false}, on_other_thread{false};
  const auto caller = std::this_thread::get_id();
  FollowUpWalker walker([&] {
    on_other_thread = std::this_thread::get_id() != caller;
    ++walks;
    while (!release.load()) std::this_thread::sleep_for(1ms);  // a walk under way
  });
  walker.wake();
  REQUIRE(eventually([&] { return walks.load() == 1; }));
  CHECK(on_other_thread.load());
  for (int i = 0; i < 5; ++i) walker.wake();  // the walk still runs: these are one more walk
  release = true;
  REQUIRE(eventually([&] { return walks.load() == 2; }));
  std::this_thread::sleep_for(50ms);
  CHECK(walks.load() == 2);
  walker.stop();
  walker.wake();  // after stop: nothing runs
  std::this_thread::sleep_for(20ms);
  CHECK(walks.load() == 2);
}
