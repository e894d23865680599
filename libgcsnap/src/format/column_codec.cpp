#include "format/column_codec.hpp"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

#include "format/varint.hpp"
#include "platform/thread_cache.hpp"

namespace gcsnap::format {

// pdep is one fast instruction on Intel (Haswell on) and AMD Zen 3 on; Zen 1/2 (and Hygon)
// run it in microcode, many times slower than the shift-and-mask spread.
bool has_fast_pdep() noexcept {
#if defined(__x86_64__) && defined(__GNUC__)
  if (!__builtin_cpu_supports("bmi2")) return false;
  if (__builtin_cpu_is("intel")) return true;
  if (!__builtin_cpu_is("amd")) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const unsigned base = (a >> 8) & 0xF;
  const unsigned family = base == 0xF ? base + ((a >> 20) & 0xFF) : base;
  return family >= 0x19;
#else
  return false;
#endif
}

namespace {

constexpr size_t varint_length(uint64_t v) noexcept {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Append one column (kind byte, LEB128 byte length, data) whose data ENCODE writes straight
// into OUT: at most MAX_BYTES, at least MIN_BYTES; ENCODE(dst) returns the bytes written.
// The length's own size is guessed before encoding (twice the least data) and the data moved
// only when the guess was wrong, which is rare: no scratch buffer and no copy of the column.
template <typename Encode>
void put_column(uint8_t kind, size_t min_bytes, size_t max_bytes, ByteBuffer& out, Encode&& encode) {
  const size_t guess = varint_length(2 * static_cast<uint64_t>(min_bytes));
  uint8_t* const head = out.room(1 + kMaxVarintBytes + max_bytes + 8);  // + 8: put_varint_fast stores 8 bytes
  uint8_t* const data = head + 1 + guess;
  const size_t size = encode(data);
  head[0] = kind;
  const size_t length_bytes = varint_length(size);
  if (length_bytes != guess) std::memmove(head + 1 + length_bytes, data, size);
  put_varint(head + 1, size);
  out.commit(1 + length_bytes + size);
}

namespace plain {
#define GCSNAP_PUT_VARINT put_varint_fast
#include "format/varint_loops.inc"
#undef GCSNAP_PUT_VARINT
}  // namespace plain

#if defined(__x86_64__) && defined(__GNUC__)
// The loops are compiled for BMI2 so that put_varint_pdep inlines into them; clang ignores
// GCC's target pragma and takes its own attribute pragma (the fuzz builds use clang).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("bmi2")
#endif
namespace bmi2 {
#define GCSNAP_PUT_VARINT put_varint_pdep
#include "format/varint_loops.inc"
#undef GCSNAP_PUT_VARINT
}  // namespace bmi2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

struct VarintLoops {
  size_t (*values64)(const uint64_t*, size_t, unsigned, uint8_t*);
  size_t (*values32)(const uint32_t*, size_t, unsigned, uint8_t*);
  size_t (*deltas)(const uint64_t*, size_t, unsigned, bool, uint8_t*);
};

const VarintLoops& varint_loops() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const VarintLoops loops = has_fast_pdep() ? VarintLoops{bmi2::put_values64, bmi2::put_values32, bmi2::put_deltas}
                                                   : VarintLoops{plain::put_values64, plain::put_values32, plain::put_deltas};
#else
  static const VarintLoops loops{plain::put_values64, plain::put_values32, plain::put_deltas};
#endif
  return loops;
}

size_t put_values(const uint64_t* v, size_t n, unsigned shift, uint8_t* o) { return varint_loops().values64(v, n, shift, o); }
size_t put_values(const uint32_t* v, size_t n, unsigned shift, uint8_t* o) { return varint_loops().values32(v, n, shift, o); }

template <typename T>
void encode_varints(std::span<const T> values, ByteBuffer& out) {
  uint64_t any_low = 0;
  for (T v : values) any_low |= v;
  const unsigned shift = (any_low & 7) == 0 && !values.empty() ? 3 : 0;
  const size_t count = values.size();
  put_column(static_cast<uint8_t>(ColumnKind::Varint) | (shift ? kColumnShift3 : 0), count, count * kMaxVarintBytes,
             out, [&](uint8_t* const base) { return put_values(values.data(), count, shift, base); });
}

// The edge encoder's zigzag deltas (reused: its pages stay mapped from chunk to chunk).
struct EdgeDeltasTag;
ByteBuffer& t_edge_deltas() { return platform::thread_cached<ByteBuffer, EdgeDeltasTag>(); }

// The std::vector overloads (tests and tools craft payloads with them) go through this.
struct VectorStagingTag;
ByteBuffer& t_vector_staging() { return platform::thread_cached<ByteBuffer, VectorStagingTag>(); }
template <typename F>
void to_vector(std::vector<uint8_t>& out, F&& encode) {
  ByteBuffer& b = t_vector_staging();
  b.clear();
  encode(b);
  out.insert(out.end(), b.data(), b.data() + b.size());
}

}  // namespace

void encode_bytes_column(std::span<const uint8_t> values, ByteBuffer& out) {
  uint8_t head[1 + kMaxVarintBytes];
  head[0] = static_cast<uint8_t>(ColumnKind::Bytes);
  size_t n = 1 + put_varint(head + 1, values.size());
  out.append(head, n);
  out.append(values.data(), values.size());
}

void encode_varint_column(std::span<const uint64_t> values, ByteBuffer& out) { encode_varints(values, out); }
void encode_varint_column(std::span<const uint32_t> values, ByteBuffer& out) { encode_varints(values, out); }

void encode_delta_column(std::span<const uint64_t> values, ByteBuffer& out) {
  uint64_t any_low = 0;
  bool sorted = true;
  uint64_t prev = 0;
  for (uint64_t v : values) {
    any_low |= v;
    sorted = sorted && v >= prev;
    prev = v;
  }
  const unsigned shift = (any_low & 7) == 0 && !values.empty() ? 3 : 0;
  const size_t count = values.size();
  auto kind = sorted ? ColumnKind::Delta : ColumnKind::DeltaZigzag;
  put_column(static_cast<uint8_t>(kind) | (shift ? kColumnShift3 : 0), count, count * kMaxVarintBytes, out,
             [&](uint8_t* const base) { return varint_loops().deltas(values.data(), count, shift, sorted, base); });
}

// The edge column in two flat passes. Why: one loop per object with an inner loop over its
// targets mispredicted the inner loop's exit on most objects (out-degrees 0-3 in no order),
// and the encoder was ~28 % of the writer's CPU (docs/performance.md,
// "Format, writer, reader and analyses"). Pass 1 computes every edge's zigzag delta with four unconditional lanes per object
// (lanes past the object's count are overwritten by the objects after it); pass 2 writes the
// varints in one loop over the edges. Same bytes as before.
void encode_edge_column(std::span<const uint64_t> sources, std::span<const uint32_t> counts,
                        std::span<const uint64_t> targets, ByteBuffer& out) {
  const size_t n = sources.size();
  const size_t total = targets.size();
  const uint64_t* src_p = sources.data();
  const uint32_t* count_p = counts.data();
  const uint64_t* t = targets.data();
  uint64_t any_low = 0;
  for (size_t i = 0; i < total; ++i) any_low |= t[i];
  for (size_t i = 0; i < n; ++i) any_low |= src_p[i] & (0 - static_cast<uint64_t>(count_p[i] != 0));
  const unsigned shift = (any_low & 7) == 0 && total != 0 ? 3 : 0;

  constexpr size_t kLanes = 4;
  ByteBuffer& scratch = t_edge_deltas();
  scratch.clear();
  uint64_t* const z = reinterpret_cast<uint64_t*>(scratch.room((total + kLanes) * sizeof(uint64_t)));
  size_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t src = src_p[i] >> shift;
    size_t c = count_p[i];
    if (c <= kLanes && pos + kLanes <= total) {
      for (size_t k = 0; k < kLanes; ++k) z[pos + k] = zigzag_encode((t[pos + k] >> shift) - src);
    } else {
      c = std::min(c, total - pos);  // the counts add up to total (callers check); never past it
      for (size_t k = 0; k < c; ++k) z[pos + k] = zigzag_encode((t[pos + k] >> shift) - src);
    }
    pos += c;
  }
  put_column(static_cast<uint8_t>(ColumnKind::Edge) | (shift ? kColumnShift3 : 0), total, total * kMaxVarintBytes,
             out, [&](uint8_t* const base) { return put_values(z, total, 0, base); });
}

void encode_bytes_column(std::span<const uint8_t> values, std::vector<uint8_t>& out) {
  to_vector(out, [&](ByteBuffer& b) { encode_bytes_column(values, b); });
}
void encode_varint_column(std::span<const uint64_t> values, std::vector<uint8_t>& out) {
  to_vector(out, [&](ByteBuffer& b) { encode_varint_column(values, b); });
}
void encode_varint_column(std::span<const uint32_t> values, std::vector<uint8_t>& out) {
  to_vector(out, [&](ByteBuffer& b) { encode_varint_column(values, b); });
}
void encode_delta_column(std::span<const uint64_t> values, std::vector<uint8_t>& out) {
  to_vector(out, [&](ByteBuffer& b) { encode_delta_column(values, b); });
}
void encode_edge_column(std::span<const uint64_t> sources, std::span<const uint32_t> counts,
                        std::span<const uint64_t> targets, std::vector<uint8_t>& out) {
  to_vector(out, [&](ByteBuffer& b) { encode_edge_column(sources, counts, targets, b); });
}

Status ColumnCursor::next(uint8_t& kind, std::span<const uint8_t>& data) {
  const uint8_t* p = payload_.data() + pos_;
  const uint8_t* end = payload_.data() + payload_.size();
  if (p >= end) return corrupt("column missing");
  kind = *p++;
  uint64_t len = 0;
  size_t used = get_varint(p, end, len);
  if (used == 0) return corrupt("column length");
  p += used;
  if (len > static_cast<uint64_t>(end - p)) return corrupt("column longer than its section");
  data = {p, static_cast<size_t>(len)};
  pos_ = static_cast<size_t>(p + len - payload_.data());
  return {};
}

Status ColumnCursor::read_bytes(uint64_t n, std::vector<uint8_t>& out) {
  uint8_t kind = 0;
  std::span<const uint8_t> data;
  GCSNAP_RETURN_IF_ERROR(next(kind, data));
  if (kind != static_cast<uint8_t>(ColumnKind::Bytes)) return corrupt("column kind is not bytes");
  if (data.size() != n) return corrupt("byte column length disagrees with its count");
  out.assign(data.begin(), data.end());
  return {};
}

namespace {

// One loop per encoding and shift so that the per-value work has no mode branches.
template <int Base, unsigned Shift>
bool decode_values(const uint8_t* p, const uint8_t* end, uint64_t n, uint64_t* dst, uint64_t max_value) {
  uint64_t prev = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    size_t used = get_varint_any(p, end, v);
    if (used == 0) return false;
    p += used;
    if constexpr (Base == 2) v = prev + v;
    if constexpr (Base == 3) v = prev + zigzag_decode(v);
    prev = v;
    if constexpr (Shift != 0) {
      if ((v >> 61) != 0) return false;
    }
    const uint64_t value = v << Shift;
    if (value > max_value) return false;
    dst[i] = value;
  }
  return p == end;
}

template <unsigned Shift>
bool decode_any(uint8_t base, const uint8_t* p, const uint8_t* end, uint64_t n, uint64_t* dst, uint64_t max) {
  switch (base) {
    case 1: return decode_values<1, Shift>(p, end, n, dst, max);
    case 2: return decode_values<2, Shift>(p, end, n, dst, max);
    default: return decode_values<3, Shift>(p, end, n, dst, max);
  }
}

}  // namespace

Status ColumnCursor::read_u64(uint64_t n, std::vector<uint64_t>& out, uint64_t max_value) {
  uint8_t kind = 0;
  std::span<const uint8_t> data;
  GCSNAP_RETURN_IF_ERROR(next(kind, data));
  // Each value takes at least one byte: this bounds the allocation by the real data.
  if (n > data.size()) return corrupt("integer column shorter than its count");
  out.resize(static_cast<size_t>(n));
  return decode_column(kind, data, n, out.data(), max_value);
}

Status ColumnCursor::read_u64_into(uint64_t n, uint64_t* dst, uint64_t max_value) {
  uint8_t kind = 0;
  std::span<const uint8_t> data;
  GCSNAP_RETURN_IF_ERROR(next(kind, data));
  if (n > data.size()) return corrupt("integer column shorter than its count");
  return decode_column(kind, data, n, dst, max_value);
}

Status ColumnCursor::decode_column(uint8_t kind, std::span<const uint8_t> data, uint64_t n, uint64_t* dst,
                                   uint64_t max_value) {
  const uint8_t base = kind & 0x0F;
  if ((kind & ~(0x0F | kColumnShift3)) != 0 || base < 1 || base > 3) return corrupt("column kind is not integer");
  const uint8_t* p = data.data();
  const uint8_t* end = p + data.size();
  bool ok = (kind & kColumnShift3) ? decode_any<3>(base, p, end, n, dst, max_value)
                                   : decode_any<0>(base, p, end, n, dst, max_value);
  if (!ok) return corrupt("integer column malformed (bad varint, value too large, or bytes left over)");
  return {};
}

Status ColumnCursor::read_edges(const uint64_t* sources, const uint64_t* counts, size_t n, uint64_t total,
                                uint64_t* dst) {
  uint8_t kind = 0;
  std::span<const uint8_t> data;
  GCSNAP_RETURN_IF_ERROR(next(kind, data));
  if ((kind & 0x0F) != static_cast<uint8_t>(ColumnKind::Edge) || (kind & ~(0x0F | kColumnShift3)) != 0)
    return corrupt("column kind is not edge");
  const unsigned shift = (kind & kColumnShift3) ? 3 : 0;
  const uint64_t low_mask = shift ? 7 : 0;
  if (total > data.size()) return corrupt("edge column shorter than its count");
  const uint8_t* p = data.data();
  const uint8_t* end = p + data.size();
  uint64_t t = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t count = counts[i];
    if (count == 0) continue;
    if (count > total - t) return corrupt("edge counts exceed the edge total");
    if (sources[i] & low_mask) return corrupt("edge shift on an unaligned source");
    const uint64_t src = sources[i] >> shift;
    for (uint64_t* out = dst + t, *stop = out + count; out < stop; ++out) {
      uint64_t z = 0;
      size_t used = get_varint_any(p, end, z);
      if (used == 0) return corrupt("bad varint");
      p += used;
      uint64_t v = src + zigzag_decode(z);
      if (shift && (v >> 61) != 0) return corrupt("shifted value overflows 64 bits");
      *out = v << shift;
    }
    t += count;
  }
  if (p != end || t != total) return corrupt("edge column has bytes left over");
  return {};
}

Status ColumnCursor::finish() const {
  if (pos_ != payload_.size()) return corrupt("section has bytes after its last column");
  return {};
}

}  // namespace gcsnap::format
