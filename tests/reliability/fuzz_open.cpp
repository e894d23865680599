// Fuzz target: open a recording from bytes, then read every GC the way a user would
// (every read_* call, verify_gc). Any crash, leak, sanitizer report or thrown exception is a
// bug (format-spec.md §8.3: never crash, hang or read out of bounds; errors are values).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "gcsnap/alloc_samples.hpp"
#include "gcsnap/reader.hpp"

#ifdef GCSNAP_FUZZ_FIX_CHECKSUMS
// fuzz_open_fixsum: before opening, recompute every checksum the input's structure lets us
// find (file header, each section header and stored payload in a walk by stored_size, the
// trailer), so mutations reach the decoders behind the checksums through the real open path.
#include <vector>

#include "format/byte_io.hpp"
#include "format/format_constants.hpp"
#include "format/section.hpp"

namespace {
std::vector<uint8_t> fix_checksums(const uint8_t* data, size_t size) {
  using namespace gcsnap::format;
  std::vector<uint8_t> b(data, data + size);
  if (size < kFileHeaderSize) return b;
  uint64_t header_size = load_le32(&b[12]);
  if (header_size < kFileHeaderSize || header_size > size || header_size % 8) return b;
  store_le64(&b[header_size - 8], checksum64({b.data(), static_cast<size_t>(header_size - 8)}));
  uint64_t pos = header_size;
  const uint64_t body_end = size >= kTrailerSize ? size - kTrailerSize : size;
  while (pos + kSectionHeaderSize <= size) {
    uint8_t* h = &b[pos];
    const uint64_t stored = load_le64(h + 16);
    const uint64_t left = size - pos - kSectionHeaderSize;
    if (stored <= left) store_le64(h + 32, checksum64({h + kSectionHeaderSize, static_cast<size_t>(stored)}));
    uint8_t copy[kSectionHeaderSize];
    std::memcpy(copy, h, kSectionHeaderSize);
    std::memset(copy + 4, 0, 4);
    store_le32(h + 4, static_cast<uint32_t>(checksum64({copy, kSectionHeaderSize})));
    if (stored > left) break;
    pos += kSectionHeaderSize + stored;
    if (pos >= body_end) break;
  }
  if (size >= kTrailerSize + kFileHeaderSize) {
    uint8_t* t = &b[size - kTrailerSize];
    store_le64(t + 16, checksum64({t, 16}));
  }
  return b;
}
}  // namespace
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
#ifdef GCSNAP_FUZZ_FIX_CHECKSUMS
  const std::vector<uint8_t> fixed = fix_checksums(data, size);
  data = fixed.data();
  size = fixed.size();
#endif
  // Caps lower than the defaults keep one input's memory well under libFuzzer's RSS limit;
  // the code paths are the same.
  gcsnap::ReaderLimits limits;
  limits.max_section_decoded_bytes = 64u << 20;
  limits.max_gc_decoded_bytes = 256u << 20;
  limits.max_blocks = 1u << 16;
  auto rec = gcsnap::Recording::from_bytes({reinterpret_cast<const std::byte*>(data), size}, limits);
  if (!rec) return 0;
  const auto& r = **rec;
  (void)r.end();
  (void)r.end_offset();
  const size_t n = r.gcs().size();
  for (size_t i = 0; i < n && i < 64; ++i) {
    (void)r.read_generation_bounds(i);
    (void)r.read_roots(i);
    (void)r.read_ranges(i);
    auto objects = r.read_objects(i);
    if (objects) {
      // The CSR must be well formed whenever the reader says ok.
      const auto& t = *objects;
      if (t.reference_offsets.size() != t.size() + 1 || t.reference_offsets.back() != t.reference_targets.size())
        __builtin_trap();
      for (size_t k = 1; k < t.size(); ++k)
        if (t.addresses[k - 1] >= t.addresses[k]) __builtin_trap();
    }
    auto strings = r.read_string_values(i);
    if (strings)
      for (size_t k = 1; k < strings->size(); ++k)
        if ((*strings)[k - 1].address >= (*strings)[k].address) __builtin_trap();
    std::string storage;
    (void)r.read_string_contents(i, storage);
    (void)r.read_collection_values(i);
    (void)r.read_value_capture(i);
    auto names = r.read_block_names(i);
    if (names) {
      for (const auto& type : names->types()) (void)names->type_name(type.id);
    }
    (void)r.verify_gc(i);
    (void)gcsnap::read_alloc_samples(r, i);  // format-spec.md §6.18
  }
  if (n) (void)r.read_names(n - 1 < 64 ? n - 1 : 63);
  if (n) {
    // §6.18-§6.21: the names, and every sample followed through the GCs after it.
    const size_t last = n - 1 < 64 ? n - 1 : 63;
    if (auto names = gcsnap::AllocNames::read(r, last)) {
      for (const auto& stack : names->stacks())
        for (const auto& frame : stack.frames) (void)names->frame_name(frame);
    }
    (void)gcsnap::follow_alloc_samples(r, 0, last);
  }
  (void)r.read_roots(n);  // past the end: NotFound
  return 0;
}
