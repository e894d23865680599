#include "field_signature.hpp"

#include "gcsnap/field_layout.hpp"

namespace gcsnap::shim {

namespace {

// Where the type starts in a field signature: after FIELD (0x06) and any custom modifiers;
// SIZE when the blob is not a readable field signature.
size_t type_start(const uint8_t* sig, size_t size) noexcept {
  if (!sig || size < 2 || sig[0] != 0x06) return size;
  size_t i = 1;
  while (i < size && (sig[i] == 0x1f || sig[i] == 0x20)) {  // CMOD_REQD / CMOD_OPT + TypeDefOrRef
    ++i;
    if (i >= size) return size;
    i += (sig[i] & 0x80) == 0 ? 1 : (sig[i] & 0xC0) == 0x80 ? 2 : 4;  // compressed token length
  }
  return i < size ? i : size;
}

}  // namespace

int field_signature_type_parameter(const uint8_t* sig, size_t size) noexcept {
  const size_t i = type_start(sig, size);
  if (i + 1 >= size || sig[i] != 0x13) return -1;  // VAR, then a compressed number (II.23.2)
  const uint8_t b = sig[i + 1];
  if ((b & 0x80) == 0) return b;
  if ((b & 0xC0) == 0x80 && i + 2 < size) return ((b & 0x3F) << 8) | sig[i + 2];
  return -1;  // four-byte numbers: no class has that many generic parameters
}

uint8_t field_signature_flags(const uint8_t* sig, size_t size) noexcept {
  if (!sig) return 0;
  const size_t i = type_start(sig, size);
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
