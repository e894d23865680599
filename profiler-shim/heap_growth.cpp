#include "heap_growth.hpp"

#include <cstdio>

#include "shim_log.hpp"

namespace gcsnap::shim {

uint64_t HeapGrowthTrigger::old_generation_bytes(std::span<const GenerationRange> bounds) noexcept {
  uint64_t bytes = 0;
  for (const GenerationRange& r : bounds) {
    if (r.generation == Generation::Gen2 || r.generation == Generation::LargeObjectHeap ||
        r.generation == Generation::PinnedObjectHeap)
      bytes += r.length;
  }
  return bytes;
}

bool HeapGrowthTrigger::observe(uint64_t old_bytes) noexcept {
  if (!has_baseline_) {
    // The first GC of the recording is the baseline: with --policy none there may never be
    // another walk to measure from, and the first walk is the one this trigger asks for.
    has_baseline_ = true;
    baseline_ = old_bytes;
    threshold_ = step_;
    return false;
  }
  if (pending_ || taken_ >= max_walks_) return false;
  const uint64_t g = growth(old_bytes);
  if (g < threshold_) return false;
  pending_ = true;
  growth_at_request_ = g;
  return true;
}

void HeapGrowthTrigger::walk_done(bool taken, uint64_t old_bytes) noexcept {
  pending_ = false;
  if (taken) ++taken_;
  // From the larger of the growth that asked and the growth after the walk's full GC, so that
  // a walk is never asked twice for one step, nor skipped for a step the heap really grew by.
  uint64_t g = growth(old_bytes);
  if (g < growth_at_request_) g = growth_at_request_;
  threshold_ = (g / step_ + 1) * step_;
}

HeapGrowthWalker::HeapGrowthWalker(uint64_t step_bytes, uint64_t max_walks, WalkFunction walk)
    : trigger_(step_bytes, max_walks), walk_(std::move(walk)), thread_([this] { run(); }) {}

void HeapGrowthWalker::on_gc_finished(std::span<const GenerationRange> bounds) noexcept {
  const uint64_t old_bytes = HeapGrowthTrigger::old_generation_bytes(bounds);
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last_old_bytes_ = old_bytes;
    wake = !stopping_ && trigger_.observe(old_bytes);
    due_ = due_ || wake;
  }
  if (wake) wake_.notify_one();
}

void HeapGrowthWalker::stop() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

uint64_t HeapGrowthWalker::walks_taken() {
  std::lock_guard<std::mutex> lock(mutex_);
  return trigger_.walks_taken();
}

void HeapGrowthWalker::run() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return due_ || stopping_; });
    if (stopping_) return;
    due_ = false;
    const uint64_t growth = trigger_.growth_at_request(), threshold = trigger_.threshold();
    lock.unlock();
    std::string reply;
    try {
      reply = walk_();
    } catch (...) {
      reply = "error out of memory";
    }
    lock.lock();
    const bool taken = reply.rfind("ok ", 0) == 0;
    trigger_.walk_done(taken, last_old_bytes_);
    char line[256];
    if (taken) {
      std::snprintf(line, sizeof(line), "heap walk at GC %s (gen2 + LOH + POH grew by %llu MiB since the first GC, threshold %llu MiB)",
                    reply.c_str() + 3, static_cast<unsigned long long>(growth >> 20),
                    static_cast<unsigned long long>(threshold >> 20));
    } else {
      std::snprintf(line, sizeof(line), "no heap walk for --on-heap-growth (grew by %llu MiB): %s",
                    static_cast<unsigned long long>(growth >> 20), reply.c_str());
    }
    log_line(line);
  }
}

}  // namespace gcsnap::shim
