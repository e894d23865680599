// Writes seed inputs for fuzz_decoders from recordings (the golden files): for every section
// of every complete block, its decoded payload prefixed with the decoder selector and item
// count (see fuzz_decoders.cpp), plus the raw section (header + stored payload) and the file
// header. Usage: make_decoder_seeds OUT_DIR FILE.snap...
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "format/block_scan.hpp"
#include "format/block_walk.hpp"
#include "format/byte_io.hpp"
#include "format/file_header.hpp"
#include "format/format_constants.hpp"

using namespace gcsnap;
using namespace gcsnap::format;

namespace {

int g_written = 0;
// The decoders of fuzz_decoders.cpp (its kCount): each must get a seed from the golden files,
// so that a section type no golden file holds is noticed here rather than never fuzzed.
constexpr int kDecoders = 24;
int g_per_decoder[kDecoders] = {};

void write_seed(const std::filesystem::path& dir, const std::string& name, uint8_t which, uint64_t items,
                std::span<const uint8_t> bytes) {
  std::vector<uint8_t> out(9);
  out[0] = which;
  store_le64(out.data() + 1, items);
  out.insert(out.end(), bytes.begin(), bytes.end());
  std::ofstream f(dir / name, std::ios::binary);
  f.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
  ++g_written;
  if (which < kDecoders) ++g_per_decoder[which];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_decoder_seeds OUT_DIR FILE.snap...\n");
    return 2;
  }
  std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  for (int a = 2; a < argc; ++a) {
    std::ifstream in(argv[a], std::ios::binary);
    std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string stem = std::filesystem::path(argv[a]).stem().string();
    write_seed(dir, stem + "-fileheader", 10, 0, {file.data(), std::min<size_t>(file.size(), 64)});
    if (file.size() >= kTrailerSize) write_seed(dir, stem + "-trailer", 11, 40, file);
    auto header = parse_file_header(file);
    if (!header) continue;
    auto scan = scan_blocks(file, header->header_size, ReaderLimits{});
    if (!scan) continue;
    int k = 0;
    for (const auto& block : scan->blocks) {
      auto refs = walk_block(file, block, ReaderLimits{});
      if (!refs) continue;
      for (const auto& ref : *refs) {
        std::vector<uint8_t> payload;
        if (!load_section(file, ref, ReaderLimits{}, payload).is_ok()) continue;
        // The decoder selectors of fuzz_decoders.cpp: 0..6 for types 0x0010..0x0016, then the
        // 1.1 and 1.5 sections, which were appended after the other decoders (14, 15..18 for
        // 0x0024..0x0027, 19..23 for 0x001E..0x0022).
        uint8_t which = static_cast<uint8_t>(ref.header.type - static_cast<uint16_t>(SectionType::GenerationBounds));
        if (ref.header.type == static_cast<uint16_t>(SectionType::DependentHandles)) which = 14;
        else if (ref.header.type >= static_cast<uint16_t>(SectionType::AllocSamples) &&
                 ref.header.type <= static_cast<uint16_t>(SectionType::DelegateTargets))
          which = static_cast<uint8_t>(19 + ref.header.type - static_cast<uint16_t>(SectionType::AllocSamples));
        else if (ref.header.type >= static_cast<uint16_t>(SectionType::StringValues) &&
                 ref.header.type <= static_cast<uint16_t>(SectionType::ValueCapture))
          which = static_cast<uint8_t>(15 + ref.header.type - static_cast<uint16_t>(SectionType::StringValues));
        else if (which > 6) continue;
        const std::string name = stem + "-s" + std::to_string(k++);
        write_seed(dir, name, which, ref.header.item_count, payload);
        write_seed(dir, name + "-raw", 7, 0,
                   {file.data() + ref.offset, static_cast<size_t>(kSectionHeaderSize + ref.header.stored_size)});
        // Columns seeds: the same payload through the generic column cursor.
        write_seed(dir, name + "-cols", 13, ref.header.item_count, payload);
      }
      // Block end payload = GC summary (152 bytes at the end of the block).
      const uint64_t end_payload = block.entry.block_offset + block.entry.block_size - kGcSummarySize;
      write_seed(dir, stem + "-summary" + std::to_string(k), 9, 0, {file.data() + end_payload, kGcSummarySize});
      write_seed(dir, stem + "-info" + std::to_string(k), 8, 0, {file.data() + end_payload, kBlockStartSize});
      write_seed(dir, stem + "-varints" + std::to_string(k++), 12, 0,
                 {file.data() + block.entry.block_offset, static_cast<size_t>(block.entry.block_size)});
    }
  }
  std::printf("make_decoder_seeds: %d seeds in %s\n", g_written, dir.c_str());
  int missing = 0;
  for (int d = 0; d < kDecoders; ++d)
    if (g_per_decoder[d] == 0) {
      std::fprintf(stderr, "make_decoder_seeds: no seed for decoder %d (no golden file holds its section)\n", d);
      ++missing;
    }
  return g_written > 0 && missing == 0 ? 0 : 1;
}
