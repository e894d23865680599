#pragma once
// Sampled allocation sites (docs/shim.md "Allocation sites"; format-spec.md §6.18-§6.21). The
// runtime's AllocationSampled (.NET 10+) or GCAllocationTick (8, 9) event arrives on the
// allocating thread; the sampler copies the payload's fields (never the object: its type word
// is still 0), takes the thread's stack, interns it and keeps the sample until the writer
// thread writes the block of the first GC that starts after it. Functions are named there,
// off the allocation path. No COM types here: the runtime is behind AllocRuntime.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gcsnap/alloc_samples.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {
class Writer;
}

namespace gcsnap::shim {

/// Event ids of the sampling events (provider Microsoft-Windows-DotNETRuntime).
namespace alloc_event {
inline constexpr uint32_t kTick = 10;      ///< GCAllocationTick, v4 and later read
inline constexpr uint32_t kSampled = 303;  ///< AllocationSampled, v0
}  // namespace alloc_event

/// The fields of one sampling event the sampler keeps.
struct SampleEvent {
  AllocSampleKind kind = AllocSampleKind::Sampled;
  AllocHeap heap = AllocHeap::Small;
  uint64_t class_id = 0, address = 0, size = 0, amount = 0;
  std::span<const uint8_t> type_name_utf16;  ///< the payload's TypeName, without its NUL
};

/// Parse event 303 v0 or event 10 v4+; nothing when the payload is short or malformed.
std::optional<SampleEvent> parse_sample_event(uint32_t id, uint32_t version, std::span<const uint8_t> payload) noexcept;

/// What the sampler asks the runtime (shim_alloc_sites.cpp implements it over the profiling API).
class AllocRuntime {
 public:
  virtual ~AllocRuntime() = default;
  /// The current thread's id (the profiling API's ThreadID), 0 if unknown.
  virtual uint64_t current_thread() noexcept = 0;
  /// The current thread's stack, innermost first, at most FRAMES.size() frames: FunctionID, or
  /// IP with NATIVE set. Returns the frame count; false in TRUNCATED when frames were left out.
  virtual size_t stack(std::span<uint64_t> frames, std::span<uint8_t> native, bool& truncated) noexcept = 0;
  /// Name a FunctionID (writer thread). False when the runtime cannot.
  virtual bool name_function(uint64_t function_id, StackFunction& out) = 0;
};

struct AllocSamplerStats {
  uint64_t events = 0;        ///< sampling events seen
  uint64_t kept = 0;          ///< samples kept (rows)
  uint64_t thinned = 0;       ///< events the rate cap stood a kept row for
  uint64_t stackless = 0;     ///< samples whose stack could not be taken
  uint64_t stacks = 0;        ///< distinct stacks
  uint64_t stack_bytes = 0;   ///< the stack table's estimated size (AllocSampler::stack_cost)
  uint64_t over_budget = 0;   ///< samples whose new stack the full table kept as "<truncated>"
};

class AllocSampler {
 public:
  /// The stack table's default budget (docs/shim.md "Allocation sites"): the interned stacks are
  /// kept for the whole recording, so a recording left on for hours must not grow them without
  /// bound. 32 MiB is about 70,000 stacks of 20 frames.
  static constexpr size_t kDefaultStackBudget = size_t{32} << 20;
  /// The bytes a stack of FRAMES frames is counted for: its frames, the table's and the hash
  /// map's entries, and the FunctionIDs it may add (an estimate of the real heap use).
  static constexpr size_t stack_cost(size_t frames) noexcept { return 128 + frames * (sizeof(StackFrame) + 48); }

  /// CAP_PER_SECOND: rows kept per second before thinning (docs/shim.md); CLOCK: ns;
  /// STACK_BUDGET: bytes of interned stacks (stack_cost each) before new stacks are not kept.
  AllocSampler(AllocRuntime& runtime, uint32_t cap_per_second, uint64_t (*clock)() noexcept,
               size_t stack_budget = kDefaultStackBudget) noexcept
      : runtime_(runtime), cap_(cap_per_second), clock_(clock), stack_budget_(stack_budget) {}

  /// An event of the shim's sessions: keeps it when it is a sampling event. On the allocating
  /// thread; never throws (an allocation failure turns sampling off: off() says so).
  void on_event(uint32_t id, uint32_t version, std::span<const uint8_t> payload) noexcept;
  /// Writer thread, inside the block of a GC that started at GC_START_NS: the samples taken
  /// before it, with the stacks, functions and types they introduce.
  Status write_before(Writer& writer, uint64_t gc_start_ns) noexcept;
  bool off() const noexcept { return off_.load(std::memory_order_relaxed); }
  /// Whether the stack table has reached its budget (new stacks are then kept as "<truncated>").
  bool stacks_full() const noexcept { return stacks_full_.load(std::memory_order_relaxed); }
  size_t stack_budget() const noexcept { return stack_budget_; }
  const char* problem() const noexcept { return problem_; }
  AllocSamplerStats stats() const noexcept;

 private:
  static constexpr size_t kMaxFrames = 64;
  /// The rate cap: 0 to drop this event, else the scale of the row to keep.
  uint32_t admit(uint64_t now) noexcept;
  uint32_t intern_stack(std::span<const uint64_t> values, std::span<const uint8_t> kinds);
  uint32_t add_stack(uint64_t hash, std::span<const uint64_t> values, std::span<const uint8_t> kinds);
  void keep(const SampleEvent& e, uint64_t now, uint32_t scale);
  void fail(const char* why) noexcept;

  AllocRuntime& runtime_;
  const uint32_t cap_;
  uint64_t (*clock_)() noexcept;
  std::atomic<bool> off_{false};
  std::atomic<bool> saw_sampled_{false};  ///< an AllocationSampled event came: ticks are dropped
  std::atomic<bool> stacks_full_{false};
  const size_t stack_budget_;
  const char* problem_ = "";
  // The rate cap's window (relaxed atomics: an approximate count is enough).
  std::atomic<uint64_t> window_start_{0};
  std::atomic<uint64_t> window_count_{0};
  std::atomic<uint64_t> events_{0}, thinned_{0}, stackless_{0};

  mutable std::mutex mutex_;  // everything below
  std::vector<AllocSample> pending_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> stack_ids_;  // frame hash -> ids
  std::vector<AllocStack> stacks_;                                  // id - 1 -> frames
  size_t stacks_written_ = 0;
  size_t stack_bytes_ = 0;      ///< stack_cost of every interned stack
  uint32_t over_budget_id_ = 0; ///< the one-frame "<truncated>" stack of a full table, once made
  uint64_t over_budget_ = 0;
  std::unordered_set<uint64_t> functions_seen_;
  std::vector<uint64_t> functions_new_;
  std::unordered_set<uint64_t> types_seen_;
  std::vector<SampledType> types_new_;
  uint64_t kept_ = 0;
};

}  // namespace gcsnap::shim
