// Reading an analysis index (format-spec.md §12.4): the header and the directory are always
// checked; the arrays of the parts the caller asks for are decoded (their zstd frames on two
// threads) into an image laid out as format-spec.md §12.3 places them, each array's checksum
// and rules are checked there before anything of it is used, and the arrays are then used in
// place in the image. A command decodes only the arrays it uses.

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <bit>
#include <cerrno>
#include <cstring>
#include <new>
#include <system_error>
#include <optional>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gcsnap/analysis_index.hpp"
#include "analysis_index/index_access.hpp"
#include "analysis_index/index_codec.hpp"
#include "analysis_index/index_header.hpp"
#include "analysis_index/index_layout.hpp"
#include "analysis_index/index_pieces.hpp"
#include "platform/file_io.hpp"
#include "platform/memory_map.hpp"

namespace gcsnap {

using detail::AnalysisIndexAccess;
namespace L = index_layout;

namespace {

// Run WORK (which takes its share from a queue both calls pull from) on this thread and, when
// HELP, on a second one at the same time; without a thread to be had, this one does it all.
template <typename Work>
void run_on_two_threads(Work& work, bool help) {
  std::thread helper;
  if (help) {
    try {
      helper = std::thread(std::ref(work));
    } catch (const std::system_error&) {
    }
  }
  work();
  if (helper.joinable()) helper.join();
}


Error damaged(ErrorCode code, const char* detail, uint64_t offset = 0) { return make_error(code, detail, offset); }

// A mapped file; unmapped when the last AnalysisIndex part using it goes.
struct Mapping {
  void* base = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (base) platform::unmap_file(base, size);
  }
};

// The decoded arrays (format-spec.md §12.3 placement), in zeroed pages: the pages of the
// arrays not asked for are never touched.
struct Image {
  void* base = nullptr;
  size_t size = 0;
  ~Image() {
    if (base) platform::free_pages(base, size);
  }
};

// The checks read each array in chunks of this size: small enough to stay in the L2 cache
// between the rules and the hash, large enough that a read costs little per byte.
constexpr size_t kChunk = size_t{1} << 20;

// BadSecondElement: a job checking two arrays found a bad element in the second.
enum class ArrayCheck : uint8_t { Ok, BadElement, BadSecondElement, BadChecksum, Unreadable };

// Where the checks read an index from: the decoded image, in place.
class Source {
 public:
  explicit Source(std::span<const std::byte> bytes) : bytes_(bytes) {}
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  std::span<const std::byte> bytes() const noexcept { return bytes_; }
  /// LEN bytes at AT, 8-byte aligned.
  const std::byte* read(uint64_t at, size_t) const noexcept { return bytes_.data() + at; }
  int error() const noexcept { return 0; }

 private:
  std::span<const std::byte> bytes_;
};

// Check array WHICH: hand its bytes to VISIT chunk by chunk, whole records of RECORD bytes each
// (VISIT(data, length, index of the first record) returns false on a bad element), hashing each
// chunk after it, then compare with the array's checksum (§12.2).
template <typename Visit>
ArrayCheck chunks(Source& src, const L::Placement& place, size_t which, size_t record, Visit&& visit) {
  const uint64_t begin = place.offset[which], end = begin + place.bytes[which];
  XXH3_state_t hash;
  XXH3_64bits_reset(&hash);
  const size_t per_chunk = kChunk / record * record;
  for (uint64_t at = begin; at < end;) {
    const size_t len = static_cast<size_t>(std::min<uint64_t>(end - at, per_chunk));
    const std::byte* data = src.read(at, len);
    if (!data) return ArrayCheck::Unreadable;
    if (!visit(data, len, (at - begin) / record)) return ArrayCheck::BadElement;
    XXH3_64bits_update(&hash, data, len);
    at += len;
  }
  const uint64_t expected = L::load<uint64_t>(src.bytes().data() + L::hash_offset(which));
  return XXH3_64bits_digest(&hash) == expected ? ArrayCheck::Ok : ArrayCheck::BadChecksum;
}

// Records one by one: CHECK(first field as T, record bytes, record index) -> bool. The root's
// node and the type's id are the fields handed over.
static_assert(L::kRootNode == 0 && L::kTypeId == 0 && L::kDependentPrimary == 0);
template <typename T, typename Check>
ArrayCheck each(Source& src, const L::Placement& place, size_t which, size_t record, Check&& check) {
  return chunks(src, place, which, record, [&](const std::byte* data, size_t len, uint64_t first) {
    for (size_t at = 0; at < len; at += record, ++first)
      if (!check(L::load<T>(data + at), data + at, first)) return false;
    return true;
  });
}

// Plain arrays a chunk at a time: RULE(const T* values, count, index of the first) -> bool. The
// rules are written as branch-free reductions over the chunk, so the compiler can vectorize them.
template <typename T, typename Rule>
ArrayCheck typed(Source& src, const L::Placement& place, size_t which, Rule&& rule) {
  return chunks(src, place, which, sizeof(T), [&](const std::byte* data, size_t len, uint64_t first) {
    return rule(reinterpret_cast<const T*>(data), len / sizeof(T), first);
  });
}

// The checks of one read: jobs added in the order of §12.3, run by this thread and (for a large
// index) one more, since a 10 M-object index has ~500 MB to hash for one question. A job owns
// the state its rules keep; jobs share nothing but the results they copy out (roots, types).
class CheckJobs {
 public:
  /// RULE names a bad element (SECOND_RULE: one in the second array of a two-array job).
  void add(const char* rule, std::function<ArrayCheck(Source&)> run, const char* second_rule = "") {
    jobs_.push_back(Job{rule, second_rule, std::move(run), ArrayCheck::Ok, 0});
  }

  /// Run every job; the error of the first that failed, in the order they were added.
  std::optional<Error> run(std::span<const std::byte> bytes, uint64_t file_size) {
    std::atomic<size_t> next{0};
    auto work = [&] {
      try {
        Source src(bytes);
        for (size_t k; (k = next.fetch_add(1)) < jobs_.size();) {
          jobs_[k].result = jobs_[k].run(src);
          jobs_[k].error = src.error();
        }
      } catch (const std::bad_alloc&) {
        out_of_memory_.store(true);  // the job that threw did not finish: the read fails
      }
    };
    constexpr uint64_t kParallelFrom = uint64_t{4} << 20;  // below this a thread costs more than it saves
    run_on_two_threads(work, jobs_.size() > 1 && file_size >= kParallelFrom);
    if (out_of_memory_.load()) return make_error(ErrorCode::OutOfMemory, "out of memory checking the analysis index");
    for (const Job& j : jobs_) {
      switch (j.result) {
        case ArrayCheck::Ok: continue;
        case ArrayCheck::BadChecksum: return damaged(ErrorCode::ChecksumMismatch, "analysis index array checksum");
        case ArrayCheck::Unreadable: return Error{ErrorCode::IoError, 0, "cannot read the analysis index", j.error};
        case ArrayCheck::BadElement: return damaged(ErrorCode::CorruptSection, j.rule);
        case ArrayCheck::BadSecondElement: return damaged(ErrorCode::CorruptSection, j.second_rule);
      }
    }
    return std::nullopt;
  }

 private:
  struct Job {
    const char* rule;
    const char* second_rule;
    std::function<ArrayCheck(Source&)> run;
    ArrayCheck result;
    int error;
  };
  std::vector<Job> jobs_;
  std::atomic<bool> out_of_memory_{false};
};

constexpr const char* kGraphRule = "analysis index graph arrays out of range";

// One read of an index, in the steps of §12.4: the header, the parts asked for widened to what
// they need, the padding (whole reads), the checks of each part's arrays as jobs, the checks
// that need several arrays, and the AnalysisIndex over the arrays in place. The jobs run after they
// are added: they keep their state in this object, which outlives them.
class IndexParse {
 public:
  explicit IndexParse(std::span<const std::byte> bytes) : bytes_(bytes), h_(bytes.data()) {}

  /// The header and directory only (§12.4 items 1-3), for a reader that decodes pieces itself.
  Result<detail::IndexHeaderFacts> header_facts(const IndexIdentity* expected) {
    if (auto failure = read_header(expected)) return *failure;
    detail::IndexHeaderFacts f;
    f.counts = c_;
    f.place = place_;
    f.coded = coded_;
    f.root_entries = root_total_;
    f.has_dependent_handles = (c_.flags & L::kFlagDependent) != 0;
    for (size_t a = 0; a < L::kArrayCount; ++a) f.hashes[a] = L::load<uint64_t>(h_ + L::hash_offset(a));
    uint64_t stats[7];
    std::memcpy(stats, h_ + L::kOffStats, sizeof stats);
    f.stats = GraphBuildStats{stats[0], stats[1], stats[2], stats[3], stats[4], stats[5], stats[6]};
    f.reachable_bytes = L::load<uint64_t>(h_ + L::kOffReachableBytes);
    f.unreachable_bytes = L::load<uint64_t>(h_ + L::kOffUnreachableBytes);
    return f;
  }

  Result<AnalysisIndex> run(const IndexIdentity* expected, IndexParts want) {
    if (auto failure = read_header(expected)) return *failure;
    want_ = widen(want);
    try {
      if (auto failure = decode_arrays()) return *failure;
      // One job per array (or per arrays checked together), run on two threads: the first
      // failure in this order is the one reported, as if they had run one after another.
      CheckJobs jobs;
      add_root_checks(jobs);
      add_object_checks(jobs);
      add_graph_checks(jobs);
      add_dominator_checks(jobs);
      add_path_tree_checks(jobs);
      add_type_checks(jobs);
      if (auto failure = jobs.run(bytes_, place_.file_size)) return *failure;
      if (auto failure = check_root_marks()) return *failure;
      if (auto failure = check_dependent_edges()) return *failure;
      return assemble();
    } catch (const std::bad_alloc&) {
      return make_error(ErrorCode::OutOfMemory, "out of memory reading the analysis index");
    }
  }

 private:
  bool wanted(IndexParts p) const { return (want_ & p) != 0; }

  // The header and the directory (index_header.hpp), and the arrays' frames in the file.
  std::optional<Error> read_header(const IndexIdentity* expected) {
    auto head = detail::check_index_head(bytes_, bytes_.size(), expected);
    if (!head) return head.error();
    c_ = head->counts;
    place_ = head->place;
    wide_ = head->wide_offsets;
    for (size_t a = 0; a < L::kArrayCount; ++a)
      coded_[a] = {reinterpret_cast<const unsigned char*>(bytes_.data() + head->begin[a]),
                   static_cast<size_t>(head->length[a])};
    n_ = static_cast<size_t>(c_.nodes);
    m_ = c_.edges;
    root_total_ = c_.roots + c_.unresolved;
    return std::nullopt;
  }

  // What the parts asked for need (§12.4): node-indexed arrays come with the node columns.
  static IndexParts widen(IndexParts want) {
    want &= kIndexAll;
    if (want & (kIndexSlots | kIndexPathTree)) want |= kIndexForward;
    if (want & (kIndexForward | kIndexReverse | kIndexDominators)) want |= kIndexObjects;
    if (want & kIndexObjects) want |= kIndexTypeIds;
    return want;
  }

  // The arrays the parts asked for need (§12.4 item 5); the roots always.
  std::array<bool, L::kArrayCount> arrays_needed() const {
    std::array<bool, L::kArrayCount> need{};
    need[L::kRoots] = need[L::kUnresolved] = true;
    if (wanted(kIndexTypeIds)) need[L::kTypeIds] = true;
    if (wanted(kIndexObjects)) need[L::kAddresses] = need[L::kSizes] = need[L::kGenerations] = true;
    if (wanted(kIndexForward)) need[L::kForwardOffsets] = need[L::kForwardTargets] = need[L::kDependentEdges] = true;
    if (wanted(kIndexReverse)) need[L::kReverseOffsets] = need[L::kReverseSources] = true;
    if (wanted(kIndexSlots)) need[L::kSlots] = true;
    if (wanted(kIndexDominators)) need[L::kPreorder] = need[L::kIdom] = need[L::kRetained] = true;
    if (wanted(kIndexTypes)) need[L::kTypes] = true;
    if (wanted(kIndexPathTree)) need[L::kPathParents] = true;
    return need;
  }

  // Decode the arrays needed into the image, which then stands for the file: every frame's
  // length and decoded size are checked before the image is allocated (a small damaged file
  // cannot ask for a large one beyond what its frames say), then the frames are decoded on
  // two threads.
  std::optional<Error> decode_arrays() {
    struct Frame {
      size_t which, index;
      std::span<const unsigned char> coded;
    };
    std::vector<Frame> frames;
    const auto need = arrays_needed();
    for (size_t a = 0; a < L::kArrayCount; ++a) {
      if (!need[a]) continue;
      auto split = detail::split_frames(coded_[a], place_.bytes[a]);
      if (!split) return damaged(ErrorCode::CorruptSection, "analysis index array frames do not match its length");
      for (size_t f = 0; f < split->size(); ++f) frames.push_back(Frame{a, f, (*split)[f]});
    }
    auto image = std::make_shared<Image>();
    const size_t page = platform::page_size();
    image->size = static_cast<size_t>((place_.file_size + page - 1) / page * page);
    image->base = platform::allocate_pages(image->size);
    if (!image->base) return make_error(ErrorCode::OutOfMemory, "out of memory decoding the analysis index");
    auto* base = static_cast<unsigned char*>(image->base);
    std::memcpy(base, h_, L::kHeaderSize);
    std::atomic<size_t> next{0};
    std::atomic<bool> bad{false};
    auto work = [&]() noexcept {
      try {
        for (size_t k; (k = next.fetch_add(1)) < frames.size() && !bad.load();) {
          const Frame& f = frames[k];
          const uint64_t from = uint64_t{f.index} * detail::kFrameBytes;
          const size_t len = static_cast<size_t>(std::min<uint64_t>(detail::kFrameBytes, place_.bytes[f.which] - from));
          const std::span<unsigned char> out(base + place_.offset[f.which] + from, len);
          if (!detail::decode_frame(f.coded, f.index, L::coding(f.which, wide_), out)) bad.store(true);
        }
      } catch (const std::bad_alloc&) {
        out_of_memory_.store(true);
        bad.store(true);
      }
    };
    run_on_two_threads(work, frames.size() > 2);
    if (out_of_memory_.load()) return make_error(ErrorCode::OutOfMemory, "out of memory decoding the analysis index");
    if (bad.load()) return damaged(ErrorCode::ChecksumMismatch, "analysis index array does not decode");
    bytes_ = {reinterpret_cast<const std::byte*>(base), static_cast<size_t>(place_.file_size)};
    h_ = bytes_.data();
    keep_ = std::move(image);  // the file's bytes are no longer needed
    return std::nullopt;
  }

  static bool any(const void*, size_t, uint64_t) { return true; }

  // 10-11: roots, always (small: copied); their count ties the index to the GC's root table.
  void add_root_checks(CheckJobs& jobs) {
    parts_.roots.reserve(static_cast<size_t>(c_.roots));
    jobs.add("analysis index root out of range", [this](Source& src) {
      return each<uint32_t>(src, place_, L::kRoots, L::kRootRecord, [&](uint32_t node, const std::byte* at, uint64_t) {
        GraphRoot r;
        r.node = node;
        r.root_index = L::load<uint32_t>(at + L::kRootIndex);
        r.root_id = L::load<uint64_t>(at + L::kRootId);
        const auto kind = L::load<uint8_t>(at + L::kRootKind);
        r.flags = L::load<uint8_t>(at + L::kRootFlags);
        for (size_t k = L::kRootZeroFrom; k < L::kRootRecord; ++k)
          if (at[k] != std::byte{0}) return false;
        r.kind = static_cast<RootKind>(kind);
        parts_.roots.push_back(r);
        return node < n_ && kind <= static_cast<uint8_t>(RootKind::Handle) && r.root_index < root_total_;
      });
    });
    parts_.unresolved_roots.reserve(static_cast<size_t>(c_.unresolved));
    jobs.add("analysis index unresolved root out of range", [this](Source& src) {
      return each<uint32_t>(src, place_, L::kUnresolved, L::kUnresolvedRecord, [&](uint32_t r, const std::byte*, uint64_t) {
        parts_.unresolved_roots.push_back(r);
        return r < root_total_;
      });
    });
  }

  // 1-4: object columns.
  void add_object_checks(CheckJobs& jobs) {
    if (wanted(kIndexObjects)) {
      jobs.add("analysis index addresses not increasing", [this](Source& src) {
        uint64_t previous = 0;
        return typed<uint64_t>(src, place_, L::kAddresses, [&](const uint64_t* a, size_t count, uint64_t first) {
          bool bad = first > 0 && a[0] <= previous;
          for (size_t i = 1; i < count; ++i) bad |= a[i] <= a[i - 1];
          previous = a[count - 1];
          return !bad;
        });
      });
      jobs.add("", [this](Source& src) { return typed<uint64_t>(src, place_, L::kSizes, any); });
      jobs.add("analysis index generation out of range", [this](Source& src) {
        return typed<uint8_t>(src, place_, L::kGenerations, [](const uint8_t* g, size_t count, uint64_t) {
          bool bad = false;
          for (size_t i = 0; i < count; ++i) bad |= g[i] > 5 && g[i] != 0xFF;
          return !bad;
        });
      });
    }
    if (wanted(kIndexTypeIds))
      jobs.add("", [this](Source& src) { return typed<uint32_t>(src, place_, L::kTypeIds, any); });
  }

  ArrayCheck check_offsets(Source& src, size_t which) const {
    uint64_t last = 0;
    auto rule = [&](const auto* o, size_t count, uint64_t first) {
      bool bad = first == 0 && o[0] != 0;
      bad |= first > 0 && o[0] < last;
      for (size_t i = 1; i < count; ++i) bad |= o[i] < o[i - 1];
      last = o[count - 1];
      return !bad && (first + count != n_ + 1 || last == m_);  // non-decreasing to m: all <= m
    };
    return wide_ ? typed<uint64_t>(src, place_, which, rule) : typed<uint32_t>(src, place_, which, rule);
  }

  ArrayCheck check_nodes(Source& src, size_t which) const {
    return typed<uint32_t>(src, place_, which, [&](const uint32_t* v, size_t count, uint64_t) {
      uint32_t top = 0;
      for (size_t i = 0; i < count; ++i) top = std::max(top, v[i]);
      return top < n_;
    });
  }

  // 5-9: CSR both ways and the edge slots; 12: dependent edges, with the forward CSR (they are
  // its last successors).
  void add_graph_checks(CheckJobs& jobs) {
    if (wanted(kIndexForward)) {
      jobs.add(kGraphRule, [this](Source& src) { return check_offsets(src, L::kForwardOffsets); });
      jobs.add(kGraphRule, [this](Source& src) { return check_nodes(src, L::kForwardTargets); });
    }
    if (wanted(kIndexReverse)) {
      jobs.add(kGraphRule, [this](Source& src) { return check_offsets(src, L::kReverseOffsets); });
      jobs.add(kGraphRule, [this](Source& src) { return check_nodes(src, L::kReverseSources); });
    }
    if (wanted(kIndexSlots)) jobs.add("", [this](Source& src) { return typed<uint32_t>(src, place_, L::kSlots, any); });
    if (wanted(kIndexForward)) {
      parts_.dependent_edges.reserve(static_cast<size_t>(c_.dependent));
      jobs.add("analysis index dependent edges out of range or order", [this](Source& src) {
        return each<uint64_t>(src, place_, L::kDependentEdges, L::kDependentRecord,
                              [&](uint64_t, const std::byte* at, uint64_t i) {
                                const std::pair<NodeIndex, NodeIndex> e{L::load<uint32_t>(at + L::kDependentPrimary),
                                                                        L::load<uint32_t>(at + L::kDependentSecondary)};
                                const bool ok =
                                    e.first < n_ && e.second < n_ && (i == 0 || parts_.dependent_edges.back() < e);
                                parts_.dependent_edges.push_back(e);
                                return ok;
                              });
      });
    }
  }

  // 13-15: the dominator tree. The preorder marks the reachable nodes, the dominators must
  // agree (one job: the second array's rule needs the first's result).
  void add_dominator_checks(CheckJobs& jobs) {
    if (!wanted(kIndexDominators)) return;
    jobs.add(
        "analysis index preorder out of range or repeated",
        [this](Source& src) {
          std::vector<bool> reachable(n_, false);
          const ArrayCheck pre = each<uint32_t>(src, place_, L::kPreorder, 4, [&](uint32_t v, const std::byte*, uint64_t) {
            if (v >= n_ || reachable[v]) return false;
            reachable[v] = true;
            return true;
          });
          if (pre != ArrayCheck::Ok) return pre;
          const ArrayCheck idom = each<uint32_t>(src, place_, L::kIdom, 4, [&](uint32_t d, const std::byte*, uint64_t v) {
            if (!reachable[v]) return d == kNoNode;
            return d == kVirtualRoot || (d < n_ && reachable[d]);
          });
          return idom == ArrayCheck::BadElement ? ArrayCheck::BadSecondElement : idom;
        },
        "analysis index dominators do not match the preorder");
    jobs.add("", [this](Source& src) { return typed<uint64_t>(src, place_, L::kRetained, any); });
  }

  // 17: the shortest-path tree. A parent is a node or a mark; as many nodes are reached as the
  // dominators say (the same strong roots reach the same objects); the root marks are listed
  // so that they can be matched with the roots once those are read.
  void add_path_tree_checks(CheckJobs& jobs) {
    if (!wanted(kIndexPathTree)) return;
    jobs.add("analysis index shortest-path tree out of range", [this](Source& src) {
      uint64_t reached = 0;
      const ArrayCheck parents =
          each<uint32_t>(src, place_, L::kPathParents, 4, [&](uint32_t parent, const std::byte*, uint64_t v) {
            if (parent == ShortestPathTree::kRootMark) {
              if (root_marks_.size() >= c_.roots) return false;
              root_marks_.push_back(static_cast<NodeIndex>(v));
            }
            reached += parent != kNoNode;
            return parent < n_ || parent == ShortestPathTree::kRootMark || parent == kNoNode;
          });
      if (parents != ArrayCheck::Ok) return parents;
      return reached == c_.preorder ? ArrayCheck::Ok : ArrayCheck::BadElement;
    });
  }

  // 16: the type histogram (small: copied).
  void add_type_checks(CheckJobs& jobs) {
    if (!wanted(kIndexTypes)) return;
    types_.reserve(static_cast<size_t>(c_.types));
    jobs.add("analysis index type histogram not sorted or its generation bytes do not add up", [this](Source& src) {
      return each<uint32_t>(src, place_, L::kTypes, L::kTypeRecord, [&](uint32_t type, const std::byte* at, uint64_t i) {
        TypeStats t;
        t.type_id = type;
        t.count = L::load<uint64_t>(at + L::kTypeCount);
        t.shallow_bytes = L::load<uint64_t>(at + L::kTypeShallow);
        t.retained_bytes = L::load<uint64_t>(at + L::kTypeRetained);
        t.unreachable_count = L::load<uint64_t>(at + L::kTypeUnreachable);
        uint64_t by_generation = 0;
        bool sums = true;
        for (size_t g = 0; g < kGenerationSlots; ++g) {
          t.generation_bytes[g] = L::load<uint64_t>(at + L::kTypeGenerationBytes + 8 * g);
          sums = sums && by_generation + t.generation_bytes[g] >= by_generation;  // no wrap
          by_generation += t.generation_bytes[g];
        }
        const bool ok = L::load<uint32_t>(at + L::kTypeZero) == 0 && (i == 0 || types_.back().type_id < type) && sums &&
                        by_generation == t.shallow_bytes;
        types_.push_back(t);
        return ok;
      });
    });
  }

  // Every root mark of the tree is on a strong root's object (from_parents checks the converse).
  std::optional<Error> check_root_marks() const {
    if (!wanted(kIndexPathTree)) return std::nullopt;
    std::vector<NodeIndex> strong;
    for (const GraphRoot& r : parts_.roots)
      if (!r.is_weak()) strong.push_back(r.node);
    std::sort(strong.begin(), strong.end());
    for (NodeIndex v : root_marks_)
      if (!std::binary_search(strong.begin(), strong.end(), v))
        return damaged(ErrorCode::CorruptSection, "analysis index shortest-path tree out of range");
    return std::nullopt;
  }

  const std::byte* at(size_t which) const { return bytes_.data() + place_.offset[which]; }
  std::span<const uint32_t> u32s(size_t which) const {
    return {reinterpret_cast<const uint32_t*>(at(which)), static_cast<size_t>(place_.bytes[which] / 4)};
  }
  std::span<const uint64_t> u64s(size_t which) const {
    return {reinterpret_cast<const uint64_t*>(at(which)), static_cast<size_t>(place_.bytes[which] / 8)};
  }
  std::span<const uint32_t> forward_narrow() const {
    return wide_ || !wanted(kIndexForward) ? std::span<const uint32_t>() : u32s(L::kForwardOffsets);
  }
  std::span<const uint64_t> forward_wide() const {
    return wide_ && wanted(kIndexForward) ? u64s(L::kForwardOffsets) : std::span<const uint64_t>();
  }
  std::span<const uint32_t> forward_targets() const {
    return wanted(kIndexForward) ? u32s(L::kForwardTargets) : std::span<const uint32_t>();
  }

  // Dependent edges are the last successors of their primary (edge_kind relies on it).
  std::optional<Error> check_dependent_edges() const {
    if (!wanted(kIndexForward)) return std::nullopt;
    const auto narrow = forward_narrow();
    const auto wide = forward_wide();
    const auto targets = forward_targets();
    auto fwd = [&](size_t i) -> uint64_t { return wide_ ? wide[i] : narrow[i]; };
    const auto& edges = parts_.dependent_edges;
    for (size_t k = 0; k < edges.size();) {
      const NodeIndex primary = edges[k].first;
      size_t j = k;
      while (j < edges.size() && edges[j].first == primary) ++j;
      const uint64_t begin = fwd(primary), end = fwd(primary + size_t{1});
      if (end - begin < j - k) return damaged(ErrorCode::CorruptSection, "analysis index dependent edges do not match the graph");
      for (size_t e = 0; e < j - k; ++e)
        if (targets[static_cast<size_t>(end - (j - k) + e)] != edges[k + e].second)
          return damaged(ErrorCode::CorruptSection, "analysis index dependent edges do not match the graph");
      k = j;
    }
    return std::nullopt;
  }

  // The AnalysisIndex over the checked arrays, in place.
  AnalysisIndex assemble() {
    AnalysisIndex out;
    out.parts = want_;
    out.root_entries = root_total_;
    out.unreachable_objects = c_.nodes - c_.preorder;
    out.unreachable_bytes = L::load<uint64_t>(h_ + L::kOffUnreachableBytes);
    out.block_hash = L::load<uint64_t>(h_ + L::kOffBlockHash);
    uint64_t stats[7];
    std::memcpy(stats, h_ + L::kOffStats, sizeof stats);
    parts_.stats = GraphBuildStats{stats[0], stats[1], stats[2], stats[3], stats[4], stats[5], stats[6]};
    parts_.has_dependent = (c_.flags & L::kFlagDependent) != 0;
    if (wanted(kIndexTypeIds) && !wanted(kIndexObjects)) {
      parts_.nodes = n_;
      parts_.type_ids = u32s(L::kTypeIds).data();
    } else if (wanted(kIndexObjects)) {
      parts_.nodes = n_;
      parts_.edges = wanted(kIndexForward) ? m_ : 0;
      parts_.addresses = u64s(L::kAddresses).data();
      parts_.sizes = u64s(L::kSizes).data();
      parts_.type_ids = u32s(L::kTypeIds).data();
      parts_.forward = {forward_narrow(), forward_wide(), forward_targets()};
      if (wanted(kIndexReverse))
        parts_.reverse = {wide_ ? std::span<const uint32_t>() : u32s(L::kReverseOffsets),
                          wide_ ? u64s(L::kReverseOffsets) : std::span<const uint64_t>(), u32s(L::kReverseSources)};
      out.generations = {reinterpret_cast<const Generation*>(at(L::kGenerations)), n_};
    } else {
      // No nodes: the roots (which name nodes) stay out of the graph too.
      parts_.roots.clear();
      parts_.unresolved_roots.clear();
    }
    out.graph = AnalysisIndexAccess::make_graph(std::move(parts_), keep_);
    if (wanted(kIndexDominators))
      out.dominators = AnalysisIndexAccess::make_dominators(
          u32s(L::kIdom), u64s(L::kRetained), u32s(L::kPreorder), L::load<uint64_t>(h_ + L::kOffReachableBytes),
          L::load<uint64_t>(h_ + L::kOffUnreachableBytes), keep_);
    if (wanted(kIndexSlots) && (c_.flags & L::kFlagSlots)) out.edge_slots = AnalysisIndexAccess::make_slots(u32s(L::kSlots), keep_);
    if (wanted(kIndexPathTree)) out.path_parents = u32s(L::kPathParents);
    out.type_stats = std::move(types_);
    out.has_dependent_handles = (c_.flags & L::kFlagDependent) != 0;
    out.storage = std::move(keep_);
    return out;
  }

  std::span<const std::byte> bytes_;
  const std::byte* h_;
  std::shared_ptr<const void> keep_;  // the image
  L::Counts c_;
  L::Placement place_;
  IndexParts want_ = 0;
  size_t n_ = 0;
  uint64_t m_ = 0;
  bool wide_ = false;
  uint64_t root_total_ = 0;
  AnalysisIndexAccess::GraphParts parts_;  // the roots and dependent edges the jobs copy out
  std::vector<TypeStats> types_;           // the histogram the job copies out
  std::vector<NodeIndex> root_marks_;      // the tree's root marks, matched with the roots after
  std::array<std::span<const unsigned char>, L::kArrayCount> coded_{};  // each array's frames in the file
  std::atomic<bool> out_of_memory_{false};
};

Result<AnalysisIndex> parse(std::span<const std::byte> bytes, const IndexIdentity* expected, IndexParts want) {
  IndexParse parse(bytes);
  return parse.run(expected, want);
}

}  // namespace

Result<ShortestPathTree> kept_path_tree(const AnalysisIndex& index, const HeapGraph& graph) {
  // The tree reaches what the dominator tree does: the objects strong roots reach (§12.4).
  return ShortestPathTree::from_parents(graph, index.path_parents, graph.node_count() - index.unreachable_objects,
                                        index.storage);
}

Result<AnalysisIndex> analysis_index_from_bytes(std::span<const std::byte> bytes, const IndexIdentity* expected,
                                    IndexParts parts) {
  return parse(bytes, expected, parts);
}

namespace detail {

Result<detail::IndexHeaderFacts> read_index_header(std::span<const std::byte> bytes, const IndexIdentity* expected) {
  IndexParse parse(bytes);
  return parse.header_facts(expected);
}

Result<MappedIndex> map_index_file(const std::string& path, const IndexIdentity& expected) {
  const platform::FileHandle fd = platform::open_file(path, platform::OpenMode::Read);
  if (fd == platform::kNoFile) {
    if (errno == ENOENT) return make_error(ErrorCode::NotFound, "no analysis index");
    return Error{ErrorCode::IoError, 0, "cannot open the analysis index", errno};
  }
  platform::FileInfo st;
  if (!platform::file_info(fd, st)) {
    const int e = errno;
    platform::close_file(fd);
    return Error{ErrorCode::IoError, 0, "cannot stat the analysis index", e};
  }
  // The header first: a stale index is told without mapping the rest.
  std::byte header[L::kHeaderSize];
  if (st.size < L::kHeaderSize || platform::read_at(fd, header, sizeof header, 0) != static_cast<int64_t>(sizeof header)) {
    platform::close_file(fd);
    return damaged(ErrorCode::Truncated, "analysis index shorter than its header");
  }
  if (std::memcmp(header, L::kMagic, sizeof L::kMagic) == 0 &&
      L::load<uint64_t>(header + L::kOffHeaderHash) == XXH3_64bits(header, L::kOffHeaderHash)) {
    const IndexIdentity id = detail::identity_in_header(header);
    if (!(id == expected)) {
      platform::close_file(fd);
      return damaged(ErrorCode::InconsistentData, "stale analysis index (the recording changed)");
    }
  }
  auto mapping = std::make_shared<Mapping>();
  mapping->size = static_cast<size_t>(st.size);
  mapping->base = platform::map_file(fd, mapping->size, false);
  if (!mapping->base) {
    const int e = errno;
    platform::close_file(fd);
    return Error{ErrorCode::IoError, 0, "cannot map the analysis index", e};
  }
  platform::close_file(fd);
  MappedIndex out;
  out.bytes = {static_cast<const std::byte*>(mapping->base), mapping->size};
  out.keep = std::move(mapping);
  return out;
}

}  // namespace detail

Result<AnalysisIndex> read_analysis_index(const std::string& path, const IndexIdentity& expected, IndexParts parts) {
  auto mapped = detail::map_index_file(path, expected);
  if (!mapped) return mapped.error();
  return parse(mapped->bytes, &expected, parts);  // decodes what it needs: the mapping goes after
}

}  // namespace gcsnap
