#pragma once
// Finding where each reference the heap walk reports sits inside its object: the slot that
// names the field or array element (format-spec.md §6.13). The runtime reports references in
// the order its GC descriptor visits them, which is ascending offset for ordinary objects and
// arrays; the search keeps a cursor so a whole object costs one pass over its memory.

#include <cstddef>
#include <cstdint>
#include <span>

namespace gcsnap::shim {

/// For each reference (a non-null object address), store in slots[i] the byte offset of the
/// pointer-aligned word of WORDS (the object's memory, word 0 = its MethodTable pointer) that
/// holds it, or 0xFFFFFFFF when no word does (a reported reference that is no field, e.g. a
/// collectible type's loader allocator). Searches forward from the last match; a miss retries
/// from the start once, so an out-of-order report costs one more pass, not a wrong slot.
/// Word 0 is never a slot. Returns the number of references found.
size_t find_reference_slots(std::span<const uint64_t> words, std::span<const uint64_t> references, uint32_t* slots);

}  // namespace gcsnap::shim
