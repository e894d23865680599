#pragma once
// A one-GC recording with event-handler and timer leaks, whose `inspect` findings are known by
// construction (tests/analysis/inspect_handlers_test.cpp). A handle holds the statics array
// 0x1000 (System.Object[]), whose static slots are:
//   App.ConfigWatcher.Changed  an EventHandler whose invocation list holds 3 handlers of
//                              App.Subscriber.OnChanged (each 64 B, its App.Subscriber 48 B and
//                              the subscriber's Byte[] 64 B) and 1 of App.Other.Handle
//   App.Program.s_publisher,   two App.Publisher whose Updated events' lists share the same 2
//   App.Program.s_other        handlers of App.Listener.OnUpdated (64 B, listener 40 B)
//   ...TimerQueue.s_queue      a TimerQueue whose _shortTimers list links 3 TimerQueueTimers
//                              (64 B each), each calling <Start>b__2_0 on an App.PollSession
//                              (32 B) that keeps its Timer (24 B) -> TimerHolder (24 B) ->
//                              the queued timer in PollSession._timer; callback delegates 64 B
//   App.Program.s_old          a TimerQueueTimer that is in no queue (disposed)
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gcsnap/writer.hpp"
#include "values_sample.hpp"

namespace gcsnap::test {

/// Write the sample to PATH.
inline bool write_handlers_sample(const std::string& path) {
  WriterOptions options;
  options.background_compression = false;
  auto created = Writer::create(path, options);
  if (!created) return false;
  Writer& w = **created;
  const std::vector<TypeRecord> types = {
      {1, 0xd1, "System.Object[]", "System.Private.CoreLib.dll"},
      {2, 0xd2, "System.EventHandler", "System.Private.CoreLib.dll"},
      {3, 0xd3, "App.Subscriber", "App.dll"},
      {4, 0xd4, "System.Byte[]", "System.Private.CoreLib.dll"},
      {5, 0xd5, "App.Publisher", "App.dll"},
      {6, 0xd6, "App.Listener", "App.dll"},
      {7, 0xd7, "System.Threading.TimerQueue", "System.Private.CoreLib.dll"},
      {8, 0xd8, "System.Threading.TimerQueueTimer", "System.Private.CoreLib.dll"},
      {9, 0xd9, "System.Threading.TimerCallback", "System.Private.CoreLib.dll"},
      {10, 0xda, "App.PollSession", "App.dll"},
      {11, 0xdb, "System.Threading.Timer", "System.Private.CoreLib.dll"},
      {12, 0xdc, "System.Threading.TimerHolder", "System.Private.CoreLib.dll"},
      {13, 0xdd, "App.Other", "App.dll"}};
  static const FieldRecord delegate[] = {{8, field_flags::kReference, "_target"},
                                         {16, field_flags::kReference, "_methodBase"},
                                         {24, 0, "_methodPtr"},
                                         {32, 0, "_methodPtrAux"},
                                         {40, field_flags::kReference, "_invocationList"},
                                         {48, 0, "_invocationCount"}};
  static const FieldRecord subscriber[] = {{8, field_flags::kReference, "State"}};
  static const FieldRecord publisher[] = {{8, field_flags::kReference, "Updated"}};
  static const FieldRecord queue[] = {{8, field_flags::kReference, "_shortTimers"},
                                      {16, field_flags::kReference, "_longTimers"}};
  static const FieldRecord queue_timer[] = {{8, field_flags::kReference, "_next"},
                                            {16, field_flags::kReference, "_prev"},
                                            {24, field_flags::kReference, "_timerCallback"},
                                            {32, field_flags::kReference, "_state"}};
  static const FieldRecord session[] = {{8, field_flags::kReference, "_timer"}};
  static const FieldRecord timer[] = {{8, field_flags::kReference, "_timer"}};
  const std::vector<TypeLayout> layouts = {{1, LayoutKind::ReferenceArray, 16, 8, {}},
                                           {2, LayoutKind::Object, 0, 0, delegate},
                                           {3, LayoutKind::Object, 0, 0, subscriber},
                                           {5, LayoutKind::Object, 0, 0, publisher},
                                           {7, LayoutKind::Object, 0, 0, queue},
                                           {8, LayoutKind::Object, 0, 0, queue_timer},
                                           {9, LayoutKind::Object, 0, 0, delegate},
                                           {10, LayoutKind::Object, 0, 0, session},
                                           {11, LayoutKind::Object, 0, 0, timer},
                                           {12, LayoutKind::Object, 0, 0, timer}};
  ValuesHeap heap;
  std::vector<DelegateTarget> delegates;
  // The static event: handlers 0x2200.. of OnChanged (0xF1), 0x22C0 of App.Other.Handle (0xF2).
  heap.add(0x2000, 2, 64, {0x2000, 0x2100}, {8, 40});
  heap.add(0x2100, 1, 48, {0x2200, 0x2240, 0x2280, 0x22C0}, {16, 24, 32, 40});
  for (uint64_t k = 0; k < 3; ++k) {
    heap.add(0x2200 + 0x40 * k, 2, 64, {0x2400 + 0x40 * k}, {8});
    heap.add(0x2400 + 0x40 * k, 3, 48, {0x2600 + 0x40 * k}, {8});
    heap.add(0x2600 + 0x40 * k, 4, 64, {}, {});
    delegates.push_back({0x2200 + 0x40 * k, 0xF1});
  }
  heap.add(0x22C0, 2, 64, {0x2500}, {8});
  heap.add(0x2500, 13, 32, {}, {});
  delegates.push_back({0x22C0, 0xF2});
  // Two publishers' Updated events share their 2 handlers (0xF3).
  for (uint64_t p : {0x3000ull, 0x3800ull}) {
    heap.add(p, 5, 24, {p + 0x100}, {8});
    heap.add(p + 0x100, 2, 64, {p + 0x100, p + 0x200}, {8, 40});
    heap.add(p + 0x200, 1, 32, {0x3300, 0x3340}, {16, 24});
  }
  for (uint64_t k = 0; k < 2; ++k) {
    heap.add(0x3300 + 0x40 * k, 2, 64, {0x3400 + 0x40 * k}, {8});
    heap.add(0x3400 + 0x40 * k, 6, 40, {}, {});
    delegates.push_back({0x3300 + 0x40 * k, 0xF3});
  }
  // The timer queue's doubly linked list, each timer kept by its owner's Timer -> TimerHolder.
  heap.add(0x5000, 7, 32, {0x5100}, {8});
  for (uint64_t k = 0; k < 3; ++k) {
    const uint64_t at = 0x5100 + 0x80 * k;
    std::vector<uint64_t> to;
    std::vector<uint32_t> slots;
    if (k < 2) to.push_back(at + 0x80), slots.push_back(8);
    if (k > 0) to.push_back(at - 0x80), slots.push_back(16);
    to.push_back(0x5300 + 0x40 * k), slots.push_back(24);
    heap.add(at, 8, 64, to, slots);
    heap.add(0x5300 + 0x40 * k, 9, 64, {0x5400 + 0x40 * k}, {8});
    heap.add(0x5400 + 0x40 * k, 10, 32, {0x5500 + 0x40 * k}, {8});
    heap.add(0x5500 + 0x40 * k, 11, 24, {0x5600 + 0x40 * k}, {8});
    heap.add(0x5600 + 0x40 * k, 12, 24, {at}, {8});
    delegates.push_back({0x5300 + 0x40 * k, 0xF4});
  }
  heap.add(0x5700, 8, 64, {}, {});
  heap.add(0x1000, 1, 72, {0x2000, 0x3000, 0x3800, 0x5000, 0x5700}, {16, 24, 32, 40, 48});
  const std::vector<StaticSlot> statics = {{0x1010, "App.ConfigWatcher.Changed"},
                                           {0x1018, "App.Program.s_publisher"},
                                           {0x1020, "App.Program.s_other"},
                                           {0x1028, "System.Threading.TimerQueue.s_queue"},
                                           {0x1030, "App.Program.s_old"}};
  const std::vector<MethodRecord> methods = {{0xF1, "App.Subscriber.OnChanged"},
                                             {0xF2, "App.Other.Handle"},
                                             {0xF3, "App.Listener.OnUpdated"},
                                             {0xF4, "App.PollSession.<Start>b__2_0"}};
  std::sort(delegates.begin(), delegates.end(),
            [](const DelegateTarget& a, const DelegateTarget& b) { return a.address < b.address; });
  const std::vector<uint64_t> roots = {0x1000};
  const std::vector<uint8_t> kinds = {static_cast<uint8_t>(RootKind::Handle)}, flags = {0};
  const std::vector<uint64_t> ids = {0x100};
  const std::vector<GenerationRange> bounds = {{Generation::Gen2, 0x1000, 0xF100, 0x10000}};
  GcInfo info{1, 0x7, GcReason::Induced, true, SnapshotTrigger::OnDemand, 1700000000000000000ull,
              1700000000001250000ull, 1};
  const bool ok = w.begin_gc(info).is_ok() && w.add_types(types).is_ok() && w.add_methods(methods).is_ok() &&
                  w.add_type_layouts(layouts).is_ok() && w.add_generation_bounds(bounds).is_ok() &&
                  w.add_roots(roots, kinds, flags, ids).is_ok() &&
                  w.add_objects(heap.addresses, heap.types, heap.sizes, heap.gens, heap.counts, heap.refs,
                                heap.slots).is_ok() &&
                  w.add_static_slots(statics).is_ok() && w.add_delegate_targets(delegates).is_ok() &&
                  w.add_value_capture(ValueCapture{}).is_ok() && w.end_gc(info).is_ok();
  return ok && w.close().is_ok();
}

}  // namespace gcsnap::test
