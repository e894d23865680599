// Fuzz target: open a recording from bytes, then read every GC the way a user would
// (every read_* call, verify_gc). Any crash, leak, sanitizer report or thrown exception is a
// bug (format-spec.md §8.3: never crash, hang or read out of bounds; errors are values).
#include <cstddef>
#include <cstdint>
#include <span>

#include "gcsnap/reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
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
    auto names = r.read_block_names(i);
    if (names) {
      for (const auto& type : names->types()) (void)names->type_name(type.id);
    }
    (void)r.verify_gc(i);
  }
  if (n) (void)r.read_names(n - 1 < 64 ? n - 1 : 63);
  (void)r.read_roots(n);  // past the end: NotFound
  return 0;
}
