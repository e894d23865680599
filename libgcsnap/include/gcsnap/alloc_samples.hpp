#pragma once
/// Sampled allocation sites (format-spec.md §6.18-§6.21): the samples of each GC block with
/// the stacks, functions and types they name; writing them; following each sample through the
/// later GCs to the object it became (or its death); and the estimates of bytes and objects
/// allocated and still live that the samples stand for.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gcsnap/model.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

class Writer;
class Recording;

/// §6.18 column 4: what sampled the allocation.
enum class AllocSampleKind : uint8_t {
  Sampled = 0,  ///< AllocationSampled (.NET 10+): unbiased, each byte with probability 1/102,400
  Tick = 1,     ///< GCAllocationTick (.NET 8, 9): one per ~100 KiB, biased; not an estimate
};
/// §6.18 column 5: the heap the object was allocated in.
enum class AllocHeap : uint8_t { Small = 0, Large = 1, Pinned = 2 };

/// One sampled allocation, as the block of the first GC after it holds it.
struct AllocSample {
  uint64_t address = 0;   ///< the object's address when it was allocated (before its block's GC)
  uint64_t class_id = 0;  ///< the runtime's ClassID; 0 unknown
  uint64_t size = 0;      ///< object size in bytes
  uint64_t amount = 0;    ///< ticks: bytes allocated since the previous tick; sampled: 0
  uint64_t thread = 0;    ///< the profiling API's ThreadID; 0 unknown
  uint64_t time_ns = 0;   ///< CLOCK_REALTIME
  uint32_t stack_id = 0;  ///< §6.19; 0 unknown
  uint32_t scale = 1;     ///< samples this row stands for (a rate cap kept 1 in scale)
  AllocSampleKind kind = AllocSampleKind::Sampled;
  AllocHeap heap = AllocHeap::Small;
};

/// §6.19 column 3.
enum class FrameKind : uint8_t {
  Managed = 0,    ///< value = FunctionID
  Native = 1,     ///< value = instruction pointer
  Truncated = 2,  ///< deeper frames were left out; value 0; only last
};
struct StackFrame {
  uint64_t value = 0;
  FrameKind kind = FrameKind::Managed;
};
/// An interned stack: innermost frame (the allocating method) first.
struct AllocStack {
  uint32_t id = 0;
  std::vector<StackFrame> frames;
};
/// §6.20: a managed frame's function.
struct StackFunction {
  uint64_t function_id = 0;
  std::string module;  ///< module file name (e.g. "app.dll")
  std::string type;    ///< declaring type, named as §6.7 names types
  std::string method;  ///< method name with generic arguments
};
/// §6.21: a sampled ClassID's name as the allocation event gave it.
struct SampledType {
  uint64_t class_id = 0;
  std::string name;
};

// ---- writing (between Writer::begin_gc and end_gc of the block the samples belong to) ----

/// Append the samples taken before this GC started (§6.18). Errors: InvalidArgument (an
/// address or size 0, a scale 0, an enum out of range); the writer's.
[[nodiscard]] Status write_alloc_samples(Writer& writer, std::span<const AllocSample> samples);
/// Declare stacks first used in this GC (§6.19); ids must not repeat across the recording.
/// Errors: InvalidArgument (id 0, more than 65,536 frames, a truncated frame not last).
[[nodiscard]] Status write_alloc_stacks(Writer& writer, std::span<const AllocStack> stacks);
/// Declare functions first named in this GC (§6.20). Errors: InvalidArgument (id 0, a name
/// longer than kMaxNameBytes).
[[nodiscard]] Status write_stack_functions(Writer& writer, std::span<const StackFunction> functions);
/// Declare ClassIDs first sampled in this GC (§6.21). Errors: InvalidArgument as above.
[[nodiscard]] Status write_sampled_types(Writer& writer, std::span<const SampledType> types);

// ---- reading ----

/// The samples of one GC's block, in file order; empty for a block without any (every file
/// before 1.5). Errors: those of Recording::read_sections; CorruptSection (§6.18); NotFound.
[[nodiscard]] Result<std::vector<AllocSample>> read_alloc_samples(const Recording& recording, size_t gc_pos);

/// The stacks, functions and sampled types declared by blocks 0..gc_pos, with the recording's
/// type names (§6.7) to name ClassIDs alike in samples and walks.
class AllocNames {
 public:
  /// Errors: those of Recording::read_sections and read_names; CorruptSection (§6.19-§6.21);
  /// InconsistentData (an id declared twice).
  [[nodiscard]] static Result<AllocNames> read(const Recording& recording, size_t gc_pos);
  /// Build from records (tests, tools). Errors: InconsistentData (an id given twice).
  [[nodiscard]] static Result<AllocNames> from_records(std::vector<AllocStack> stacks,
                                                       std::vector<StackFunction> functions,
                                                       std::vector<SampledType> types);
  /// The stack with this id, or nullptr (0 and undeclared ids: unknown).
  const AllocStack* find_stack(uint32_t id) const noexcept;
  const StackFunction* find_function(uint64_t function_id) const noexcept;
  /// The type's name: the walk's name (§6.7) of the ClassID, else the sampled type's name,
  /// else "<type 0x...>".
  std::string type_name(uint64_t class_id) const;
  /// "Type.Method" for a managed frame ("<function 0x...>" when not declared), "<native 0x...>",
  /// "<truncated>".
  std::string frame_name(const StackFrame& frame) const;
  /// The allocation site of a stack: its innermost managed frame outside the runtime's own
  /// libraries (System.*, Microsoft.*, mscorlib, netstandard modules); the innermost managed
  /// frame when every one is the runtime's; nullptr for no managed frame.
  const StackFrame* site_frame(const AllocStack& stack) const noexcept;
  std::span<const AllocStack> stacks() const noexcept { return stacks_; }

 private:
  std::vector<AllocStack> stacks_;          // sorted by id
  std::vector<StackFunction> functions_;    // sorted by function_id
  std::vector<SampledType> types_;          // sorted by class_id
  std::vector<SampledType> walk_types_;     // ClassID -> the walk's name, sorted by class_id
};

// ---- estimates (format-spec.md §6.18) ----

/// The probability that AllocationSampled samples a given byte.
inline constexpr double kAllocSampleRate = 1.0 / 102400.0;
/// Bytes the sample stands for: sampled, scale·s/(1 − q^s) with q = 1 − kAllocSampleRate;
/// tick, scale·amount.
double estimated_bytes(const AllocSample& sample) noexcept;
/// Objects the sample stands for: sampled, scale/(1 − q^s); tick, scale·amount/s.
double estimated_objects(const AllocSample& sample) noexcept;

// ---- identity ----

/// A sample followed from its block's GC through later GCs.
struct FollowedSample {
  AllocSample sample;
  uint32_t block_pos = 0;      ///< gcs() index of the block that holds it
  bool alive = false;          ///< its object is alive after the last GC followed
  bool lost = false;           ///< a gap in the recorded ranges stopped the following (not alive)
  uint64_t address = 0;        ///< after the last GC followed: the heap walk's object id when alive
  uint64_t died_gc = 0;        ///< GC number it died at, 0 when alive or lost
};

/// The samples of blocks first_pos..last_pos, each followed through every GC from its block's
/// to last_pos, as object identity follows objects (object_identity.hpp): a sample whose
/// object died is allocated, not live. Errors: NotFound (positions); those of
/// read_alloc_samples and read_transition; OutOfMemory.
[[nodiscard]] Result<std::vector<FollowedSample>> follow_alloc_samples(const Recording& recording, size_t first_pos,
                                                                       size_t last_pos);

}  // namespace gcsnap
