#include "leak_rounds.hpp"

#include "gcsnap/model.hpp"

namespace gcsnap::test {

size_t RoundHeap::add(uint32_t type, uint64_t size) {
  objects_.push_back({next_, type, size, {}, true});
  next_ += (size + 7) / 8 * 8;
  return objects_.size() - 1;
}

Status RoundHeap::write_gc(Writer& w, uint64_t time_base) {
  GcInfo info;
  info.gc_number = ++gc_;
  info.generations_collected = 0x7;
  info.trigger = SnapshotTrigger::Policy;
  info.start_time_ns = time_base + gc_ * 1'000'000;
  info.end_time_ns = info.start_time_ns + 1000;
  GCSNAP_RETURN_IF_ERROR(w.begin_gc(info));
  if (gc_ == 1) {
    std::vector<TypeRecord> types;
    for (size_t i = 0; i < names_.size(); ++i) types.push_back({static_cast<uint32_t>(i + 1), 0x100 + i, names_[i], module_});
    GCSNAP_RETURN_IF_ERROR(w.add_types(types));
  }
  std::vector<uint64_t> root_ids, ids;
  std::vector<uint8_t> kinds, flags;
  for (const auto& [r, kind] : roots_) {
    if (!objects_[r].alive) continue;
    ids.push_back(objects_[r].address);
    kinds.push_back(static_cast<uint8_t>(kind));
    flags.push_back(0);
    root_ids.push_back(0x1000 + r);
  }
  GCSNAP_RETURN_IF_ERROR(w.add_roots(ids, kinds, flags, root_ids));
  std::vector<uint64_t> addresses, sizes, refs;
  std::vector<uint32_t> types, counts;
  std::vector<uint8_t> gens;
  for (const auto& o : objects_) {
    if (!o.alive) continue;
    addresses.push_back(o.address);
    types.push_back(o.type);
    sizes.push_back(o.size);
    gens.push_back(static_cast<uint8_t>(Generation::Gen2));
    uint32_t n = 0;
    for (size_t t : o.refs) {
      if (!objects_[t].alive) continue;
      refs.push_back(objects_[t].address);
      ++n;
    }
    counts.push_back(n);
  }
  GCSNAP_RETURN_IF_ERROR(w.add_surviving_ranges(addresses, sizes));
  GCSNAP_RETURN_IF_ERROR(w.add_objects(addresses, types, sizes, gens, counts, refs));
  if (before_end) GCSNAP_RETURN_IF_ERROR(before_end(w));
  return w.end_gc(info);
}

const std::vector<std::string>& leak_round_type_names() {
  static const std::vector<std::string> names = {
      "App.Holder", "App.Item[]", "App.Item", "App.Head", "App.Node", "App.Cache", "App.Entry[]", "App.Entry",
      "App.Work",   "App.Temp",   "App.Blob", "App.Lazy", "App.Pool", "App.Pooled", "App.Busy"};
  return names;
}

namespace {
enum Type : uint32_t {
  Holder = 1, ItemArray, Item, Head, Node, Cache, EntryArray, Entry, Work, Temp, Blob, Lazy, Pool, Pooled, Busy,
};
}  // namespace

Status write_leak_rounds(const std::string& path) {
  auto created = Writer::create(path);
  if (!created) return created.error();
  Writer& w = **created;
  RoundHeap h(leak_round_type_names());
  const size_t holder = h.add(Holder), head = h.add(Head), cache = h.add(Cache), work = h.add(Work);
  const size_t pool = h.add(Pool), busy = h.add(Busy);
  for (size_t r : {holder, head, cache, work, pool, busy}) h.root(r);
  for (int i = 0; i < 50; ++i) h.ref(holder, h.add(Blob));
  std::vector<size_t> pooled;
  for (int i = 0; i < 40; ++i) {
    pooled.push_back(h.add(Pooled));
    h.ref(pool, pooled.back());
  }
  std::vector<size_t> items, entries, temps, lazies;
  size_t array = h.add(ItemArray), entry_array = h.add(EntryArray), tail = head;
  h.ref(holder, array);
  h.ref(cache, entry_array);
  GCSNAP_RETURN_IF_ERROR(h.write_gc(w));
  for (int round = 1; round <= 6; ++round) {
    // A leak through a growing array: the holder's array is replaced by a bigger one.
    for (int i = 0; i < 5; ++i) items.push_back(h.add(Item));
    h.kill(array);
    array = h.add(ItemArray, 16 + 8 * items.size());
    for (size_t it : items) h.ref(array, it);
    // A leak in a linked list: three nodes appended per round.
    for (int i = 0; i < 3; ++i) {
      const size_t node = h.add(Node);
      h.ref(tail, node);
      tail = node;
    }
    // A cache that fills (10 a round) to 20 entries, then replaces 5 a round.
    for (int i = 0; i < 10; ++i) {
      if (entries.size() >= 20) {
        if (i >= 5) break;
        h.kill(entries.front());
        entries.erase(entries.begin());
      }
      entries.push_back(h.add(Entry));
    }
    h.kill(entry_array);
    entry_array = h.add(EntryArray, 16 + 8 * entries.size());
    for (size_t e : entries) h.ref(entry_array, e);
    h.clear_refs(cache);
    h.ref(cache, entry_array);
    // Churn: 20 temporaries alive at each walk, all new.
    for (size_t t : temps) h.kill(t);
    temps.clear();
    h.clear_refs(work);
    for (int i = 0; i < 20; ++i) {
      temps.push_back(h.add(Temp));
      h.ref(work, temps.back());
    }
    // A one-time allocation in round 3.
    if (round == 3)
      for (int i = 0; i < 30; ++i) lazies.push_back(h.add(Lazy));
    // The holder: its blobs, the new array, the lazy objects.
    h.clear_refs(holder);
    h.ref(holder, array);
    for (size_t i = 0; i < 50; ++i) h.ref(holder, 6 + i);  // the blobs, allocated right after the six roots
    for (size_t l : lazies) h.ref(holder, l);
    // Old objects change hands: 5 pooled objects a round become busy (a count that rises,
    // made of objects born before the first walk).
    h.clear_refs(pool);
    h.clear_refs(busy);
    for (size_t i = 0; i < pooled.size(); ++i) h.ref(i < static_cast<size_t>(round) * 5 ? busy : pool, pooled[i]);
    GCSNAP_RETURN_IF_ERROR(h.write_gc(w));
  }
  return w.close();
}

}  // namespace gcsnap::test
