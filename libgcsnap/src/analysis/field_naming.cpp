// Naming one reference from its slot and its source type's layout (format-spec.md §6.12).
#include <algorithm>
#include <string>

#include "gcsnap/field_layout.hpp"

namespace gcsnap {
namespace {

// The field holding byte OFFSET: an exact reference field, or a slot inside an embedded struct.
bool name_field(std::span<const FieldRecord> fields, uint32_t offset, std::string& out) {
  auto it = std::upper_bound(fields.begin(), fields.end(), offset,
                             [](uint32_t v, const FieldRecord& f) { return v < f.offset; });
  if (it == fields.begin()) return false;
  // Several fields may share an offset (an empty struct before a reference): prefer the reference.
  auto best = std::prev(it);
  for (auto f = best; f->offset == best->offset; --f) {
    if (f->offset == offset && (f->flags & field_flags::kReference)) {
      out += f->name;
      return true;
    }
    if (f == fields.begin()) break;
  }
  // (At the struct's own offset too: its first field, a reference, is "Field+0".)
  if (best->offset <= offset && (best->flags & field_flags::kStruct)) {
    out += best->name;
    out += '+';
    out += std::to_string(offset - best->offset);
    return true;
  }
  return false;
}

}  // namespace

EdgeName name_slot(const TypeLayout* layout, uint32_t slot) {
  EdgeName name;
  if (!layout || slot == kUnknownSlot) return name;
  if (layout->kind == LayoutKind::Object) {
    if (name_field(layout->fields, slot, name.text)) name.kind = EdgeNameKind::Field;
    else name.text.clear();
    return name;
  }
  if (slot < layout->data_offset || layout->element_size == 0) return name;
  const uint32_t index = (slot - layout->data_offset) / layout->element_size;
  const uint32_t within = (slot - layout->data_offset) % layout->element_size;
  // Appended, not "[" + string: GCC 12 warns falsely (-Wrestrict) on that form in Release.
  name.text.assign("[").append(std::to_string(index)).append("]");
  if (layout->kind == LayoutKind::ReferenceArray) {
    if (within != 0) return EdgeName{};
    name.kind = EdgeNameKind::Element;
    return name;
  }
  // An array of structs: the element, then the field inside it when the struct is known.
  std::string field;
  if (name_field(layout->fields, within, field)) {
    name.text += '.';
    name.text += field;
  } else {
    name.text += '+';
    name.text += std::to_string(within);
  }
  name.kind = EdgeNameKind::Element;
  return name;
}

}  // namespace gcsnap
