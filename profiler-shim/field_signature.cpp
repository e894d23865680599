#include "field_signature.hpp"

#include "gcsnap/field_layout.hpp"

namespace gcsnap::shim {

uint8_t field_signature_flags(const uint8_t* sig, size_t size) noexcept {
  // FIELD (0x06), custom modifiers, then the type.
  if (!sig || size < 2 || sig[0] != 0x06) return 0;
  size_t i = 1;
  while (i < size && (sig[i] == 0x1f || sig[i] == 0x20)) {  // CMOD_REQD / CMOD_OPT + TypeDefOrRef
    ++i;
    if (i >= size) return 0;
    i += (sig[i] & 0x80) == 0 ? 1 : (sig[i] & 0xC0) == 0x80 ? 2 : 4;  // compressed token length
  }
  if (i >= size) return 0;
  switch (sig[i]) {
    case 0x0e: case 0x12: case 0x13: case 0x14: case 0x1c: case 0x1d: case 0x1e:
      return field_flags::kReference;  // string, class, var, array, object, szarray, mvar
    case 0x11: return field_flags::kStruct;  // valuetype
    case 0x15:  // generic instantiation of a class or of a struct
      return i + 1 < size && sig[i + 1] == 0x11 ? field_flags::kStruct : field_flags::kReference;
    default: return 0;  // primitives, pointers
  }
}

bool is_reference_static(uint32_t attributes, const uint8_t* sig, size_t size) noexcept {
  using namespace field_attributes;
  if (!(attributes & kStatic) || (attributes & (kLiteral | kHasFieldRva))) return false;
  return field_signature_flags(sig, size) == field_flags::kReference;
}

}  // namespace gcsnap::shim
