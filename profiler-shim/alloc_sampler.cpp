#include "alloc_sampler.hpp"

#include <algorithm>
#include <cstring>

#include "gcsnap/writer.hpp"
#include "gcsnap_utf16_text.hpp"

namespace gcsnap::shim {
namespace {

// Bounds-checked little-endian reads over a payload (the runtime's, but never trusted).
class PayloadReader {
 public:
  explicit PayloadReader(std::span<const uint8_t> p) noexcept : p_(p) {}
  bool u16(uint64_t& v) noexcept { return read(2, v); }
  bool u32(uint64_t& v) noexcept { return read(4, v); }
  bool u64(uint64_t& v) noexcept { return read(8, v); }
  /// A NUL-terminated UTF-16 string: its bytes without the NUL.
  bool utf16(std::span<const uint8_t>& out) noexcept {
    for (size_t i = pos_; i + 1 < p_.size(); i += 2) {
      if (p_[i] == 0 && p_[i + 1] == 0) {
        out = p_.subspan(pos_, i - pos_);
        pos_ = i + 2;
        return true;
      }
    }
    return false;
  }

 private:
  bool read(size_t n, uint64_t& v) noexcept {
    if (p_.size() - pos_ < n) return false;
    v = 0;
    for (size_t k = 0; k < n; ++k) v |= uint64_t{p_[pos_ + k]} << (8 * k);
    pos_ += n;
    return true;
  }
  std::span<const uint8_t> p_;
  size_t pos_ = 0;
};

// FNV-1a over the frames: stacks are interned by it (equal frames checked on a match).
uint64_t hash_frames(std::span<const uint64_t> values, std::span<const uint8_t> kinds) noexcept {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < values.size(); ++i) {
    h = (h ^ values[i]) * 1099511628211ull;
    h = (h ^ kinds[i]) * 1099511628211ull;
  }
  return h;
}

bool same_frames(const AllocStack& s, std::span<const uint64_t> values, std::span<const uint8_t> kinds) noexcept {
  if (s.frames.size() != values.size()) return false;
  for (size_t i = 0; i < values.size(); ++i)
    if (s.frames[i].value != values[i] || static_cast<uint8_t>(s.frames[i].kind) != kinds[i]) return false;
  return true;
}

}  // namespace

std::optional<SampleEvent> parse_sample_event(uint32_t id, uint32_t version, std::span<const uint8_t> payload) noexcept {
  PayloadReader r(payload);
  SampleEvent e;
  uint64_t heap = 0, skip = 0;
  if (id == alloc_event::kSampled && version == 0) {
    // AllocationKind u32 | ClrInstanceID u16 | TypeID u64 | TypeName | Address u64 | ObjectSize u64 | SampledByteOffset u64
    if (!r.u32(heap) || !r.u16(skip) || !r.u64(e.class_id) || !r.utf16(e.type_name_utf16) || !r.u64(e.address) ||
        !r.u64(e.size))
      return std::nullopt;
    e.kind = AllocSampleKind::Sampled;
  } else if (id == alloc_event::kTick && version >= 4) {
    // AllocationAmount u32 | AllocationKind u32 | ClrInstanceID u16 | AllocationAmount64 u64 | TypeID u64 |
    // TypeName | HeapIndex u32 | Address u64 | ObjectSize u64
    if (!r.u32(skip) || !r.u32(heap) || !r.u16(skip) || !r.u64(e.amount) || !r.u64(e.class_id) ||
        !r.utf16(e.type_name_utf16) || !r.u32(skip) || !r.u64(e.address) || !r.u64(e.size))
      return std::nullopt;
    e.kind = AllocSampleKind::Tick;
  } else {
    return std::nullopt;
  }
  if (heap > 2 || e.address == 0 || e.size == 0) return std::nullopt;
  e.heap = static_cast<AllocHeap>(heap);
  return e;
}

uint32_t AllocSampler::admit(uint64_t now) noexcept {
  if (cap_ == 0) return 1;
  const uint64_t second = now / 1000000000ull;
  uint64_t start = window_start_.load(std::memory_order_relaxed);
  if (second != start && window_start_.compare_exchange_strong(start, second, std::memory_order_relaxed))
    window_count_.store(0, std::memory_order_relaxed);
  const uint64_t n = window_count_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (n <= cap_) return 1;
  // Over the cap: one row in 16 (then in 256) stands for the events between, so the
  // estimates stay unbiased while the stack walks stay bounded.
  const uint64_t over = n - cap_;
  const uint32_t step = over <= 3ull * cap_ ? 16 : 256;
  if (over % step != 0) {
    thinned_.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  return step;
}

void AllocSampler::on_event(uint32_t id, uint32_t version, std::span<const uint8_t> payload) noexcept {
  if (off_.load(std::memory_order_relaxed)) return;
  if (id != alloc_event::kSampled && id != alloc_event::kTick) return;
  const auto e = parse_sample_event(id, version, payload);
  if (!e) return;  // another version of the event: not ours to read
  // Both events may come (the runtime's version unknown at an attach): the unbiased one wins.
  if (e->kind == AllocSampleKind::Sampled) {
    saw_sampled_.store(true, std::memory_order_relaxed);
  } else if (saw_sampled_.load(std::memory_order_relaxed)) {
    return;
  }
  events_.fetch_add(1, std::memory_order_relaxed);
  const uint64_t now = clock_();
  const uint32_t scale = admit(now);
  if (scale == 0) return;
  try {
    keep(*e, now, scale);
  } catch (...) {
    fail("out of memory");
  }
}

void AllocSampler::keep(const SampleEvent& e, uint64_t now, uint32_t scale) {
  uint64_t values[kMaxFrames];
  uint8_t native[kMaxFrames];
  bool truncated = false;
  // The stack first, outside the lock: it is the costly part (about 1-2 µs).
  const size_t n = runtime_.stack({values, kMaxFrames - 1}, {native, kMaxFrames - 1}, truncated);
  size_t count = n;
  if (n != 0 && truncated) values[count] = 0, native[count] = static_cast<uint8_t>(FrameKind::Truncated), ++count;
  if (n == 0) stackless_.fetch_add(1, std::memory_order_relaxed);
  const uint64_t thread = runtime_.current_thread();
  std::lock_guard lock(mutex_);
  const uint32_t stack_id = count ? intern_stack({values, count}, {native, count}) : 0;
  if (e.class_id != 0 && types_seen_.insert(e.class_id).second) {
    const size_t units = e.type_name_utf16.size() / 2;
    std::u16string text(units, u'\0');
    std::memcpy(text.data(), e.type_name_utf16.data(), units * 2);
    std::string name = text::utf8_from_utf16(std::u16string_view(text));
    if (name.size() > kMaxNameBytes) name.resize(kMaxNameBytes);
    types_new_.push_back(SampledType{e.class_id, std::move(name)});
  }
  pending_.push_back(AllocSample{e.address, e.class_id, e.size, e.amount, thread, now, stack_id, scale, e.kind, e.heap});
  ++kept_;
}

uint32_t AllocSampler::intern_stack(std::span<const uint64_t> values, std::span<const uint8_t> kinds) {
  const uint64_t hash = hash_frames(values, kinds);
  auto found = stack_ids_.find(hash);
  if (found != stack_ids_.end())
    for (uint32_t id : found->second)
      if (same_frames(stacks_[id - 1], values, kinds)) return id;
  if (stack_bytes_ + stack_cost(values.size()) <= stack_budget_) return add_stack(hash, values, kinds);
  // The table is full: stacks seen before still match, a new one is kept as one stack that
  // says only "<truncated>", so the sample and its bytes still count (docs/shim.md).
  stacks_full_.store(true, std::memory_order_relaxed);
  ++over_budget_;
  if (over_budget_id_ == 0) {
    AllocStack stack{static_cast<uint32_t>(stacks_.size() + 1), {StackFrame{0, FrameKind::Truncated}}};
    stacks_.push_back(std::move(stack));
    over_budget_id_ = stacks_.back().id;
  }
  return over_budget_id_;
}

uint32_t AllocSampler::add_stack(uint64_t hash, std::span<const uint64_t> values, std::span<const uint8_t> kinds) {
  AllocStack stack{static_cast<uint32_t>(stacks_.size() + 1), {}};
  stack.frames.resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    stack.frames[i] = StackFrame{values[i], static_cast<FrameKind>(kinds[i])};
    if (kinds[i] == static_cast<uint8_t>(FrameKind::Managed) && functions_seen_.insert(values[i]).second)
      functions_new_.push_back(values[i]);
  }
  stacks_.push_back(std::move(stack));
  stack_ids_[hash].push_back(stacks_.back().id);
  stack_bytes_ += stack_cost(values.size());
  return stacks_.back().id;
}

Status AllocSampler::write_before(Writer& writer, uint64_t gc_start_ns) noexcept {
  try {
    std::vector<AllocSample> samples;
    std::vector<AllocStack> stacks;
    std::vector<uint64_t> functions;
    std::vector<SampledType> types;
    {
      std::lock_guard lock(mutex_);
      // Samples of threads racing this GC's start go to the next block (its GC comes after them).
      auto split = std::stable_partition(pending_.begin(), pending_.end(),
                                         [&](const AllocSample& s) { return s.time_ns < gc_start_ns; });
      samples.assign(pending_.begin(), split);
      pending_.erase(pending_.begin(), split);
      stacks.assign(stacks_.begin() + static_cast<ptrdiff_t>(stacks_written_), stacks_.end());
      stacks_written_ = stacks_.size();
      functions.swap(functions_new_);
      types.swap(types_new_);
    }
    std::vector<StackFunction> named;
    for (uint64_t f : functions) {
      StackFunction fn;
      fn.function_id = f;
      if (runtime_.name_function(f, fn)) named.push_back(std::move(fn));
    }
    GCSNAP_RETURN_IF_ERROR(write_sampled_types(writer, types));
    GCSNAP_RETURN_IF_ERROR(write_stack_functions(writer, named));
    GCSNAP_RETURN_IF_ERROR(write_alloc_stacks(writer, stacks));
    return write_alloc_samples(writer, samples);
  } catch (...) {
    fail("out of memory while writing samples");
    return {};
  }
}

void AllocSampler::fail(const char* why) noexcept {
  problem_ = why;
  off_.store(true);
}

AllocSamplerStats AllocSampler::stats() const noexcept {
  AllocSamplerStats s;
  s.events = events_.load();
  s.thinned = thinned_.load();
  s.stackless = stackless_.load();
  std::lock_guard lock(mutex_);
  s.kept = kept_;
  s.stacks = stacks_.size();
  s.stack_bytes = stack_bytes_;
  s.over_budget = over_budget_;
  return s;
}

}  // namespace gcsnap::shim
