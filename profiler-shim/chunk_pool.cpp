#include "chunk_pool.hpp"

#include <algorithm>

#include "gcsnap_thread_name.hpp"
#include "shim_os.hpp"

namespace gcsnap::shim {

namespace {

/// The largest large chunk kept between walks (500 000 references take 9 MiB with the records).
constexpr size_t kLargeCapBytes = size_t{64} << 20;

bool is_large(const ObjectChunk& chunk) noexcept {
  return chunk.object_capacity == ObjectChunk::kObjects &&
         chunk.reference_capacity > ObjectChunk::kObjects * ObjectChunk::kReferencesPerObject;
}

size_t full_chunks_in(size_t bytes) noexcept {
  return bytes / ObjectChunk::bytes_for(ObjectChunk::kObjects, ObjectChunk::kObjects * ObjectChunk::kReferencesPerObject);
}

}  // namespace

ChunkPool::ChunkPool(size_t idle_cap_bytes, size_t fill_cap_bytes)
    : idle_cap_chunks_(full_chunks_in(idle_cap_bytes)),
      fill_cap_chunks_(std::max(idle_cap_chunks_, full_chunks_in(fill_cap_bytes))) {
  thread_ = std::thread([this] { run(); });
}

ChunkPool::~ChunkPool() { stop(); }

void ChunkPool::stop() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  filled_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ChunkPool::prepare(size_t ahead, size_t grow_to) noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ahead_ = ahead;
    grow_to_ = std::max(ahead, grow_to);
  }
  wake_.notify_one();
}

size_t ChunkPool::fill_before_walk(size_t chunks, std::chrono::milliseconds limit) noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  chunks = std::min(chunks, fill_cap_chunks_);
  if (stopping_ || ready_.size() >= chunks) return ready_.size();
  const size_t before = ahead_;
  ahead_ = std::max(ahead_, chunks);
  wake_.notify_one();
  filled_.wait_for(lock, limit, [&] { return stopping_ || ahead_ == 0 || ready_.size() >= chunks; });
  // What was made ready stays (nothing trims ready_ but give_back); the walk sets its own reserve.
  if (ahead_ != 0) ahead_ = before;
  return ready_.size();
}

std::unique_ptr<ObjectChunk> ChunkPool::take() noexcept {
  std::unique_ptr<ObjectChunk> chunk;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // The walk is outrunning the pool's thread (half the reserve or less left): one more in
    // reserve. A walk that fits in what was made ready never deepens it.
    if (ahead_ != 0 && ahead_ < grow_to_ && ready_.size() * 2 <= ahead_) ++ahead_;
    ++taken_;
    if (!ready_.empty()) {
      chunk = std::move(ready_.back());
      ready_.pop_back();
    }
  }
  wake_.notify_one();  // refill behind the walk
  return chunk;
}

std::unique_ptr<ObjectChunk> ChunkPool::take_large(size_t references) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!large_ || large_->reference_capacity < references || large_->reference_capacity / 2 > references) return nullptr;
  return std::move(large_);
}

void ChunkPool::give_back(std::unique_ptr<ObjectChunk> chunk) noexcept {
  if (!chunk) return;
  if (!chunk->is_full_size()) {
    if (!is_large(*chunk) || ObjectChunk::bytes_for(chunk->object_capacity, chunk->reference_capacity) > kLargeCapBytes) {
      return;  // freed here
    }
    chunk->clear();
    std::unique_ptr<ObjectChunk> replaced;  // the last walk's large chunk is the one kept; freed unlocked
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    replaced = std::move(large_);
    large_ = std::move(chunk);
    return;
  }
  chunk->clear();
  std::vector<std::unique_ptr<ObjectChunk>> over;  // unmapped after the lock is released
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t keep = keep_count();
  if (ready_.size() < keep) {
    try {
      ready_.push_back(std::move(chunk));
    } catch (...) {
    }
    return;
  }
  // A fill above the idle cap that the walk did not use (the estimate is an upper bound).
  try {
    while (ready_.size() > keep) {
      over.push_back(std::move(ready_.back()));
      ready_.pop_back();
    }
  } catch (...) {
  }
}

size_t ChunkPool::keep_count() const noexcept {
  // What the walks use, not what the cap allows: a walk of a few thousand objects takes one
  // chunk, and the chunks refilled behind it or filled before it would otherwise stay mapped
  // (and resident: they are populated) until the process ends.
  return std::max(ahead_, std::min(idle_cap_chunks_, std::max(last_walk_taken_, taken_)));
}

void ChunkPool::walk_done() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  last_walk_taken_ = taken_;
  taken_ = 0;
  ahead_ = grow_to_ = 0;  // nothing is unmapped here: this runs on the GC thread, inside the pause
}

size_t ChunkPool::reserve() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ahead_;
}

size_t ChunkPool::ready_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ready_.size();
}

uint64_t ChunkPool::held_bytes() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t bytes = 0;
  for (const auto& chunk : ready_) bytes += ObjectChunk::bytes_for(chunk->object_capacity, chunk->reference_capacity);
  if (large_) bytes += ObjectChunk::bytes_for(large_->object_capacity, large_->reference_capacity);
  return bytes;
}

void ChunkPool::run() noexcept {
  platform::set_thread_name("gcsnap-chunks");
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || ready_.size() < ahead_; });
    if (stopping_) break;
    lock.unlock();
    std::unique_ptr<ObjectChunk> chunk;
    try {
      chunk = std::make_unique<ObjectChunk>(ObjectChunk::kObjects,
                                            ObjectChunk::kObjects * ObjectChunk::kReferencesPerObject);
      chunk->populate();
    } catch (...) {
      chunk.reset();
    }
    lock.lock();
    if (!chunk) {
      ahead_ = 0;  // out of memory: the GC thread maps its own chunks (or drops, by the budget)
      filled_.notify_all();
      continue;
    }
    try {
      ready_.push_back(std::move(chunk));
    } catch (...) {
    }
    filled_.notify_all();
  }
}

}  // namespace gcsnap::shim
