#pragma once
// Assembling a type name the way the runtime's own tools (ClrMD, SOS) write it, from what
// metadata and ICorProfilerInfo give: pure string work, so it is unit-tested without a runtime.

#include <span>
#include <string>
#include <string_view>

namespace gcsnap::shim {

/// CHAIN: the metadata names of a type and its enclosing types, outermost first, each as
/// GetTypeDefProps gives it ("System.Collections.Generic.Dictionary`2", "Entry"); ARGS: the
/// type's generic arguments, already named, in order (GetClassIDInfo2 gives all of them, the
/// enclosing types' first). Each name takes as many arguments as its "`N" suffix says, so
/// `Outer`1`, `Inner`1` with (A, B) gives "Outer<A>+Inner<B>", and `Dictionary`2`, `Entry`
/// with (K, V) gives "Dictionary<K, V>+Entry" (ClrMD separates arguments with ", "). Arguments left over (names without suffixes that
/// still take arguments) go to the innermost name.
std::string assemble_type_name(std::span<const std::string> chain, std::span<const std::string> args);

/// METHOD as a stack frame names it: with ARGS, a generic method's type arguments already named,
/// "Fill<System.Int32, System.String>" (the separator of assemble_type_name); METHOD alone
/// when ARGS is empty.
std::string assemble_method_name(std::string_view method, std::span<const std::string> args);

/// Return the "`N" arity suffix of a metadata name (0 when there is none).
unsigned arity_of(std::string_view metadata_name) noexcept;

}  // namespace gcsnap::shim
