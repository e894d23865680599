#pragma once
// Recording internals shared by reader.cpp (open), reader_sections.cpp (read_*) and
// verify.cpp (verify_gc).

#include <cstdint>
#include <span>
#include <vector>

#include "format/block_walk.hpp"
#include "format/gc_summary.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap {

struct Recording::Impl {
  void* map_address = nullptr;  // owned mapping, or null for from_bytes
  size_t map_length = 0;
  std::span<const uint8_t> data;
  ReaderLimits limits;
  ReaderOptions options;
  std::vector<format::GcSummary> summaries;
  std::vector<GcEntry> gcs;
  FileEnd end = FileEnd::Complete;
  uint64_t end_offset = 0;
  Error end_error{};
  uint16_t major = 0;
  uint16_t minor = 0;
  uint64_t required_features = 0;  ///< §3

  ~Impl();
  /// Walk block I and return its data sections of TYPE.
  Result<std::vector<format::SectionRef>> sections_of(size_t i, format::SectionType type) const;
  /// Errors: NotFound when I is out of range.
  Status check_index(size_t i) const noexcept;
};

}  // namespace gcsnap
