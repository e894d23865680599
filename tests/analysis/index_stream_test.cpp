// Reading an analysis index piece by piece (gcsnap/index_stream.hpp): the arrays read in order
// or a piece at a time equal those read_analysis_index decodes whole, and a stale or damaged
// index is refused.
#include "gcsnap/index_stream.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include <catch2/catch.hpp>

#include "gcsnap/analysis_index.hpp"
#include "gcsnap/index_columns.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

namespace {

// A recording whose last walk has more objects than one piece of the addresses holds (2^17),
// with its index built and saved.
struct Indexed {
  TempFile snap{"stream"};
  std::unique_ptr<Recording> rec;
  size_t gc = 0;
  std::string path;
  IndexIdentity id;
  Indexed() {
    for (uint64_t seed = 7;; seed += 1000) {
      auto model = make_random_gcs(seed, 2, ModelOptions{300000, 30});
      rec.reset();
      REQUIRE(write_model(snap.path(), model, WriterOptions{}).is_ok());
      rec = std::move(Recording::open(snap.path())).value();
      for (gc = rec->gcs().size(); gc-- > 0;)
        if (rec->gcs()[gc].has_heap_walk() && rec->gcs()[gc].object_count > (size_t{1} << 17) + 5) break;
      if (gc < rec->gcs().size()) break;
    }
    REQUIRE(open_analysis_index(snap.path(), *rec, gc, true));
    path = analysis_index_path(snap.path(), rec->gcs()[gc].info.gc_number);
    id = std::move(identify_gc(snap.path(), *rec, gc)).value();
  }
  ~Indexed() { std::remove(path.c_str()); }
};

// Every element of ARRAY, read in order to its end.
template <typename T>
std::vector<T> read_all(IndexStream& s, IndexArray array) {
  std::vector<T> out;
  for (;;) {
    auto piece = s.next_piece(array);
    REQUIRE(piece);
    if (piece->empty()) return out;
    const size_t at = out.size();
    out.resize(at + piece->size() / sizeof(T));
    std::memcpy(out.data() + at, piece->data(), piece->size());
  }
}

}  // namespace

TEST_CASE("an index read piece by piece equals the index read whole") {
  Indexed f;
  auto whole = read_analysis_index(f.path, f.id, kIndexAll);
  REQUIRE(whole);
  const HeapGraph& g = whole->graph;
  auto s = IndexStream::open(f.path, f.id);
  REQUIRE(s);
  REQUIRE((*s)->counts().nodes == g.node_count());
  REQUIRE((*s)->counts().edges == g.edge_count());
  const auto addresses = read_all<uint64_t>(**s, IndexArray::Addresses);
  REQUIRE(addresses.size() == g.node_count());
  const auto idom = read_all<uint32_t>(**s, IndexArray::ImmediateDominators);
  const auto retained = read_all<uint64_t>(**s, IndexArray::RetainedSizes);
  const auto types = read_all<uint32_t>(**s, IndexArray::TypeIds);
  const auto targets = read_all<uint32_t>(**s, IndexArray::ForwardTargets);
  size_t edge = 0;
  for (NodeIndex v = 0; v < g.node_count(); ++v) {
    REQUIRE(addresses[v] == g.address(v));
    REQUIRE(types[v] == g.type_id(v));
    REQUIRE(idom[v] == whole->dominators.immediate_dominator(v));
    REQUIRE(retained[v] == (whole->dominators.is_reachable(v) ? whole->dominators.retained_size(v) : 0));
    for (NodeIndex w : g.successors(v)) REQUIRE(targets[edge++] == w);
  }
  CHECK(edge == targets.size());
  // Out of order: the second piece, then the first, as the whole array has them.
  std::vector<std::byte> buffer;
  for (size_t k : {size_t{1}, size_t{0}}) {
    auto piece = (*s)->read_piece(IndexArray::Addresses, k, buffer);
    REQUIRE(piece);
    const size_t per = kIndexPieceBytes / 8;
    CHECK(std::memcmp(piece->data(), addresses.data() + k * per, piece->size()) == 0);
  }
  CHECK((*s)->read_piece(IndexArray::Addresses, addresses.size() / (kIndexPieceBytes / 8) + 1, buffer).error().code ==
        ErrorCode::InvalidArgument);
}

TEST_CASE("a stale or damaged index is refused piece by piece") {
  Indexed f;
  IndexIdentity other = f.id;
  other.mtime_ns += 1;
  auto stale = IndexStream::open(f.path, other);
  REQUIRE(!stale);
  CHECK(stale.error().code == ErrorCode::InconsistentData);
  CHECK(IndexStream::open(f.path + ".none", f.id).error().code == ErrorCode::NotFound);

  // A byte of the retained sizes' coded pieces (the 15th array) changed: that array fails,
  // while the addresses still read.
  std::vector<char> bytes;
  {
    std::ifstream in(f.path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  uint64_t at = 520;
  for (size_t a = 0; a < 14; ++a) {
    uint64_t len;
    std::memcpy(&len, bytes.data() + 384 + 8 * a, 8);
    at += len;
  }
  bytes[at + 40] = static_cast<char>(bytes[at + 40] ^ 0x5A);
  {
    std::ofstream out(f.path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  f.id = std::move(identify_gc(f.snap.path(), *f.rec, f.gc)).value();  // the recording did not change
  auto s = IndexStream::open(f.path, f.id);
  REQUIRE(s);
  bool failed = false;
  for (;;) {
    auto piece = (*s)->next_piece(IndexArray::RetainedSizes);
    if (!piece) {
      failed = true;
      CHECK((piece.error().code == ErrorCode::CorruptSection || piece.error().code == ErrorCode::ChecksumMismatch));
      break;
    }
    if (piece->empty()) break;
  }
  CHECK(failed);
  for (;;) {
    auto piece = (*s)->next_piece(IndexArray::Addresses);
    REQUIRE(piece);
    if (piece->empty()) break;
  }
}

TEST_CASE("the object columns read into vectors equal the index read whole") {
  Indexed f;
  auto whole = read_analysis_index(f.path, f.id, kIndexObjects);
  REQUIRE(whole);
  const HeapGraph& g = whole->graph;
  auto s = IndexStream::open(f.path, f.id);
  REQUIRE(s);
  auto columns = read_index_columns(**s);
  REQUIRE(columns);
  // More than one piece of addresses and sizes: the order rule crosses the pieces' edges.
  REQUIRE(g.node_count() * 8 > kIndexPieceBytes);
  REQUIRE(columns->addresses.size() == g.node_count());
  REQUIRE(columns->sizes.size() == g.node_count());
  REQUIRE(columns->generations.size() == g.node_count());
  for (NodeIndex v = 0; v < g.node_count(); ++v) {
    REQUIRE(columns->addresses[v] == g.address(v));
    REQUIRE(columns->sizes[v] == g.sizes()[v]);
    REQUIRE(columns->generations[v] == whole->generations[v]);
  }
}

TEST_CASE("the object columns read as blocks equal the index read whole, and damage is told by the last") {
  Indexed f;
  auto whole = read_analysis_index(f.path, f.id, kIndexObjects);
  REQUIRE(whole);
  const HeapGraph& g = whole->graph;
  // Reads every block; returns the first error, checking the blocks against G up to it.
  auto read_blocks = [&](ColumnBlocks& blocks) -> Status {
    size_t done = 0, count = 0;
    for (;;) {
      std::span<const uint64_t> addresses, sizes;
      if (Status s = blocks.next(addresses, sizes); !s) return s;
      REQUIRE(addresses.size() == sizes.size());
      if (addresses.empty()) break;
      ++count;
      for (size_t k = 0; k < addresses.size(); ++k) {
        REQUIRE(addresses[k] == g.address(static_cast<NodeIndex>(done + k)));
        REQUIRE(sizes[k] == g.sizes()[done + k]);
      }
      done += addresses.size();
    }
    CHECK(count > 1);  // the blocks' buffers are reused over more than one piece
    CHECK(done == g.node_count());
    return Status::ok();
  };
  {
    auto s = IndexStream::open(f.path, f.id);
    REQUIRE(s);
    auto blocks = stream_index_columns(std::move(s).value());
    REQUIRE(blocks);
    CHECK((*blocks)->size() == g.node_count());
    REQUIRE(read_blocks(**blocks).is_ok());
  }
  // A byte of the sizes' last coded piece changed (the 2nd array, after the header, the
  // directory and the addresses): a block or the end says so.
  std::vector<char> bytes;
  {
    std::ifstream in(f.path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  uint64_t addresses_len, sizes_len;
  std::memcpy(&addresses_len, bytes.data() + 384, 8);
  std::memcpy(&sizes_len, bytes.data() + 384 + 8, 8);
  const uint64_t at = 520 + addresses_len + sizes_len - 8;
  bytes[at] = static_cast<char>(bytes[at] ^ 0x5A);
  {
    std::ofstream out(f.path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  f.id = std::move(identify_gc(f.snap.path(), *f.rec, f.gc)).value();
  auto s = IndexStream::open(f.path, f.id);
  REQUIRE(s);
  auto blocks = stream_index_columns(std::move(s).value());
  REQUIRE(blocks);
  size_t good = 0;
  Status failed;
  for (;;) {
    std::span<const uint64_t> addresses, sizes;
    failed = (*blocks)->next(addresses, sizes);
    if (!failed || addresses.empty()) break;
    ++good;
  }
  REQUIRE(!failed.is_ok());
  CHECK(good > 0);  // the pieces before the damaged one were handed out
  CHECK((failed.code() == ErrorCode::CorruptSection || failed.code() == ErrorCode::ChecksumMismatch));
}

TEST_CASE("the sizes and type ids looked up equal the index read whole") {
  Indexed f;
  auto whole = read_analysis_index(f.path, f.id, kIndexObjects);
  REQUIRE(whole);
  const HeapGraph& g = whole->graph;
  const size_t n = g.node_count();
  // Rows across several pieces of both arrays, a row asked twice, the first and the last.
  std::vector<size_t> rows;
  for (size_t r = 0; r < n; r += 1 + r % 977) rows.push_back(r);
  rows.push_back(n - 1);
  rows.push_back(n - 1);
  auto s = IndexStream::open(f.path, f.id);
  REQUIRE(s);
  auto lookup = look_up_index_columns(std::move(s).value());
  REQUIRE(lookup);
  std::vector<uint64_t> sizes(rows.size(), 0);
  REQUIRE((*lookup)->find_sizes(rows, sizes).is_ok());
  for (size_t k = 0; k < rows.size(); ++k) REQUIRE(sizes[k] == g.sizes()[rows[k]]);
  std::vector<uint64_t> gathered(rows.size(), 0);
  std::vector<uint32_t> types(rows.size(), 0);
  REQUIRE((*lookup)->gather(rows, gathered, types).is_ok());
  for (size_t k = 0; k < rows.size(); ++k) {
    REQUIRE(gathered[k] == g.sizes()[rows[k]]);
    REQUIRE(types[k] == g.type_id(static_cast<NodeIndex>(rows[k])));
  }
  const std::vector<size_t> beyond = {n};
  std::vector<uint64_t> one(1);
  CHECK((*lookup)->find_sizes(beyond, one).code() == ErrorCode::CorruptSection);
}

TEST_CASE("the four node columns read as blocks equal the index read whole, and damage is told") {
  Indexed f;
  auto whole = read_analysis_index(f.path, f.id, kIndexObjects);
  REQUIRE(whole);
  const HeapGraph& g = whole->graph;
  // Every block in order to the end; the first error, the blocks checked against G up to it.
  auto read_blocks = [&](ObjectBlocks& blocks, size_t& done) -> Status {
    for (;;) {
      ObjectBlocks::Block b;
      if (Status s = blocks.next(b); !s) return s;
      if (b.addresses.empty()) return Status::ok();
      REQUIRE((b.sizes.size() == b.addresses.size() && b.type_ids.size() == b.addresses.size() &&
               b.generations.size() == b.addresses.size()));
      for (size_t k = 0; k < b.addresses.size(); ++k) {
        const auto v = static_cast<NodeIndex>(done + k);
        REQUIRE(b.addresses[k] == g.address(v));
        REQUIRE(b.sizes[k] == g.sizes()[v]);
        REQUIRE(b.type_ids[k] == g.type_id(v));
        REQUIRE(b.generations[k] == whole->generations[v]);
      }
      done += b.addresses.size();
    }
  };
  {
    auto blocks = stream_index_objects(std::move(IndexStream::open(f.path, f.id)).value());
    REQUIRE(blocks);
    CHECK((*blocks)->size() == g.node_count());
    size_t done = 0;
    REQUIRE(read_blocks(**blocks, done).is_ok());
    // Pieces of 8-, 4- and 1-byte elements cover different objects: runs of each cross them.
    CHECK(done == g.node_count());
  }
  // A byte of the type ids' last coded piece changed (the 3rd array): the blocks say so.
  std::vector<char> bytes;
  {
    std::ifstream in(f.path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  uint64_t lengths[3];
  std::memcpy(lengths, bytes.data() + 384, sizeof lengths);
  const uint64_t at = 520 + lengths[0] + lengths[1] + lengths[2] - 8;
  bytes[at] = static_cast<char>(bytes[at] ^ 0x5A);
  {
    std::ofstream out(f.path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  f.id = std::move(identify_gc(f.snap.path(), *f.rec, f.gc)).value();
  auto blocks = stream_index_objects(std::move(IndexStream::open(f.path, f.id)).value());
  REQUIRE(blocks);
  size_t done = 0;
  const Status failed = read_blocks(**blocks, done);
  REQUIRE(!failed.is_ok());
  CHECK((failed.code() == ErrorCode::CorruptSection || failed.code() == ErrorCode::ChecksumMismatch));
}
