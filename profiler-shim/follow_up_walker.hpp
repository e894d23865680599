#pragma once
// The events source's policy walks (docs/shim.md "Snapshot policies"): a GC the policy picks
// cannot be walked itself, so the recorder asks for a follow-up walk (Recorder::
// follow_up_wanted) and this thread of the shim's own takes it through the dump session and a
// forced GC. The GC's thread only wakes it (a GC, or an event callback, may not induce a GC);
// wakes that come while a walk is pending or under way are one walk.

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace gcsnap::shim {

class FollowUpWalker {
 public:
  /// WALK takes the wanted walk (or gives it up); it runs on the walker's thread.
  explicit FollowUpWalker(std::function<void()> walk);
  ~FollowUpWalker() { stop(); }
  FollowUpWalker(const FollowUpWalker&) = delete;
  FollowUpWalker& operator=(const FollowUpWalker&) = delete;

  /// A walk is wanted: wake the thread (any thread; a lock held for a few instructions).
  void wake() noexcept;
  /// End the thread, waiting for a walk under way to return. Idempotent.
  void stop() noexcept;

 private:
  void run() noexcept;

  std::function<void()> walk_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool due_ = false, stopping_ = false;
  std::thread thread_;
};

}  // namespace gcsnap::shim
