// RuntimeInfoQueries::find_field: an instance field of a class or its parents by name, with
// how to read it, for the values of runtime and framework types (value_reader.hpp). The same
// non-triggering calls as the layouts (runtime_layouts.cpp): legal inside the GC.
#include <vector>

#include "field_signature.hpp"
#include "runtime_queries.hpp"

namespace gcsnap::shim {
namespace {

using namespace com;

// ECMA-335 II.23.2.4: FIELD (0x06), custom modifiers, then the type. Only what a count, a
// size or a reference needs is told apart.
ValueField::Kind field_kind(const uint8_t* sig, size_t size) {
  size_t k = 1;
  if (size < 2 || sig[0] != 0x06) return ValueField::Other;
  while (k < size && (sig[k] == 0x1f || sig[k] == 0x20)) {  // CMOD_REQD / CMOD_OPT + a compressed token
    ++k;
    if (k >= size) return ValueField::Other;
    k += (sig[k] & 0x80) == 0 ? 1 : (sig[k] & 0xC0) == 0x80 ? 2 : 4;
  }
  if (k >= size) return ValueField::Other;
  switch (sig[k]) {
    case 0x08: case 0x09: return ValueField::Int32;   // I4, U4
    case 0x0a: case 0x0b: return ValueField::Int64;   // I8, U8
    case 0x0e: case 0x12: case 0x14: case 0x1c: case 0x1d: return ValueField::Reference;
    case 0x11: return ValueField::Struct;  // VALUETYPE: read at a known offset inside it
    case 0x15:  // GENERICINST: a class instantiation is a reference; a value type may be long?
      return k + 1 < size && sig[k + 1] == 0x12 ? ValueField::Reference : ValueField::NullableInt64;
    default: return ValueField::Other;
  }
}

}  // namespace

bool RuntimeInfoQueries::find_field(uint64_t class_id, const char* name, ValueField& out) {
  std::vector<DeclaredField> fields;
  const ClassWalk walk = walk_up_classes(class_id, false, [&](const ClassLevel& c) {
    if (!declared_fields(c.class_id, c.metadata, fields)) return ClassWalk::Failed;
    for (const DeclaredField& field : fields) {
      if ((field.attributes & field_attributes::kStatic) || field.name != name) continue;
      out.offset = field.offset;  // from the object's start, as the layouts' (runtime_layouts.cpp)
      out.kind = field_kind(field.sig, field.sig_size);
      return out.kind != ValueField::Other ? ClassWalk::Found : ClassWalk::Failed;
    }
    return ClassWalk::Parent;
  });
  return walk == ClassWalk::Found;
}

}  // namespace gcsnap::shim
