#pragma once
/// Field names on references: where each type keeps its references (format-spec.md §6.12),
/// the slot of each reference inside its object (§6.13), where the statics live (§6.14), and
/// the text that names one reference ("_items", "[17]", "[17].value").

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace gcsnap {

/// A reference's slot that was not recorded (or does not fit 32 bits).
inline constexpr uint32_t kUnknownSlot = 0xFFFFFFFFu;

/// How a type's references are laid out (format-spec.md §6.12, column 2).
enum class LayoutKind : uint8_t {
  Object = 0,          ///< fields at offsets from the object's start
  ReferenceArray = 1,  ///< every element is a reference
  StructArray = 2,     ///< elements are structs; fields are offsets inside one element
};

namespace field_flags {
inline constexpr uint8_t kReference = 0x1;  ///< holds a reference (or a generic parameter that may)
inline constexpr uint8_t kStruct = 0x2;     ///< an embedded struct that may hold references
inline constexpr uint8_t kAll = 0x3;
}  // namespace field_flags

/// One field of a layout. Views point into storage owned by the NameTable (or the caller).
struct FieldRecord {
  uint32_t offset = 0;
  uint8_t flags = 0;  ///< field_flags bits
  std::string_view name;
};

/// The layout of one type: its fields sorted by offset, base types' fields included.
struct TypeLayout {
  uint32_t type_id = 0;
  LayoutKind kind = LayoutKind::Object;
  uint32_t data_offset = 0;   ///< arrays: offset of element 0 from the object's start
  uint32_t element_size = 0;  ///< arrays: bytes per element (>= 1)
  std::span<const FieldRecord> fields;
};

/// Where one static field's reference is stored at one GC (format-spec.md §6.14).
struct StaticSlot {
  uint64_t address = 0;
  std::string_view name;  ///< "Namespace.Class.Field"
};

/// How a reference was named.
enum class EdgeNameKind : uint8_t {
  Field = 0,          ///< "_items", or "_pair+8" inside an embedded struct
  Element = 1,        ///< "[17]", or "[17].value" in an array of structs
  Unknown = 2,        ///< the slot or the layout was not recorded, or they disagree
};

struct EdgeName {
  EdgeNameKind kind = EdgeNameKind::Unknown;
  std::string text;  ///< empty when Unknown
};

/// Name the reference stored at byte offset SLOT of an object of layout LAYOUT (null: no
/// layout recorded). Never guesses: a slot that matches no field, or falls in an array's
/// header, is Unknown.
EdgeName name_slot(const TypeLayout* layout, uint32_t slot);

}  // namespace gcsnap
