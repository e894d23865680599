// The analysis index's bytes (format-spec.md §12.3) pinned: the directory and the coded arrays
// that follow the header, for the snapshot GCs of random recordings, as the builds wrote them
// when there were two (open_analysis_index's and ensure_analysis_index's). The header is left
// out: it holds the recording's identity (its modification time). Every way of building an
// index must give these bytes. The coded arrays are zstd level-1 frames: a zstd whose level-1
// output differs changes them too, and then the values below are rewritten from this test's
// messages, after the other tests have shown that the index reads back right.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "analysis_index/index_layout.hpp"
#include "gcsnap/analysis_index.hpp"
#include "file_bytes.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

namespace {

// XXH3-64 of the index file's bytes after its header.
uint64_t payload_hash(const std::string& path) {
  const std::vector<char> bytes = slurp(path);
  REQUIRE(bytes.size() > index_layout::kDirectoryOffset);
  return XXH3_64bits(bytes.data() + index_layout::kDirectoryOffset, bytes.size() - index_layout::kDirectoryOffset);
}

// The payload hashes of every snapshot GC of a recording of the model of SEED, built by
// BUILD(recording path, recording, gc position). ROOTED: each root holds an object of its GC
// (random roots mostly hold none), so that the index keeps nearest instances (minor 2).
template <typename Build>
std::vector<uint64_t> payload_hashes(uint64_t seed, const ModelOptions& options, bool rooted, Build build) {
  TempFile snap{"index-bytes"};
  auto model = make_random_gcs(seed, 3, options);
  if (rooted)
    for (ModelGc& gc : model)
      for (size_t k = 0; k < gc.roots.object_ids.size() && gc.objects.size() != 0; ++k)
        gc.roots.object_ids[k] = gc.objects.addresses[(k * 7919) % gc.objects.size()];
  REQUIRE(write_model(snap.path(), model, WriterOptions{}).is_ok());
  auto rec = Recording::open(snap.path());
  REQUIRE(rec);
  std::vector<uint64_t> hashes;
  for (size_t gc = 0; gc < (*rec)->gcs().size(); ++gc) {
    if (!(*rec)->gcs()[gc].has_heap_walk()) continue;
    build(snap.path(), **rec, gc);
    const std::string path = analysis_index_path(snap.path(), (*rec)->gcs()[gc].info.gc_number);
    hashes.push_back(payload_hash(path));
    std::remove(path.c_str());
  }
  return hashes;
}

struct Case {
  uint64_t seed;
  ModelOptions options;
  std::vector<uint64_t> expected;
  bool rooted = false;
};

// Small heaps (one piece per array) and one of 300,000 objects at most (arrays of several
// 1 MiB pieces, the last one shorter); one rooted, whose index keeps nearest instances. Every
// index keeps its largest heads (minor 3).
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {4, ModelOptions{400, 30}, {0x023e86ee71721154, 0x2b16851a4ae5dcb9, 0x78afbf7bb8507aee}},
      {5, ModelOptions{400, 30}, {0x83e7b9cf46a8355b}},
      {7, ModelOptions{400, 30}, {0x2439e3aa0c18652e, 0xe68fd8ae5ce68907}},
      {11, ModelOptions{300000, 200}, {0xec4d769bad551dca, 0x21cf994606d407d4}},
      {13, ModelOptions{3000, 30}, {0x89553fb122013885, 0x66908cc3d0293fd2}, true},
  };
  return all;
}

template <typename Build>
void check_cases(Build build) {
  for (const Case& c : cases()) {
    const std::vector<uint64_t> got = payload_hashes(c.seed, c.options, c.rooted, build);
    std::string text;
    for (uint64_t h : got) {
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%016llx, ", static_cast<unsigned long long>(h));
      text += hex;
    }
    INFO("seed " << c.seed << ": " << text);
    CHECK(got == c.expected);
  }
}

}  // namespace

TEST_CASE("open_analysis_index writes the index bytes pinned") {
  check_cases([](const std::string& path, const Recording& rec, size_t gc) {
    auto built = open_analysis_index(path, rec, gc, true);
    REQUIRE(built);
    REQUIRE(built->source == IndexSource::BuiltSaved);
  });
}

TEST_CASE("ensure_analysis_index writes the index bytes pinned") {
  check_cases([](const std::string& path, const Recording& rec, size_t gc) {
    auto built = ensure_analysis_index(path, rec, gc);
    REQUIRE(built);
    REQUIRE(built->source == IndexSource::BuiltSaved);
  });
}
