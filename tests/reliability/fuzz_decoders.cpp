// Fuzz target: every decoder below the reader, fed directly. Input layout:
//   byte 0: which decoder (mod the number of decoders)
//   bytes 1..8: item count (little-endian; only the low 16 bits are used for counts)
//   rest: the bytes given to the decoder (a decoded section payload, a header, ...).
// Seeds: tests/reliability/make_decoder_seeds extracts every section of the golden files.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "format/alloc_sections.hpp"
#include "format/byte_io.hpp"
#include "format/chunk_decoder.hpp"
#include "format/column_codec.hpp"
#include "format/file_header.hpp"
#include "format/gc_summary.hpp"
#include "format/section.hpp"
#include "format/value_sections.hpp"
#include "format/varint.hpp"

using namespace gcsnap;
using namespace gcsnap::format;

namespace {

enum Decoder : uint8_t {
  kGenerationBounds, kRoots, kSurviving, kMoved, kObjects, kTypes, kMethods,
  kSectionHeaderAndPayload, kGcInfo, kGcSummary, kFileHeader, kTrailer, kVarints, kColumns,
  kDependentHandles,  // 1.1; new decoders go last so that existing seeds keep their meaning
  kStringValues, kStringContents, kCollectionValues, kValueCapture,  // 1.5 (§6.23-§6.26)
  kAllocSamples, kAllocStacks, kStackFunctions, kSampledTypes, kDelegateTargets,  // 1.5 (§6.18-§6.22)
  kCount  // make_decoder_seeds.cpp kDecoders: every decoder needs a golden seed
};

// The allocation decoders take a section as the reader hands it over, whose item count the
// reader has checked to be at most its payload's size (§4.1).
void run_alloc(uint8_t which, uint64_t items, std::span<const uint8_t> bytes) {
  if (items > bytes.size()) return;
  const Recording::SectionPayload s{0, items, {bytes.begin(), bytes.end()}};
  switch (which) {
    case kAllocSamples: {
      std::vector<AllocSample> out;
      if (alloc_detail::decode_samples(s, out).is_ok() && out.size() != items) __builtin_trap();
      break;
    }
    case kAllocStacks: {
      std::vector<AllocStack> out;
      if (!alloc_detail::decode_stacks(s, out).is_ok()) break;
      if (out.size() != items) __builtin_trap();
      for (const AllocStack& st : out)
        for (size_t k = 0; k < st.frames.size(); ++k)
          if (st.id == 0 || (st.frames[k].kind == FrameKind::Truncated && k + 1 != st.frames.size())) __builtin_trap();
      break;
    }
    case kStackFunctions: {
      std::vector<StackFunction> out;
      if (!alloc_detail::decode_functions(s, 1u << 16, out).is_ok()) break;
      if (out.size() != items) __builtin_trap();
      for (const StackFunction& f : out)
        if (f.module.size() + f.type.size() + f.method.size() > bytes.size()) __builtin_trap();
      break;
    }
    case kSampledTypes: {
      std::vector<SampledType> out;
      if (alloc_detail::decode_sampled_types(s, 1u << 16, out).is_ok() && out.size() != items) __builtin_trap();
      break;
    }
    default: break;
  }
}

void run(uint8_t which, uint64_t items, std::span<const uint8_t> bytes) {
  DecodeContext ctx{bytes, items, 0, 1u << 16};
  switch (which % kCount) {
    case kGenerationBounds: { std::vector<GenerationRange> out; (void)decode_generation_bounds(ctx, out); break; }
    case kRoots: { RootTable out; (void)decode_roots(ctx, out); break; }
    case kSurviving: { RangeTable out; (void)decode_surviving(ctx, out); break; }
    case kMoved: { RangeTable out; (void)decode_moved(ctx, out); break; }
    case kObjects: {
      ObjectTable out;
      out.reference_offsets.push_back(0);
      if (decode_objects(ctx, out).is_ok()) {
        if (out.size() != items || out.reference_offsets.size() != items + 1 ||
            out.reference_offsets.back() != out.reference_targets.size())
          __builtin_trap();
      }
      break;
    }
    case kTypes: {
      NameTable out;
      if (decode_types(ctx, out).is_ok()) {
        if (out.types().size() != items) __builtin_trap();
        for (const auto& t : out.types()) {  // touch every byte of every view
          volatile char sink = 0;
          for (char ch : t.name) sink = sink ^ ch;
          for (char ch : t.module) sink = sink ^ ch;
        }
      }
      break;
    }
    case kMethods: {
      NameTable out;
      if (decode_methods(ctx, out).is_ok()) {
        if (out.methods().size() != items) __builtin_trap();
        for (const auto& m : out.methods()) {
          volatile char sink = 0;
          for (char ch : m.name) sink = sink ^ ch;
        }
      }
      break;
    }
    case kSectionHeaderAndPayload: {
      auto h = decode_section_header(bytes, 0);
      if (!h) break;
      if (h->decoded_size > (64u << 20)) break;  // the reader's limit check (load_section) comes first
      const uint64_t avail = bytes.size() - kSectionHeaderSize;
      const uint64_t stored = h->stored_size < avail ? h->stored_size : avail;
      std::vector<uint8_t> out;
      if (decode_payload(*h, bytes.subspan(kSectionHeaderSize, static_cast<size_t>(stored)), 0, out).is_ok() &&
          out.size() != h->decoded_size)
        __builtin_trap();
      break;
    }
    case kGcInfo: (void)decode_gc_info(bytes, 0); break;
    case kGcSummary: (void)decode_gc_summary(bytes, 0); break;
    case kFileHeader: (void)parse_file_header(bytes); break;
    case kTrailer: {
      if (bytes.size() >= kTrailerSize) (void)parse_trailer(bytes, static_cast<uint32_t>(items & 0xFFF));
      break;
    }
    case kVarints: {
      const uint8_t* p = bytes.data();
      const uint8_t* end = p + bytes.size();
      while (p < end) {
        uint64_t v = 0;
        size_t used = get_varint(p, end, v);
        if (used == 0) break;
        if (used > kMaxVarintBytes || used > static_cast<size_t>(end - p)) __builtin_trap();
        uint8_t again[kMaxVarintBytes];
        uint64_t w = 0;  // the shortest encoding must decode to the same value
        if (get_varint(again, again + put_varint(again, v), w) == 0 || w != v) __builtin_trap();
        p += used;
      }
      break;
    }
    case kColumns: {
      // A column cursor driven by the count: integer, bytes, integer with a u32 cap, edges.
      ColumnCursor c(bytes, 0);
      const uint64_t n = items & 0xFF;
      std::vector<uint64_t> a, counts;
      std::vector<uint8_t> b;
      if (!c.read_u64(n, a).is_ok()) break;
      if (!c.read_bytes(n, b).is_ok()) break;
      if (!c.read_u64(n, counts, 16).is_ok()) break;
      uint64_t total = 0;
      for (uint64_t x : counts) total += x;
      std::vector<uint64_t> targets(static_cast<size_t>(total));
      (void)c.read_edges(a.data(), counts.data(), a.size(), total, targets.data());
      (void)c.finish();
      break;
    }
    case kDependentHandles: {
      DependentHandleTable out;
      if (decode_dependent_handles(ctx, out).is_ok() &&
          (out.primaries.size() != items || out.secondaries.size() != items))
        __builtin_trap();
      break;
    }
    case kStringValues: {
      std::vector<StringValue> out;
      if (decode_string_values(ctx, out).is_ok() && out.size() != items) __builtin_trap();
      break;
    }
    case kStringContents: {
      std::vector<StringContent> out;
      std::vector<uint64_t> lengths;
      std::string text;
      if (decode_string_contents(ctx, out, lengths, text).is_ok()) {
        uint64_t total = 0;
        for (uint64_t n : lengths) total += n;
        if (out.size() != items || lengths.size() != items || total != text.size()) __builtin_trap();
      }
      break;
    }
    case kCollectionValues: {
      std::vector<CollectionValue> out;
      if (decode_collection_values(ctx, out).is_ok()) {
        if (out.size() != items) __builtin_trap();
        for (const CollectionValue& c : out)
          if (static_cast<uint8_t>(c.kind) == 0 || static_cast<uint8_t>(c.kind) > kMaxCollectionKind) __builtin_trap();
      }
      break;
    }
    case kValueCapture: {
      ValueCapture out;
      if (decode_value_capture(ctx, out).is_ok() && (out.flags & ~value_flags::kAll)) __builtin_trap();
      break;
    }
    case kAllocSamples: case kAllocStacks: case kStackFunctions: case kSampledTypes:
      run_alloc(which % kCount, items, bytes);
      break;
    case kDelegateTargets: {
      std::vector<DelegateTarget> out;
      if (decode_delegate_targets(ctx, out).is_ok() && out.size() != items) __builtin_trap();
      break;
    }
    default: break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 9) return 0;
  const uint8_t which = data[0];
  const uint64_t items = load_le64(data + 1) & 0xFFFF;
  run(which, items, {data + 9, size - 9});
  return 0;
}
