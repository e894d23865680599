// The retention profile: frames and stacks from the dominator tree, then profile.proto
// (github.com/google/pprof proto/profile.proto) written with protozero and gzipped with zlib.
#include "export/pprof_export.hpp"

#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <protozero/pbf_writer.hpp>
#include <zlib.h>

#include "errors/cli_error.hpp"

namespace gcsnap::cli {

namespace {

constexpr uint32_t kUnset = 0xFFFFFFFFu;

// Interned strings (the profile's string table; index 0 is "").
class StringTable {
 public:
  StringTable() { intern(""); }
  int64_t intern(const std::string& s) {
    auto [it, added] = index_.emplace(s, static_cast<int64_t>(strings_.size()));
    if (added) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, int64_t> index_;
  std::vector<std::string> strings_;
};

// A stack is its parent stack (kUnset for a top frame) and its leaf frame.
struct Stack {
  uint32_t parent = kUnset;
  uint32_t frame = 0;
  int64_t objects = 0, bytes = 0, retained = 0;
};

class ProfileBuilder {
 public:
  explicit ProfileBuilder(LoadedHeap& heap) : heap_(heap), dom_(heap.dominators(false)) {}

  void build() {
    name_frames();
    place_objects();
  }
  const std::vector<Stack>& stacks() const { return stacks_; }
  const std::vector<int64_t>& frame_names() const { return frame_names_; }
  StringTable& strings() { return strings_; }

 private:
  uint32_t intern_frame(const std::string& text) {
    const int64_t s = strings_.intern(text);
    auto [it, added] = frame_of_string_.emplace(s, static_cast<uint32_t>(frame_names_.size()));
    if (added) frame_names_.push_back(s);
    return it->second;
  }

  uint32_t intern_stack(uint32_t parent, uint32_t frame) {
    const uint64_t key = (static_cast<uint64_t>(parent) << 32) | frame;
    auto [it, added] = stack_index_.emplace(key, static_cast<uint32_t>(stacks_.size()));
    if (added) stacks_.push_back(Stack{parent, frame});
    return it->second;
  }

  // Each object's frame: its type, and the field or static of its immediate dominator that
  // holds it when the dominator references it directly (array elements are not named: one
  // frame per element would split the stacks). One pass over the edges.
  void name_frames() {
    const HeapGraph& g = heap_.graph;
    const EdgeNamer namer = heap_.edge_namer();
    frame_.assign(g.node_count(), kUnset);
    for (NodeIndex d = 0; d < g.node_count(); ++d) {
      const auto succ = g.successors(d);
      for (size_t j = 0; j < succ.size(); ++j) {
        const NodeIndex u = succ[j];
        if (frame_[u] != kUnset || dom_.immediate_dominator(u) != d) continue;
        const HopField hop = namer.name_successor(d, j);
        std::string text(heap_.type_name(u));
        if (hop.is_static) text += fmt::format(" (static {})", hop.text);
        else if (!hop.text.empty() && hop.text[0] != '[') text += fmt::format(" (.{})", hop.text);
        frame_[u] = intern_frame(text);
      }
    }
    for (NodeIndex v = 0; v < g.node_count(); ++v)
      if (frame_[v] == kUnset) frame_[v] = intern_frame(std::string(heap_.type_name(v)));
  }

  // Stacks in dominator preorder (a dominator before what it dominates); a frame equal to its
  // dominator's leaf frame folds into the dominator's stack (linked lists, trees of one type).
  void place_objects() {
    const HeapGraph& g = heap_.graph;
    std::vector<uint8_t> root_kind(g.node_count(), 0xFF);
    for (const GraphRoot& r : g.roots())
      if (!r.is_weak() && r.node != kNoNode && root_kind[r.node] == 0xFF) root_kind[r.node] = static_cast<uint8_t>(r.kind);
    std::vector<uint32_t> stack_of(g.node_count(), kUnset);
    for (NodeIndex v : dom_.preorder()) {
      const NodeIndex d = dom_.immediate_dominator(v);
      uint32_t s;
      bool head = true;
      if (d == kVirtualRoot) {
        const RootKind kind = root_kind[v] == 0xFF ? RootKind::Other : static_cast<RootKind>(root_kind[v]);
        s = intern_stack(intern_stack(kUnset, intern_frame(fmt::format("({} roots)", root_kind_name(kind)))), frame_[v]);
      } else if (stacks_[stack_of[d]].frame == frame_[v]) {
        s = stack_of[d];
        head = false;
      } else {
        s = intern_stack(stack_of[d], frame_[v]);
      }
      stack_of[v] = s;
      add(s, v, head);
    }
    const uint32_t unreachable = intern_stack(kUnset, intern_frame("(unreachable)"));
    for (NodeIndex v = 0; v < g.node_count(); ++v)
      if (!dom_.is_reachable(v)) add(intern_stack(unreachable, frame_[v]), v, false);
  }

  void add(uint32_t s, NodeIndex v, bool head) {
    Stack& st = stacks_[s];
    ++st.objects;
    st.bytes += static_cast<int64_t>(heap_.graph.object_size(v));
    if (head) st.retained += static_cast<int64_t>(dom_.retained_size(v));
  }

  LoadedHeap& heap_;
  const DominatorTree& dom_;
  StringTable strings_;
  std::vector<int64_t> frame_names_;  // frame -> string index
  std::unordered_map<int64_t, uint32_t> frame_of_string_;
  std::vector<uint32_t> frame_;  // node -> frame
  std::vector<Stack> stacks_;
  std::unordered_map<uint64_t, uint32_t> stack_index_;
};

void add_value_type(protozero::pbf_writer& profile, int tag, int64_t type, int64_t unit) {
  protozero::pbf_writer vt(profile, static_cast<protozero::pbf_tag_type>(tag));
  vt.add_int64(1, type);
  vt.add_int64(2, unit);
}

}  // namespace

std::string gzip_profile(const std::string& data, const std::string& file) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw CliError(fmt::format("{}: cannot start gzip compression", file), kExitBadInput);
  // zlib's default gzip header names the system it was built for (3 Unix, 10 Windows): an
  // explicit header with "unknown" (255) and no time makes the profile the same bytes on both.
  gz_header header{};
  header.os = 255;
  deflateSetHeader(&z, &header);
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw CliError(fmt::format("{}: gzip compression failed", file), kExitBadInput);
  return out;
}

PprofCounts write_pprof(LoadedHeap& heap, OutputFile& out) {
  ProfileBuilder b(heap);
  b.build();
  StringTable& st = b.strings();
  const int64_t s_count = st.intern("count"), s_bytes = st.intern("bytes");
  const int64_t s_objects = st.intern("objects"), s_retained = st.intern("retained_bytes");
  const int64_t s_gc = st.intern("gc"), s_kind = st.intern("heap_retention");
  const int64_t s_comment = st.intern(fmt::format(
      "gcsnap retention profile of GC {} of {}: stacks are dominator-tree paths, not allocation sites",
      heap.sel.number(), heap.sel.file));
  const int64_t gc = static_cast<int64_t>(heap.sel.number());

  std::string data;
  protozero::pbf_writer profile(data);
  add_value_type(profile, 1, s_objects, s_count);
  add_value_type(profile, 1, s_bytes, s_bytes);
  add_value_type(profile, 1, s_retained, s_bytes);
  PprofCounts counts;
  std::vector<uint64_t> locations;
  for (uint32_t i = 0; i < b.stacks().size(); ++i) {
    const Stack& s = b.stacks()[i];
    if (s.objects == 0) continue;
    locations.clear();
    for (uint32_t k = i; k != kUnset; k = b.stacks()[k].parent) locations.push_back(b.stacks()[k].frame + 1ull);
    protozero::pbf_writer sample(profile, 2);
    sample.add_packed_uint64(1, locations.begin(), locations.end());
    const int64_t values[] = {s.objects, s.bytes, s.retained};
    sample.add_packed_int64(2, std::begin(values), std::end(values));
    protozero::pbf_writer label(sample, 3);
    label.add_int64(1, s_gc);
    label.add_int64(3, gc);
    ++counts.samples;
    counts.objects += static_cast<uint64_t>(s.objects);
    counts.bytes += static_cast<uint64_t>(s.bytes);
  }
  // One function and one location (id = frame + 1) per frame.
  for (size_t f = 0; f < b.frame_names().size(); ++f) {
    protozero::pbf_writer loc(profile, 4);
    loc.add_uint64(1, f + 1);
    protozero::pbf_writer line(loc, 4);
    line.add_uint64(1, f + 1);
  }
  for (size_t f = 0; f < b.frame_names().size(); ++f) {
    protozero::pbf_writer fn(profile, 5);
    fn.add_uint64(1, f + 1);
    // No system_name: pprof demangles a name equal to its system name, and its demangler
    // would cut generic arguments and "(.field)" as if they were C++ templates and arguments.
    fn.add_int64(2, b.frame_names()[f]);
  }
  counts.functions = b.frame_names().size();
  for (const std::string& s : st.strings()) profile.add_string(6, s);
  profile.add_int64(9, static_cast<int64_t>(heap.sel.entry().info.start_time_ns));
  add_value_type(profile, 11, s_kind, s_bytes);
  profile.add_int64(13, s_comment);
  profile.add_int64(14, s_bytes);
  out.write(gzip_profile(data, out.path()));
  return counts;
}

}  // namespace gcsnap::cli
