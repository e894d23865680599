#include "follow_up_walker.hpp"

namespace gcsnap::shim {

FollowUpWalker::FollowUpWalker(std::function<void()> walk) : walk_(std::move(walk)), thread_([this] { run(); }) {}

void FollowUpWalker::wake() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    due_ = true;
  }
  wake_.notify_one();
}

void FollowUpWalker::stop() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void FollowUpWalker::run() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return due_ || stopping_; });
    if (stopping_) return;
    due_ = false;
    lock.unlock();
    try {
      walk_();
    } catch (...) {
      // Out of memory building a reply: the walk is given up; the next wanted one may fit.
    }
    lock.lock();
  }
}

}  // namespace gcsnap::shim
