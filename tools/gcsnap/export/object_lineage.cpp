// Object identity with the walks kept on disk. The previous walk's objects are read back in node
// order a chunk at a time, followed through every GC in between (one merge cursor per GC, the
// chunk sorted by address before each, as BulkMapper does for the whole set), and each chunk's
// survivors are written sorted by (new address, previous node) as one run. The runs merged in
// that order meet the new walk's objects, ascending: the first survivor at an object's address
// names it, the same answer as matching the whole previous walk at once.
#include "export/object_lineage.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <queue>
#include <random>
#include <utility>

#include <fmt/format.h>

#include "gcsnap/object_identity.hpp"
#include "errors/cli_error.hpp"

namespace gcsnap::cli {

namespace {

// Objects per chunk when following (24 B each) and records per run buffer when merging.
constexpr size_t kChunkObjects = size_t{1} << 19;
constexpr size_t kRunBuffer = size_t{1} << 12;

[[noreturn]] void fail_spill(const std::string& path, const char* what) {
  throw CliError(fmt::format("{}: {} the identity spill file: {}", path, what, std::strerror(errno)), kExitBadInput);
}

}  // namespace

SpillFile::SpillFile(const std::string& dir) {
  std::random_device random;
  path_ = fmt::format("{}/.gcsnap-identity-{:08x}{:08x}.tmp", dir, random(), random());
  f_.open(path_, std::ios::in | std::ios::out | std::ios::trunc | std::ios::binary);
  if (!f_) fail_spill(path_, "cannot create");
}

SpillFile::~SpillFile() {
  f_.close();
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

void SpillFile::write(const void* data, size_t bytes) {
  if (bytes && !f_.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes))) fail_spill(path_, "cannot write");
}

void SpillFile::flush() {
  if (!f_.flush()) fail_spill(path_, "cannot write");
}

void SpillFile::read_at(uint64_t offset, void* data, size_t bytes) {
  if (!f_.seekg(static_cast<std::streamoff>(offset)) || !f_.read(static_cast<char*>(data), static_cast<std::streamsize>(bytes)))
    fail_spill(path_, "cannot read");
}

struct ObjectLineage::Kept {
  uint64_t address, first_address;
  uint32_t first_walk;
  Generation generation;
};

// A survivor of the previous walk: where it is now, its node there and its origin.
struct ObjectLineage::Moved {
  uint64_t address, first_address;
  uint32_t node, first_walk;
  Generation generation;
  bool operator<(const Moved& o) const noexcept { return address != o.address ? address < o.address : node < o.node; }
};

// The runs of one spill file merged in (address, node) order, a buffer per run.
class ObjectLineage::RunMerge {
 public:
  // ENDS: where each run ends; IN_ORDER: every run's last survivor precedes the next run's first
  // (the GCs kept the objects' order), so the runs are read one after the other.
  RunMerge(SpillFile& f, const std::vector<uint64_t>& ends, bool in_order) : f_(f), in_order_(in_order) {
    uint64_t begin = 0;
    for (uint64_t end : ends) {
      runs_.push_back(Run{begin, end, {}, 0});
      begin = end;
    }
    if (in_order_) {
      runs_.assign(1, Run{0, begin, {}, 0});
      if (refill(runs_[0])) top_ = &runs_[0].buffer[0];
      return;
    }
    for (size_t r = 0; r < runs_.size(); ++r)
      if (refill(runs_[r])) heap_.push({runs_[r].buffer[0], r});
    if (!heap_.empty()) top_ = &heap_.top().first;
  }
  // The smallest survivor not yet popped, or null.
  const Moved* top() const { return top_; }
  void pop() {
    if (in_order_) {
      Run& run = runs_[0];
      top_ = ++run.pos < run.buffer.size() || refill(run) ? &run.buffer[run.pos] : nullptr;
      return;
    }
    const size_t r = heap_.top().second;
    heap_.pop();
    Run& run = runs_[r];
    if (++run.pos < run.buffer.size() || refill(run)) heap_.push({run.buffer[run.pos], r});
    top_ = heap_.empty() ? nullptr : &heap_.top().first;
  }

 private:
  struct Run {
    uint64_t next, end;  // records still on disk: [next, end)
    std::vector<Moved> buffer;
    size_t pos;
  };
  bool refill(Run& run) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(kRunBuffer, run.end - run.next));
    run.buffer.resize(count);
    run.pos = 0;
    if (count == 0) return false;
    f_.read_at(run.next * sizeof(Moved), run.buffer.data(), count * sizeof(Moved));
    run.next += count;
    return true;
  }
  using Head = std::pair<Moved, size_t>;
  struct Later {
    bool operator()(const Head& a, const Head& b) const noexcept { return b.first < a.first; }
  };
  SpillFile& f_;
  bool in_order_;
  const Moved* top_ = nullptr;
  std::vector<Run> runs_;
  std::priority_queue<Head, std::vector<Head>, Later> heap_;
};

ObjectLineage::ObjectLineage(std::string dir) : dir_(std::move(dir)), chunk_objects_(kChunkObjects) {
  // Tests make chunks (and so runs) of a few objects to exercise the merge on small recordings.
  if (const char* forced = std::getenv("GCSNAP_IDENTITY_CHUNK"); forced && *forced) {
    const unsigned long long n = std::strtoull(forced, nullptr, 10);
    if (n > 0 && n < kChunkObjects) chunk_objects_ = static_cast<size_t>(n);
  }
}
ObjectLineage::~ObjectLineage() = default;

// Follow the previous walk's objects to GC_POS into sorted runs. GAP: identity starts over.
Status ObjectLineage::follow_previous(const Recording& rec, size_t gc_pos, SpillFile& runs,
                                      std::vector<uint64_t>& run_ends, bool& in_order, bool& gap) {
  std::vector<GcTransition> transitions;
  for (size_t i = previous_index_ + 1; i <= gc_pos; ++i) {
    auto t = read_transition(rec, i);
    if (!t) {
      gap = t.error().code == ErrorCode::InconsistentData;
      return gap ? Status::ok() : Status(t.error());
    }
    transitions.push_back(std::move(t).value());
  }
  std::vector<Kept> kept;
  std::vector<Moved> chunk;
  uint64_t written = 0;
  Moved last{};
  bool has_last = false;
  in_order = true;
  for (uint64_t first = 0; first < size_; first += chunk_objects_) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(chunk_objects_, size_ - first));
    kept.resize(count);
    kept_->read_at(first * sizeof(Kept), kept.data(), count * sizeof(Kept));
    chunk.resize(count);
    for (size_t i = 0; i < count; ++i)
      chunk[i] = Moved{kept[i].address, kept[i].first_address, static_cast<uint32_t>(first + i), kept[i].first_walk,
                       kept[i].generation};
    for (const GcTransition& t : transitions) {
      if (!std::is_sorted(chunk.begin(), chunk.end())) std::sort(chunk.begin(), chunk.end());
      GcTransition::Cursor cursor(t);
      size_t alive = 0;
      for (Moved m : chunk) {
        const auto step = cursor.next(m.address, m.generation);
        if (step.fate == Fate::Died) continue;
        const bool in_place =
            step.fate == Fate::NotCondemned || step.fate == Fate::NonGcHeap || step.fate == Fate::Unknown;
        m.address = step.address;
        m.generation = in_place ? step.generation_before : promoted_generation(t.info(), step.generation_before);
        chunk[alive++] = m;
      }
      chunk.resize(alive);
    }
    if (!std::is_sorted(chunk.begin(), chunk.end())) std::sort(chunk.begin(), chunk.end());
    if (!chunk.empty()) {
      if (has_last && !(last < chunk.front())) in_order = false;
      last = chunk.back();
      has_last = true;
    }
    runs.write(chunk.data(), chunk.size() * sizeof(Moved));
    written += chunk.size();
    run_ends.push_back(written);
  }
  return Status::ok();
}

Status ObjectLineage::next_walk(const Recording& rec, size_t gc_pos, const ObjectSource& objects) {
  walk_gcs_.push_back(rec.gcs()[gc_pos].info.gc_number);
  const auto walk = static_cast<uint32_t>(walk_gcs_.size() - 1);
  followed_ = 0;
  bool complete = has_previous_;
  for (size_t i = previous_index_ + 1; complete && i <= gc_pos; ++i) complete = has_complete_transition(rec, i);
  if (complete && size_ >= UINT32_MAX)
    return make_error(ErrorCode::LimitExceeded, "too many objects to follow (2^32)");
  SpillFile runs(dir_);
  std::vector<uint64_t> run_ends;
  bool in_order = true;
  if (complete) {
    bool gap = false;
    Status s = follow_previous(rec, gc_pos, runs, run_ends, in_order, gap);
    if (!s.is_ok()) return s;
    if (gap) run_ends.clear();
  }
  RunMerge merge(runs, run_ends, in_order);
  auto next = std::make_unique<SpillFile>(dir_);
  std::vector<Kept> out;
  out.reserve(kRunBuffer);
  uint64_t count = 0, address = 0;
  Generation generation{};
  while (objects(address, generation)) {
    Kept k{address, address, walk, generation};
    const Moved* m = merge.top();
    while (m && m->address < address) {
      merge.pop();
      m = merge.top();
    }
    if (m && m->address == address) {
      k.first_walk = m->first_walk;
      k.first_address = m->first_address;
      ++followed_;
    }
    out.push_back(k);
    if (out.size() == kRunBuffer) {
      next->write(out.data(), out.size() * sizeof(Kept));
      out.clear();
    }
    ++count;
  }
  next->write(out.data(), out.size() * sizeof(Kept));
  next->flush();
  kept_ = std::move(next);
  size_ = count;
  previous_index_ = gc_pos;
  has_previous_ = true;
  return Status::ok();
}

ObjectLineage::Origin ObjectLineage::Origins::next() {
  if (pos_ == count_) {
    count_ = static_cast<size_t>(std::min<uint64_t>(kRunBuffer, l_.size_ - read_));
    if (count_ == 0) throw CliError("the objects outnumber the walk's identity", kExitBadInput);
    buffer_.resize(count_ * sizeof(Kept));
    l_.kept_->read_at(read_ * sizeof(Kept), buffer_.data(), buffer_.size());
    read_ += count_;
    pos_ = 0;
  }
  Kept k;
  std::memcpy(&k, buffer_.data() + pos_++ * sizeof(Kept), sizeof(Kept));
  return Origin{l_.walk_gcs_[k.first_walk], k.first_address};
}

}  // namespace gcsnap::cli
