#pragma once
// What the heap walk needs to know per ClassID, in one flat table: the type id and how to
// tell an object's size without asking the runtime. Asking (GetObjectSize2, a COM call) for
// every object was a large part of the snapshot pause (docs/performance.md).
//
// The runtime's size of an object is base + components * component_size, where only arrays
// and strings have components, and their count is the u32 right after the MethodTable
// pointer (object + 8 on 64-bit). So a class's size rule can be learned from a few objects
// and then predicted; every rule is checked against GetObjectSize2 on the next
// kValidations objects of its class, and a class whose prediction ever disagrees is asked
// for every object from then on. GCSNAP_VERIFY_SIZES=1 checks every object (e2e test).
// Two facts of the runtime's answers shape the rules: no size is below kMinObjectSize (the
// empty string, 22 bytes by the formula, is reported as 24), and an array or string's size
// depends on its count alone, so a count seen kValidations times with one size has that size
// even before a second count has told the line (a cache's arrays often all have one length).

#include <cstdint>
#include <cstring>
#include <vector>

namespace gcsnap::shim {

/// What the runtime says about a class's size before any object is seen.
enum class SizeKind : uint8_t {
  Unknown,   ///< learn from the objects (tests; a class the runtime could not describe)
  Fixed,     ///< not an array or string: one size for every object
  Variable,  ///< array or string: base + count * component size
};

/// How the recorder gets a size for objects of one class.
enum class SizeRule : uint8_t {
  Learning,    ///< ask the runtime; learn from what it says
  Fixed,       ///< size = base
  Components,  ///< size = base + count * component
  Ask,         ///< ask the runtime for every object (a prediction failed, or no rule fits)
};

struct ClassInfo {
  uint64_t class_id = 0;   ///< 0: empty slot
  uint32_t type_id = 0;
  SizeRule rule = SizeRule::Learning;
  SizeKind kind = SizeKind::Unknown;
  uint16_t validations_left = 0;  ///< predictions still to be checked against the runtime
  uint64_t base = 0;              ///< Fixed: the size; Components: the base size
  uint64_t component = 0;         ///< Components: bytes per component
  uint64_t first_size = 0;        ///< Learning: the first object's size and count
  uint32_t first_count = 0;
  bool seen_one = false;
  uint16_t first_repeats = 0;     ///< Learning: objects since with first_count and first_size
  /// A delegate type: the offsets of System.Delegate's _methodPtr and _methodPtrAux (0: not one).
  uint32_t method_ptr_offset = 0, method_ptr_aux_offset = 0;
  uint8_t value_rule = 0;         ///< ValueRule (value_reader.hpp): what the walk reads of its objects
};

/// The component count of the object at OBJECT_ID (arrays, strings). Every object is at least
/// 24 bytes with its header at -8, so object + 8 .. + 12 is inside it whatever its class.
inline uint32_t component_count(uint64_t object_id) noexcept {
  uint32_t count;
  std::memcpy(&count, reinterpret_cast<const void*>(object_id + 8), sizeof(count));
  return count;
}

/// Open-addressing hash table ClassID -> ClassInfo. Lives across GCs (ClassIDs are stable
/// while their types are loaded, as the type ids already assume).
class ClassCache {
 public:
  static constexpr uint16_t kValidations = 16;
  /// The smallest size the runtime reports for any object (64-bit).
  static constexpr uint64_t kMinObjectSize = 24;

  /// The entry for CLASS_ID (non-zero), or nullptr when it is not in the table.
  ClassInfo* find(uint64_t class_id) noexcept {
    if (slots_.empty()) return nullptr;
    for (size_t i = slot_of(class_id);; i = (i + 1) & mask_) {
      ClassInfo& s = slots_[i];
      if (s.class_id == class_id) return &s;
      if (s.class_id == 0) return nullptr;
    }
  }
  /// Insert CLASS_ID (non-zero, not present). The pointer is valid until the next insert.
  ClassInfo* insert(uint64_t class_id, uint32_t type_id, SizeKind kind);
  size_t size() const noexcept { return count_; }

  /// Learn from, or check against, SIZE: what the runtime said for an object of INFO's class
  /// with COUNT at object + 8. Returns false when a prediction made earlier was wrong.
  static bool learn(ClassInfo& info, uint64_t size, uint32_t count) noexcept;
  /// The predicted size, or 0 when INFO's rule says to ask the runtime (or still check it).
  static uint64_t predict(const ClassInfo& info, uint32_t count) noexcept {
    switch (info.rule) {
      case SizeRule::Fixed: return info.base;
      case SizeRule::Components: {
        const uint64_t size = info.base + uint64_t{count} * info.component;
        return size < kMinObjectSize ? kMinObjectSize : size;
      }
      default: return 0;
    }
  }
  /// A Learning class's size for COUNT when that count has been seen with one size on
  /// kValidations objects; 0 otherwise (ask).
  static uint64_t predict_learning(const ClassInfo& info, uint32_t count) noexcept {
    return info.seen_one && count == info.first_count && info.first_repeats >= kValidations ? info.first_size : 0;
  }

 private:
  size_t slot_of(uint64_t class_id) const noexcept {
    // MethodTable pointers are 8-aligned and cluster: mix before masking.
    return static_cast<size_t>((class_id * 0x9E3779B97F4A7C15ull) >> 32) & mask_;
  }
  void grow();

  std::vector<ClassInfo> slots_;
  size_t mask_ = 0;
  size_t count_ = 0;
};

}  // namespace gcsnap::shim
