// Writes seed inputs for fuzz_index: the analysis index of every GC with a heap walk of the
// given recordings (the golden files and the test fixtures). Usage:
//   make_index_seeds OUT_DIR FILE.snap...
#include <cstdio>
#include <filesystem>
#include <string>

#include "gcsnap/analysis_index.hpp"

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
      if (write_analysis_index(*ix, IndexIdentity{}, (dir / name).string())) ++written;
    }
  }
  std::printf("make_index_seeds: %d seeds in %s\n", written, dir.c_str());
  return written > 0 ? 0 : 1;
}
