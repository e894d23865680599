#include "event_payloads.hpp"

#include <bit>
#include <cstring>

namespace gcsnap::shim {
namespace {

/// A little-endian T at P, whose bytes the caller has checked are there. The range and walk
/// events carry thousands of rows each and are parsed on the GC's thread, inside its pause: a
/// byte-at-a-time checked load cost 40-90 ns per range, as much as the runtime's own cost.
template <typename T>
T load_le(const uint8_t* p) noexcept {
  T v;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&v, p, sizeof(T));
  } else {
    uint64_t value = 0;
    for (size_t i = 0; i < sizeof(T); ++i) value |= uint64_t{p[i]} << (8 * i);
    v = static_cast<T>(value);
  }
  return v;
}

/// A cursor over a payload: every load checks the bytes left first.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) noexcept : bytes_(bytes) {}
  size_t left() const noexcept { return bytes_.size() - at_; }
  /// The bytes not read yet (left() of them).
  const uint8_t* rest() const noexcept { return bytes_.data() + at_; }
  bool u8(uint8_t& v) noexcept { return load(v, 1); }
  bool u16(uint16_t& v) noexcept { return load(v, 2); }
  bool u32(uint32_t& v) noexcept { return load(v, 4); }
  bool u64(uint64_t& v) noexcept { return load(v, 8); }

 private:
  template <typename T>
  bool load(T& v, size_t n) noexcept {
    if (left() < n) return false;
    uint64_t value = 0;
    for (size_t i = 0; i < n; ++i) value |= uint64_t{bytes_[at_ + i]} << (8 * i);
    v = static_cast<T>(value);
    at_ += n;
    return true;
  }
  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
};

/// The common head of the bulk events: Index u32, Count u32, ClrInstanceID u16. True when the
/// rest is exactly Count elements of ELEMENT bytes (a longer payload means another layout).
bool bulk_head(Reader& r, size_t element, uint32_t& count) noexcept {
  uint32_t index = 0;
  uint16_t instance = 0;
  if (!r.u32(index) || !r.u32(count) || !r.u16(instance)) return false;
  return r.left() / element >= count && r.left() == size_t{count} * element;
}

}  // namespace

std::optional<GcStartEvent> parse_gc_start(std::span<const uint8_t> payload) noexcept {
  Reader r(payload);
  GcStartEvent e;
  uint32_t type = 0;
  if (!r.u32(e.count) || !r.u32(e.depth) || !r.u32(e.reason) || !r.u32(type)) return std::nullopt;
  if (e.depth > 2 || type > 2) return std::nullopt;
  e.kind = static_cast<GcKind>(type);
  return e;
}

std::optional<GcEndEvent> parse_gc_end(std::span<const uint8_t> payload) noexcept {
  Reader r(payload);
  GcEndEvent e;
  if (!r.u32(e.count) || !r.u32(e.depth)) return std::nullopt;
  return e;
}

bool parse_surviving(std::span<const uint8_t> payload, SurvivingBatch& out) {
  out.starts.clear(), out.lengths.clear();
  Reader r(payload);
  uint32_t count = 0;
  if (!bulk_head(r, 16, count)) return false;
  out.starts.resize(count), out.lengths.resize(count);
  const uint8_t* p = r.rest();  // bulk_head checked: exactly count rows of 16 bytes
  for (uint32_t i = 0; i < count; ++i, p += 16) {
    out.starts[i] = load_le<uint64_t>(p);
    out.lengths[i] = load_le<uint64_t>(p + 8);
  }
  return true;
}

bool parse_moved(std::span<const uint8_t> payload, MovedBatch& out) {
  out.old_starts.clear(), out.new_starts.clear(), out.lengths.clear();
  Reader r(payload);
  uint32_t count = 0;
  if (!bulk_head(r, 24, count)) return false;
  out.old_starts.resize(count), out.new_starts.resize(count), out.lengths.resize(count);
  const uint8_t* p = r.rest();  // bulk_head checked: exactly count rows of 24 bytes
  for (uint32_t i = 0; i < count; ++i, p += 24) {
    out.old_starts[i] = load_le<uint64_t>(p);
    out.new_starts[i] = load_le<uint64_t>(p + 8);
    out.lengths[i] = load_le<uint64_t>(p + 16);
  }
  return true;
}

bool parse_nodes(std::span<const uint8_t> payload, NodeBatch& out) {
  out.addresses.clear(), out.sizes.clear(), out.types.clear(), out.edge_counts.clear();
  Reader r(payload);
  uint32_t count = 0;
  if (!bulk_head(r, 32, count)) return false;
  out.addresses.resize(count), out.sizes.resize(count), out.types.resize(count), out.edge_counts.resize(count);
  const uint8_t* p = r.rest();  // bulk_head checked: exactly count rows of 32 bytes
  for (uint32_t i = 0; i < count; ++i, p += 32) {
    out.addresses[i] = load_le<uint64_t>(p);
    out.sizes[i] = load_le<uint64_t>(p + 8);
    out.types[i] = load_le<uint64_t>(p + 16);
    out.edge_counts[i] = load_le<uint64_t>(p + 24);
  }
  return true;
}

bool parse_edges(std::span<const uint8_t> payload, std::vector<uint64_t>& out) {
  out.clear();
  Reader r(payload);
  uint32_t count = 0;
  if (!bulk_head(r, 12, count)) return false;
  out.resize(count);
  const uint8_t* p = r.rest();  // bulk_head checked: exactly count rows of 12 bytes
  for (uint32_t i = 0; i < count; ++i, p += 12) out[i] = load_le<uint64_t>(p);  // then ReferencingFieldID
  return true;
}

bool parse_roots(std::span<const uint8_t> payload, RootBatch& out) {
  out.objects.clear(), out.root_ids.clear(), out.kinds.clear(), out.flags.clear();
  Reader r(payload);
  uint32_t count = 0;
  if (!bulk_head(r, 21, count)) return false;  // packed: u64, u8, u32, u64
  out.objects.resize(count), out.root_ids.resize(count), out.kinds.resize(count), out.flags.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t kind = 0;
    (void)(r.u64(out.objects[i]) && r.u8(kind) && r.u32(out.flags[i]) && r.u64(out.root_ids[i]));
    out.kinds[i] = kind;
  }
  return true;
}

bool parse_dependent_handles(std::span<const uint8_t> payload, DependentBatch& out) {
  out.keys.clear(), out.values.clear();
  Reader r(payload);
  uint32_t count = 0;
  if (!bulk_head(r, 24, count)) return false;
  out.keys.resize(count), out.values.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t handle = 0;
    (void)(r.u64(out.keys[i]) && r.u64(out.values[i]) && r.u64(handle));
  }
  return true;
}

uint32_t profiler_root_kind(uint32_t event_kind) noexcept {
  switch (event_kind) {
    case 0: return 1;  // stack
    case 1: return 2;  // finalizer queue
    case 2: return 3;  // handle
    default: return 0;
  }
}

}  // namespace gcsnap::shim
