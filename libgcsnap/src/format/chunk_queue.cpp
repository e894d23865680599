#include "format/chunk_queue.hpp"


#include <system_error>

#include "gcsnap_thread_name.hpp"

namespace gcsnap::format {

ChunkQueue::~ChunkQueue() { (void)stop(); }

Status ChunkQueue::start() noexcept {
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    return make_error(ErrorCode::OutOfMemory, "cannot start the writer thread");
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "cannot start the writer thread");
  }
  return {};
}

Status ChunkQueue::push(ChunkData&& chunk) {
  const uint64_t bytes = chunk_raw_bytes(chunk);
  std::unique_lock lock(mutex_);
  // A chunk bigger than the whole budget still goes in once the queue is empty.
  space_cv_.wait(lock, [&] {
    return error_.code != ErrorCode::Ok || queue_.empty() || queued_bytes_ + bytes <= max_bytes_;
  });
  if (error_.code != ErrorCode::Ok) return error_;
  queue_.emplace_back(std::move(chunk), bytes);
  queued_bytes_ += bytes;
  work_cv_.notify_one();
  return {};
}

Status ChunkQueue::drain() {
  std::unique_lock lock(mutex_);
  space_cv_.wait(lock, [&] { return error_.code != ErrorCode::Ok || (queue_.empty() && !busy_); });
  return error_;
}

Status ChunkQueue::stop() {
  {
    std::unique_lock lock(mutex_);
    if (!thread_.joinable()) return error_;
    stopping_ = true;
    work_cv_.notify_one();
  }
  thread_.join();
  return error_;
}

void ChunkQueue::run() {
  // Named for top, perf and gdb: it runs inside the recorded app's process.
  platform::set_thread_name("gcsnap-compress");
  std::unique_lock lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and drained
    auto item = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    const bool failed = error_.code != ErrorCode::Ok;
    lock.unlock();
    Status s = failed ? Status{} : sink_.consume(item.first);
    lock.lock();
    busy_ = false;
    queued_bytes_ -= item.second;
    if (!s.is_ok() && error_.code == ErrorCode::Ok) error_ = s.error();
    space_cv_.notify_all();
  }
}

}  // namespace gcsnap::format
