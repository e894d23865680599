#pragma once
/// `gcsnap inspect`: the findings dotMemory and Eclipse MAT list for one heap walk, each with
/// the bytes it wastes (or holds) and the field that holds it. Each kind of finding is one
/// FindingRule in a file of its own (src/analysis/inspect_*.cpp) listed by finding_rules();
/// adding a kind is one file and one line there. Bytes are totalled over the union of the
/// objects the findings name: an object inside what another counted object retains (its
/// dominator subtree) is never counted twice.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gcsnap/dominators.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"
#include "gcsnap/values.hpp"

namespace gcsnap {

/// One object a finding counts, and the bytes it counts of it: its retained size (what goes
/// if it goes) or a part of its own size (a sparse array's empty slots).
struct CountedObject {
  NodeIndex node = kNoNode;
  uint64_t bytes = 0;
  bool retained = false;  ///< BYTES is the object's retained size: its dominator subtree is covered
};

struct Finding {
  std::string kind;     ///< the rule's kind: "duplicate-strings", "empty-collection", ...
  std::string holder;   ///< "App.Order.Status", "root", "finalization queue"; "" when unknown
  std::string what;     ///< the finding in words: "8 copies of 1 value (7 chars)"
  std::string example;  ///< captured content of a duplicated string, only when the recording has it
  /// The delegate's method an event-handler or timer finding is about ("Ns.Subscriber.OnChanged",
  /// "<lambda> in Ns.PollSession.Start"); "" for other kinds, or when the recording has none.
  std::string method;
  uint64_t count = 0;   ///< objects the finding is about
  std::vector<CountedObject> objects;
  uint64_t bytes = 0;   ///< the union of OBJECTS' bytes (set by inspect_heap)
};

/// What a rule reads: one heap walk with its names, edges, dominators and values.
struct InspectInput {
  const HeapGraph& graph;  ///< with its reverse CSR
  const NameTable& names;
  const EdgeNamer& namer;
  const DominatorTree& dominators;
  std::span<const StringValue> strings;          ///< sorted by address
  std::span<const StringContent> contents;       ///< sorted by address; empty unless captured
  std::span<const CollectionValue> collections;  ///< sorted by address
  std::span<const NodeIndex> finalizer_roots;    ///< objects the finalizer queue holds, sorted, unique
  std::span<const DelegateTarget> delegates = {};  ///< the delegates' methods, sorted by address; may be empty

  std::string_view type_name(NodeIndex node) const { return names.type_name(graph.type_id(node)); }
  /// The field that holds NODE: "Type.field" of its first referrer whose edge has a name,
  /// "Type[] element", "Type (field unknown)", or "root" when no object refers to it.
  std::string holder_of(NodeIndex node) const;
  /// The node of the object at ADDRESS, or kNoNode.
  NodeIndex node_at(uint64_t address) const;
  /// The captured content of the string at ADDRESS, or "" (none captured).
  std::string_view content_at(uint64_t address) const;
};

class FindingRule {
 public:
  virtual ~FindingRule() = default;
  /// The kind of the findings it makes ("duplicate-strings").
  virtual std::string_view kind() const noexcept = 0;
  /// Append its findings to OUT. Errors: OutOfMemory.
  virtual Status find(const InspectInput& in, std::vector<Finding>& out) const = 0;
};

/// The rules `inspect` runs, in the order their findings are listed.
std::span<const FindingRule* const> finding_rules();

struct InspectTotal {
  std::string kind;
  uint64_t findings = 0;
  uint64_t bytes = 0;  ///< the union over this kind's findings
};

struct InspectReport {
  std::vector<Finding> findings;  ///< by rule, then by bytes (largest first)
  std::vector<InspectTotal> totals;  ///< one per rule with findings
  uint64_t bytes = 0;  ///< the union over every finding
};

/// Run every rule of finding_rules() over IN. Errors: those of the rules.
[[nodiscard]] Result<InspectReport> inspect_heap(const InspectInput& in);

/// The bytes of OBJECTS counted once: the largest count per node, none for a node that a
/// retained-counted object dominates (it is in that object's retained size already).
uint64_t union_bytes(const DominatorTree& dominators, std::span<const CountedObject> objects);

}  // namespace gcsnap
