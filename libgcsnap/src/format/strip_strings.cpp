// strip_string_contents (gcsnap/strip_strings.hpp): copy a recording block by block, leaving
// out the string-contents sections (§6.24), marking the value capture records (§6.26) and
// rewriting each block end's section count, offset and size (§6.9); finish_recording then
// appends the index and the trailer as for a recording whose writer died (§8.4).
#include "gcsnap/strip_strings.hpp"

#include <filesystem>
#include <fstream>
#include <vector>

#include "format/byte_io.hpp"
#include "format/format_constants.hpp"
#include "format/gc_summary.hpp"
#include "format/section.hpp"
#include "gcsnap/finish_recording.hpp"
#include "gcsnap/values.hpp"

namespace gcsnap {
namespace {

using format::SectionType;
using Bytes = std::vector<uint8_t>;

bool read_at(std::ifstream& f, uint64_t offset, Bytes& out) {
  f.seekg(static_cast<std::streamoff>(offset));
  f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size()));
  return static_cast<bool>(f);
}

bool write_all(std::ofstream& f, const Bytes& bytes) {
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(f);
}

// Reseal the section at OUT[at] after its payload changed.
void reseal(Bytes& out, size_t at, format::SectionHeader h) {
  h.payload_checksum = format::checksum64({out.data() + at + format::kSectionHeaderSize, h.stored_size});
  format::encode_section_header(h, out.data() + at);
}

// Copy one block (BLOCK: its bytes) to OUT, which starts the block at NEW_OFFSET.
Status copy_block(const Bytes& block, uint64_t old_offset, uint64_t new_offset, Bytes& out, StripReport& report) {
  out.clear();
  uint32_t sections = 0;
  size_t pos = 0, end_at = SIZE_MAX;
  format::SectionHeader end_header;
  while (pos < block.size()) {
    auto h = format::decode_section_header({block.data() + pos, block.size() - pos}, old_offset + pos);
    if (!h) return h.error();
    const uint64_t whole = format::kSectionHeaderSize + h->stored_size;
    if (whole > block.size() - pos) return make_error(ErrorCode::CorruptSection, "section beyond its block", old_offset + pos);
    if (h->type == static_cast<uint16_t>(SectionType::StringContents)) {
      ++report.sections_removed;
      report.bytes_removed += whole;
      pos += whole;
      continue;
    }
    const size_t at = out.size();
    out.insert(out.end(), block.begin() + static_cast<ptrdiff_t>(pos), block.begin() + static_cast<ptrdiff_t>(pos + whole));
    if (h->type == static_cast<uint16_t>(SectionType::ValueCapture) && h->codec == format::Codec::Raw &&
        h->stored_size >= format::kValueCaptureSize) {
      out[at + format::kSectionHeaderSize + 1] = value_flags::kContentsStripped;
      reseal(out, at, *h);
    }
    if (h->type == static_cast<uint16_t>(SectionType::BlockEnd)) end_at = at, end_header = *h;
    ++sections;
    pos += whole;
  }
  if (end_at == SIZE_MAX || end_header.stored_size != format::kGcSummarySize)
    return make_error(ErrorCode::CorruptSection, "block without its block end", old_offset);
  uint8_t* payload = out.data() + end_at + format::kSectionHeaderSize;
  auto summary = format::decode_gc_summary({payload, format::kGcSummarySize}, old_offset + end_at);
  if (!summary) return summary.error();
  summary->section_count = sections;
  summary->entry.block_offset = new_offset;
  summary->entry.block_size = out.size();
  format::encode_gc_summary(*summary, payload);
  reseal(out, end_at, end_header);
  return {};
}

}  // namespace

Result<StripReport> strip_string_contents(const std::string& input, const std::string& output,
                                          const ReaderLimits& limits) {
  std::error_code ec;
  if (std::filesystem::equivalent(input, output, ec))
    return make_error(ErrorCode::InvalidArgument, "the output is the input: write the copy to another file");
  auto rec = Recording::open(input, limits);
  if (!rec) return rec.error();
  std::ifstream in(input, std::ios::binary);
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  if (!in || !out) return make_error(ErrorCode::IoError, in ? "cannot create the output" : "cannot open the input");
  try {
    Bytes header(format::kFileHeaderSize);
    if (!read_at(in, 0, header)) return make_error(ErrorCode::IoError, "cannot read the file header");
    header.resize(format::load_le32(header.data() + 12));  // header_size, checked by Recording::open
    if (!read_at(in, 0, header) || !write_all(out, header))
      return make_error(ErrorCode::IoError, "cannot copy the file header");
    StripReport report;
    uint64_t offset = header.size();
    Bytes block, copied;
    for (const GcEntry& e : (*rec)->gcs()) {
      block.resize(static_cast<size_t>(e.block_size));
      if (!read_at(in, e.block_offset, block)) return make_error(ErrorCode::IoError, "cannot read a block", e.block_offset);
      GCSNAP_RETURN_IF_ERROR(copy_block(block, e.block_offset, offset, copied, report));
      if (!write_all(out, copied))
        return make_error(ErrorCode::IoError, "cannot write a block");
      offset += copied.size();
      ++report.gcs;
    }
    out.close();
    if (!out) return make_error(ErrorCode::IoError, "cannot write the output");
    auto finished = finish_recording(output, limits);
    if (!finished) return finished.error();
    return report;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "copying a block");
  }
}

}  // namespace gcsnap
