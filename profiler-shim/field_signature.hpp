#pragma once
// Reading ECMA-335 field metadata (attributes and signature blobs): which fields hold a
// reference. Pure byte work, shared by the layouts (runtime_layouts.cpp) and the statics
// (static_slots.cpp), and unit-tested without a runtime.

#include <cstddef>
#include <cstdint>

namespace gcsnap::shim {

/// FieldAttributes bits (ECMA-335 II.23.1.5) the shim looks at.
namespace field_attributes {
inline constexpr uint32_t kStatic = 0x10;       ///< fdStatic
inline constexpr uint32_t kLiteral = 0x40;      ///< fdLiteral: a constant, no storage
inline constexpr uint32_t kHasFieldRva = 0x100; ///< fdHasFieldRVA: data in the image, no reference
}  // namespace field_attributes

/// field_flags bits (gcsnap/field_layout.hpp) for a field of signature SIG (II.23.2.4):
/// kReference for a class, string, object, array or generic parameter, kStruct for a value
/// type, 0 for primitives, pointers and anything unreadable.
uint8_t field_signature_flags(const uint8_t* sig, size_t size) noexcept;

/// The generic parameter of the declaring class a field of signature SIG has as its type
/// (VAR N: `T field`), or -1 for any other type. Such a field is a reference or an embedded
/// struct depending on the instantiation (the state machine of an async method's box).
int field_signature_type_parameter(const uint8_t* sig, size_t size) noexcept;

/// Whether a field with ATTRIBUTES and SIG is a static whose storage holds a reference
/// (the statics that format-spec.md §6.14 can name): static, not a literal, not an RVA
/// field, and a reference by signature. Struct statics are boxed by the runtime and left out.
bool is_reference_static(uint32_t attributes, const uint8_t* sig, size_t size) noexcept;

}  // namespace gcsnap::shim
