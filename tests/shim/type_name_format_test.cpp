// Type names in the runtime tools' form (ClrMD, as read from a .NET 10 dump by the oracle test):
// generic arguments go to the name of the nesting chain that declares them, separated by ", ".
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "type_name_format.hpp"

using gcsnap::shim::arity_of;
using gcsnap::shim::assemble_type_name;

namespace {

std::string name(std::vector<std::string> chain, std::vector<std::string> args) {
  return assemble_type_name(chain, args);
}

}  // namespace

TEST_CASE("arity suffixes are read from metadata names", "[shim][names]") {
  CHECK(arity_of("List`1") == 1);
  CHECK(arity_of("System.Collections.Generic.Dictionary`2") == 2);
  CHECK(arity_of("Entry") == 0);
  CHECK(arity_of("Odd`") == 0);
  CHECK(arity_of("Odd`x") == 0);
  CHECK(arity_of("<Run>d__3`1") == 1);
}

TEST_CASE("plain and generic types", "[shim][names]") {
  CHECK(name({"System.String"}, {}) == "System.String");
  CHECK(name({"System.Collections.Generic.List`1"}, {"System.Int32"}) == "System.Collections.Generic.List<System.Int32>");
  CHECK(name({"Zoo.Outer", "Inner"}, {}) == "Zoo.Outer+Inner");
}

TEST_CASE("a nested type inside a generic type takes the arguments after its enclosing type", "[shim][names]") {
  CHECK(name({"System.Collections.Concurrent.ConcurrentDictionary`2", "Node"},
             {"System.Int32", "System.Collections.Generic.List<Zoo.Point>"}) ==
        "System.Collections.Concurrent.ConcurrentDictionary<System.Int32, System.Collections.Generic.List<Zoo.Point>>+Node");
  CHECK(name({"System.Collections.Generic.Dictionary`2", "Entry"}, {"System.String", "System.Int32"}) ==
        "System.Collections.Generic.Dictionary<System.String, System.Int32>+Entry");
  CHECK(name({"Zoo.Outer`1", "Inner`1"}, {"A", "B"}) == "Zoo.Outer<A>+Inner<B>");
  CHECK(name({"Zoo.Outer`2", "Middle", "Inner`1"}, {"A", "B", "C"}) == "Zoo.Outer<A, B>+Middle+Inner<C>");
}

TEST_CASE("arguments that are themselves nested generics stay whole", "[shim][names]") {
  const std::string arg = name({"Zoo.Outer`1", "Inner`1"}, {"System.Int32", "System.String"});
  CHECK(name({"System.Collections.Generic.List`1"}, {arg}) ==
        "System.Collections.Generic.List<Zoo.Outer<System.Int32>+Inner<System.String>>");
}

TEST_CASE("compiler-generated nested names without suffixes, and counts that disagree", "[shim][names]") {
  // A closure class inside a generic class copies the class's type parameter but has no suffix.
  CHECK(name({"Zoo.Box`1", "<>c__DisplayClass2_0"}, {"System.Int32"}) == "Zoo.Box<System.Int32>+<>c__DisplayClass2_0");
  // More arguments than suffixes announce: the rest go to the innermost name.
  CHECK(name({"Zoo.Outer", "Inner"}, {"A"}) == "Zoo.Outer+Inner<A>");
  // Fewer arguments than announced (unresolved): no empty brackets, nothing invented.
  CHECK(name({"Zoo.Outer`1", "Inner`1"}, {"A"}) == "Zoo.Outer<A>+Inner");
  CHECK(name({"Zoo.Outer`1"}, {}) == "Zoo.Outer");
}

TEST_CASE("a generic method takes its own arguments after its name", "[shim][names]") {
  using gcsnap::shim::assemble_method_name;
  CHECK(assemble_method_name("Add", {}) == "Add");
  const std::vector<std::string> one{"System.Int32"};
  CHECK(assemble_method_name("Fill", one) == "Fill<System.Int32>");
  const std::vector<std::string> two{"System.String", "System.Collections.Generic.List<Zoo.Point>"};
  CHECK(assemble_method_name("Map", two) == "Map<System.String, System.Collections.Generic.List<Zoo.Point>>");
}
