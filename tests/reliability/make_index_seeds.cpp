// Writes seed inputs for fuzz_index: the analysis index of every GC with a heap walk of the
// given recordings (the golden files and the test fixtures), and four of each with a damaged
// holder table (format-spec.md §12.3 array 18): a flipped byte in it, and a header (resealed)
// whose text count, or count of nearest instances (minor 2), does not match it, or that says minor
// 2 with the largest heads (minor 3). Usage:
//   make_index_seeds OUT_DIR FILE.snap...
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "analysis_index/index_layout.hpp"
#include "gcsnap/analysis_index.hpp"

namespace {

void write_bytes(const std::filesystem::path& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The damaged variants of the index at PATH, beside it; how many were written.
int write_damaged_holders(const std::filesystem::path& path) {
  namespace L = gcsnap::index_layout;
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> good{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  uint64_t coded = 0;
  if (good.size() < L::kFirstArray) return 0;
  std::memcpy(&coded, good.data() + L::kOffHolderCoded, 8);
  if (coded == 0) return 0;
  std::vector<char> flipped = good;
  flipped.back() ^= 0x20;
  write_bytes(path.string() + "-holders-flipped", flipped);
  std::vector<char> count = good;
  uint32_t text = 0;
  std::memcpy(&text, count.data() + L::kOffHolderText, 4);
  ++text;
  std::memcpy(count.data() + L::kOffHolderText, &text, 4);
  const uint64_t hash = XXH3_64bits(count.data(), L::kOffHeaderHash);
  std::memcpy(count.data() + L::kOffHeaderHash, &hash, 8);
  write_bytes(path.string() + "-holders-count", count);
  std::vector<char> nearest = good;
  uint32_t rows = 0;
  std::memcpy(&rows, nearest.data() + L::kOffNearestRows, 4);
  if (rows == 0) return 2;
  --rows;
  std::memcpy(nearest.data() + L::kOffNearestRows, &rows, 4);
  const uint64_t resealed = XXH3_64bits(nearest.data(), L::kOffHeaderHash);
  std::memcpy(nearest.data() + L::kOffHeaderHash, &resealed, 8);
  write_bytes(path.string() + "-nearest-count", nearest);
  // The largest heads' flag (minor 3) on a minor 2 header.
  std::vector<char> heads = good;
  const uint16_t minor = 2;
  std::memcpy(heads.data() + L::kOffMinor, &minor, 2);
  const uint64_t sealed = XXH3_64bits(heads.data(), L::kOffHeaderHash);
  std::memcpy(heads.data() + L::kOffHeaderHash, &sealed, 8);
  write_bytes(path.string() + "-heads-minor", heads);
  return 4;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gcsnap;
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_index_seeds OUT_DIR FILE.snap...\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  int written = 0;
  for (int a = 2; a < argc; ++a) {
    auto rec = Recording::open(argv[a]);
    if (!rec) continue;
    for (size_t i = 0; i < (*rec)->gcs().size(); ++i) {
      if (!(*rec)->gcs()[i].has_heap_walk()) continue;
      auto ix = compute_analysis_index(**rec, i);
      if (!ix) continue;
      const std::string name = std::filesystem::path(argv[a]).stem().string() + "-gc" + std::to_string(i) + ".gcidx";
      if (!write_analysis_index(*ix, IndexIdentity{}, (dir / name).string())) continue;
      written += 1 + write_damaged_holders(dir / name);
    }
  }
  std::printf("make_index_seeds: %d seeds in %s\n", written, dir.c_str());
  return written > 0 ? 0 : 1;
}
