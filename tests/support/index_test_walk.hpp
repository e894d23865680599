#pragma once
// The last heap walk of a test recording with its analysis index's path and identity, a random
// recording whose roots hold objects, an index rewritten after an edit or marked as an older
// minor, and the check that `index` rebuilds it: the setup the index table tests (holders,
// nearest instances, largest heads) share.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "file_bytes.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/reader.hpp"
#include "random_recording.hpp"

namespace gcsnap::test {

struct OpenedWalk {
  std::unique_ptr<Recording> rec;
  size_t gc = 0;
  std::string index;  // its analysis index's path, removed on open
  IndexIdentity id;
};

inline OpenedWalk open_last_walk(const std::string& path) {
  auto rec = Recording::open(path);
  REQUIRE(rec);
  OpenedWalk out;
  out.rec = std::move(rec).value();
  REQUIRE(out.rec->last_snapshot());
  out.gc = *out.rec->last_snapshot();
  out.index = analysis_index_path(path, out.rec->gcs()[out.gc].info.gc_number);
  std::remove(out.index.c_str());
  auto id = identify_gc(path, *out.rec, out.gc);
  REQUIRE(id);
  out.id = *id;
  return out;
}

// A random recording whose last GC has a heap walk, each root holding one of its GC's objects
// (random roots mostly hold none).
inline void write_random_rooted(const std::string& path, uint64_t seed, size_t objects, size_t roots) {
  for (uint64_t s = seed;; s += 1000) {
    auto model = make_random_gcs(s, 3, ModelOptions{objects, roots});
    for (ModelGc& gc : model)
      for (size_t k = 0; k < gc.roots.object_ids.size() && gc.objects.size() != 0; ++k)
        gc.roots.object_ids[k] = gc.objects.addresses[(k * 7919) % gc.objects.size()];
    REQUIRE(write_model(path, model, WriterOptions{}).is_ok());
    if ((*Recording::open(path))->last_snapshot()) break;
  }
}

// The index at O.index rewritten by write_analysis_index after EDIT changed what it holds.
template <typename Edit>
void rewrite_index(const OpenedWalk& o, Edit&& edit) {
  const std::string written = o.index + ".new";
  {
    auto ix = read_analysis_index(o.index, o.id, kIndexAll);
    REQUIRE(ix);
    edit(*ix);
    REQUIRE(write_analysis_index(*ix, o.id, written));
  }
  REQUIRE(replace_file(written, o.index));
}

// The index at O.index marked as of minor MINOR (its header rehashed), as an older writer left it.
inline void mark_minor(const OpenedWalk& o, uint16_t minor) {
  std::vector<char> b = slurp(o.index);
  store_at<uint16_t>(b, index_layout::kOffMinor, minor);
  rehash_index_header(b);
  spit(o.index, b);
}

// `gcsnap index` on the older index at O.index: refused for its version, rebuilt and saved, to
// the bytes of CURRENT (what this build writes).
inline void check_rebuilt(const std::string& path, const OpenedWalk& o, const std::vector<char>& current) {
  auto ensured = ensure_analysis_index(path, *o.rec, o.gc);
  REQUIRE(ensured);
  CHECK(ensured->source == IndexSource::BuiltSaved);
  CHECK(ensured->rejected.code == ErrorCode::UnsupportedVersion);
  CHECK(slurp(o.index) == current);
}

}  // namespace gcsnap::test
