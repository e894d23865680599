// The shared CLI output helpers (table/json/csv) and GC selection parsing.
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "errors/cli_error.hpp"
#include "loading/gc_select.hpp"
#include "output/output.hpp"
#include "output/short_names.hpp"
#include "commands/folded_hops_text.hpp"
#include "gcsnap/path_fold.hpp"

namespace gcsnap::cli {

namespace {

std::vector<Cell> sample_row(size_t i) {
  if (i == 0) return {"Dictionary<String, Int32>", uint64_t{3}, uint64_t{1536}, int64_t{-512}, uint64_t{0x7f00}};
  return {"say \"hi\"\n", uint64_t{12}, uint64_t{10}, int64_t{0}, Cell()};
}

Table sample_columns() {
  Table t("things", "Things");
  t.add_column("name", "NAME").add_column("count", "N", ColumnKind::Count);
  t.add_column("bytes", "BYTES", ColumnKind::Bytes).add_column("delta", "ΔB", ColumnKind::DeltaBytes);
  t.add_column("address", "ADDR", ColumnKind::Address);
  return t;
}

Table sample() {
  Table t = sample_columns();
  t.add_row(sample_row(0));
  t.add_row(sample_row(1));
  return t;
}

}  // namespace

TEST_CASE("byte sizes and addresses are formatted for people", "[output]") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(1023) == "1023 B");
  CHECK(format_bytes(1024) == "1.0 KiB");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(1024 * 1024 - 1) == "1.0 MiB");
  CHECK(format_bytes(uint64_t{5} << 30) == "5.0 GiB");
  CHECK(format_delta_bytes(-1536) == "-1.5 KiB");
  CHECK(format_delta_bytes(12) == "+12 B");
  CHECK(format_delta_bytes(0) == "0 B");
  CHECK(format_address(0x7F00ab) == "0x7f00ab");
}

TEST_CASE("json escapes and keeps keys in column order", "[output]") {
  CHECK(json_escape("a\"b\\c\n\x01") == "a\\\"b\\\\c\\n\\u0001");
  const std::string json = render_table(sample(), Format::Json);
  CHECK(json ==
        "[\n"
        "  {\"name\": \"Dictionary<String, Int32>\", \"count\": 3, \"bytes\": 1536, \"delta\": -512, \"address\": \"0x7f00\"},\n"
        "  {\"name\": \"say \\\"hi\\\"\\n\", \"count\": 12, \"bytes\": 10, \"delta\": 0, \"address\": null}\n"
        "]\n");
  Table empty("none", "");
  empty.add_column("x", "X");
  CHECK(render_table(empty, Format::Json) == "[]\n");
  Report two;
  two.tables.push_back(sample());
  two.tables.push_back(std::move(empty));
  const std::string doc = render_report(two, Format::Json);
  CHECK(doc.rfind("{\n  \"things\": [\n    {", 0) == 0);
  CHECK(doc.find("\"none\": []") != std::string::npos);
}

TEST_CASE("rows made on demand print as stored rows do, in every format", "[output]") {
  // The first row stored, the second made by a source (as dominators --top 0 makes its rows).
  Table made = sample_columns();
  made.add_row(sample_row(0));
  size_t calls = 0;
  made.set_row_source(1, [&calls](size_t i) {
    ++calls;
    return sample_row(i + 1);
  });
  CHECK(made.row_count() == 2);
  for (Format f : {Format::Table, Format::Json, Format::Csv}) CHECK(render_table(made, f) == render_table(sample(), f));
  Report two;
  two.tables.push_back(sample());
  two.tables.push_back(made);
  Report stored;
  stored.tables.push_back(sample());
  stored.tables.push_back(sample());
  for (Format f : {Format::Table, Format::Json, Format::Csv})
    CHECK(render_report(two, f) == render_report(stored, f));
  CHECK(calls == 6);  // made once per rendering: three tables alone, three reports
  Table wrong("w", "");
  wrong.add_column("a", "A").add_column("b", "B");
  wrong.set_row_source(1, [](size_t) { return std::vector<Cell>{Cell("only one")}; });
  CHECK_THROWS_AS(render_table(wrong, Format::Csv), std::logic_error);
}

TEST_CASE("csv follows RFC 4180", "[output]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(render_table(sample(), Format::Csv) ==
        "name,count,bytes,delta,address\r\n"
        "\"Dictionary<String, Int32>\",3,1536,-512,0x7f00\r\n"
        "\"say \"\"hi\"\"\n\",12,10,0,\r\n");
}

TEST_CASE("tables align columns by display width", "[output]") {
  Table t("t", "");
  t.add_column("name", "NAME").add_column("delta", "ΔBYTES", ColumnKind::DeltaBytes);
  t.add_row({"a", int64_t{2048}});
  t.add_row({"longer", int64_t{-1}});
  CHECK(render_table(t, Format::Table) ==
        "NAME      ΔBYTES\n"
        "a       +2.0 KiB\n"
        "longer      -1 B\n");
}

TEST_CASE("formats and GC specs parse", "[output][gc]") {
  CHECK(parse_format("json") == Format::Json);
  CHECK_THROWS_AS(parse_format("xml"), CliError);
  auto spec = parse_gc_spec("/no/such/dir/app.snap:12");
  CHECK(spec.file == "/no/such/dir/app.snap");
  CHECK(spec.gc == 12u);
  CHECK(!parse_gc_spec("app.snap").gc);
  CHECK(!parse_gc_spec("app.snap:").gc);
  CHECK(!parse_gc_spec("c:app.snap").gc);
  CHECK(parse_gc_spec("c:app.snap").file == "c:app.snap");
  CHECK(describe_gc_numbers({1, 2, 3, 5, 7, 8}) == "1-3, 5, 7-8");
  CHECK(describe_gc_numbers({1, 3, 5, 7}, 2) == "1, 3, ... (4 in all)");
}

TEST_CASE("addresses parse as hex with or without 0x, never as decimal", "[output][address]") {
  CHECK(parse_address("0x1500") == 0x1500u);
  CHECK(parse_address("1500") == 0x1500u);  // the same object as 0x1500, in every command
  CHECK(parse_address("0X7F3A10002000") == 0x7f3a10002000u);
  CHECK(parse_address("7f3a10002000") == 0x7f3a10002000u);
  CHECK(parse_address("ffffffffffffffff") == UINT64_MAX);
  CHECK(parse_address("0") == 0u);
  for (const char* bad : {"", "0x", "12g4", "-1", " 1500", "1500 ", "+1500", "0x0x1", "10000000000000000", "1.5"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_address(bad), CliError);
  }
  try {
    parse_address("12g4");
  } catch (const CliError& e) {
    CHECK(e.exit_code() == kExitUsage);
    CHECK(std::string(e.what()).find("'12g4' is not an address") != std::string::npos);
  }
}

TEST_CASE("shares are numbers and flags booleans outside tables", "[output][json]") {
  Table t("t", "");
  t.add_column("share", "SHARE", ColumnKind::Share).add_column("compacted", "COMPACTED", ColumnKind::Boolean);
  t.add_row({Cell::real(0.841), Cell::boolean(true)});
  t.add_row({Cell(), Cell::boolean(false)});
  CHECK(render_table(t, Format::Json) ==
        "[\n  {\"share\": 0.841, \"compacted\": true},\n  {\"share\": null, \"compacted\": false}\n]\n");
  CHECK(render_table(t, Format::Csv) == "share,compacted\r\n0.841,true\r\n,false\r\n");
  CHECK(render_table(t, Format::Table) ==
        "SHARE  COMPACTED\n"
        "84.1%  yes\n"
        "    -  no\n");
}

TEST_CASE("table-only and machine-only columns", "[output][json]") {
  Table t("t", "");
  t.add_column("share", "SHARE", ColumnKind::Text, Shown::TableOnly);
  t.add_column("same", "", ColumnKind::Count, Shown::MachineOnly);
  t.add_column("examined", "", ColumnKind::Count, Shown::MachineOnly);
  t.add_row({"2/3", uint64_t{2}, uint64_t{3}});
  CHECK(render_table(t, Format::Table) == "SHARE\n2/3\n");
  CHECK(render_table(t, Format::Json) == "[\n  {\"same\": 2, \"examined\": 3}\n]\n");
  CHECK(render_table(t, Format::Csv) == "same,examined\r\n2,3\r\n");
}

TEST_CASE("a report can print one of its tables alone", "[output]") {
  Report report;
  report.tables.push_back(sample());
  Table other("other", "Other");
  other.add_column("x", "X", ColumnKind::Count);
  other.add_row({uint64_t{7}});
  report.tables.push_back(std::move(other));
  RenderOptions only;
  only.table = "other";
  CHECK(render_report(report, Format::Csv, only) == "x\r\n7\r\n");
  CHECK(render_report(report, Format::Json, only) == "[\n  {\"x\": 7}\n]\n");
  only.table = "nope";
  try {
    (void)render_report(report, Format::Csv, only);
    FAIL("an unknown table name must be an error");
  } catch (const CliError& e) {
    CHECK(e.exit_code() == kExitUsage);
    CHECK(std::string(e.what()) == "no table 'nope' in this output (tables: things, other)");
  }
}

TEST_CASE("a folded path shows a repeated block of hops as one group", "[output][fold]") {
  auto text = [](std::vector<uint32_t> keys) {
    const std::vector<std::string> names = {"Root", "Object[]", "EventHandler", "Node", "Item"};
    auto folded = fold_repeats(keys).value();
    return folded_hops_text(folded, [&](size_t h) { return names[keys[h]]; }, [](size_t) { return std::string("->"); });
  };
  // An event's invocation lists, alternating: one block of two hops, twice.
  CHECK(text({0, 1, 2, 1, 2, 4}) == " -> Root -> (Object[] -> EventHandler) ×2 -> Item");
  // Two runs of one type each: each with its own count.
  CHECK(text({0, 3, 3, 2, 2, 4}) == " -> Root -> Node ×2 -> EventHandler ×2 -> Item");
  CHECK(text({0, 3, 3, 3, 4}) == " -> Root -> Node ×3 -> Item");
  CHECK(text({0, 1, 2, 3, 1, 2, 3, 1, 2, 3}) == " -> Root -> (Object[] -> EventHandler -> Node) ×3");
  CHECK(text({0, 4}) == " -> Root -> Item");
}

TEST_CASE("a retention path too wide is cut in its middle, its root kept", "[output][width]") {
  const std::string path = "[static] App.Registry.s_items -> List<Item> -> Item[] -> Node -> Node -> Node -> Item";
  // Wide enough: as it is (after the namespace levels, none here).
  CHECK(shorten_type_name(path, 200) == path);
  const std::string cut = shorten_type_name(path, 60);
  CHECK(display_width(cut) <= 60);
  // The most abbreviated form (no namespaces), then its middle hops.
  CHECK(cut == "[static] s_items -> \u2026 -> Node -> Node -> Node -> Item");
  // Not even the last hop fits after the root: the start and the end around the ellipsis.
  const std::string tight = shorten_type_name(path, 20);
  CHECK(display_width(tight) == 20);
  CHECK(tight.rfind("[static]", 0) == 0);
  CHECK(tight.substr(tight.size() - 4) == "Item");
  // A type name (no path) still keeps its end.
  CHECK(shorten_type_name("Namespace.Outer.VeryLongTypeNameThatGoesOn", 12).rfind("\u2026", 0) == 0);
}

TEST_CASE("type names shorten by namespaces first, then keep their end", "[output][width]") {
  const std::string dict = "System.Collections.Generic.Dictionary<System.String, System.Object>+Entry[]";
  CHECK(abbreviate_type_name(dict, 1) == "S.C.G.Dictionary<System.String, System.Object>+Entry[]");
  CHECK(abbreviate_type_name(dict, 2) == "S.C.G.Dictionary<S.String, S.Object>+Entry[]");
  CHECK(abbreviate_type_name(dict, 3) == "S.C.G.Dictionary<String, Object>+Entry[]");
  CHECK(shorten_type_name(dict, 200) == dict);
  CHECK(shorten_type_name(dict, 62) == "S.C.G.Dictionary<System.String, System.Object>+Entry[]");
  CHECK(shorten_type_name(dict, 45) == "S.C.G.Dictionary<S.String, S.Object>+Entry[]");
  CHECK(shorten_type_name(dict, 40) == "S.C.G.Dictionary<String, Object>+Entry[]");
  // Then the outer namespace goes, then generic arguments are elided; the end is cut last.
  CHECK(abbreviate_type_name(dict, 4) == "Dictionary<String, Object>+Entry[]");
  CHECK(shorten_type_name(dict, 34) == "Dictionary<String, Object>+Entry[]");
  CHECK(shorten_type_name(dict, 33) == "Dictionary<\u2026, Object>+Entry[]");
  CHECK(shorten_type_name(dict, 21) == "Dictionary<\u2026>+Entry[]");
  CHECK(shorten_type_name(dict, 20) == "\u2026ctionary<\u2026>+Entry[]");
  CHECK(display_width(shorten_type_name(dict, 20)) == 20);
  // A retention path: every type in it shrinks, the arrows stay.
  CHECK(abbreviate_type_name("[handle] -> System.Object[] -> App.Cache -[ConditionalWeakTable]-> App.Item", 1) ==
        "[handle] -> S.Object[] -> A.Cache -[ConditionalWeakTable]-> A.Item");
  CHECK(abbreviate_type_name("App.Program+<>c__DisplayClass0_0", 3) == "A.Program+<>c__DisplayClass0_0");
}

TEST_CASE("generic arguments are elided deepest first, the outer name stays", "[output][width]") {
  const std::string nested =
      "System.Collections.Generic.Dictionary<System.String, System.Collections.Generic.List<Contoso.Shipping.StockItem>>";
  CHECK(shorten_type_name(nested, 35) == "Dictionary<String, List<StockItem>>");
  CHECK(shorten_type_name(nested, 30) == "Dictionary<String, List<\u2026>>");
  CHECK(shorten_type_name(nested, 20) == "Dictionary<\u2026>");
  // An array's owner as dominators' HELD BY names it: both names keep their readable end.
  const std::string held = "System.Collections.Generic.List<Gcsnap.Sample.LeakyItem> (via Gcsnap.Sample.LeakyItem[])";
  CHECK(shorten_type_name(held, 40) == "List<LeakyItem> (via LeakyItem[])");
  CHECK(shorten_type_name(held, 30) == "List<\u2026> (via LeakyItem[])");
  // Angle brackets that open no argument list are left alone.
  CHECK(shorten_type_name("App.Program+<>c__DisplayClass0_0+<Run>d__1", 34) == "\u2026am+<>c__DisplayClass0_0+<Run>d__1");
  // A path's arrows are not brackets.
  CHECK(shorten_type_name("[handle] -> App.Holder<App.Item> -> App.Item[]", 32) == "[handle] -> Holder<\u2026> -> Item[]");
}

TEST_CASE("shortened names stay distinct", "[output][width]") {
  const std::vector<std::string> names = {"System.Collections.Generic.List<Alpha.Item>",
                                          "System.Collections.Generic.List<Beta.Item>",
                                          "System.Collections.Generic.List<Beta.Item>", "Zeta.Long.Namespace.Thing"};
  const auto out = shorten_type_names(names, 20);
  // The two List<...Item> would both read "S.C.G.List<Item>": they keep their arguments'
  // namespaces as initials.
  CHECK(out[0] != out[1]);
  CHECK(out[1] == out[2]);
  CHECK(out[0] == "S.C.G.List<A.Item>");
  CHECK(out[1] == "S.C.G.List<B.Item>");
  CHECK(out[3] == "Z.L.N.Thing");
}

TEST_CASE("text tables fit the width given, pipes get full names", "[output][width]") {
  Table t("t", "");
  t.add_column("type", "TYPE", ColumnKind::TypeName).add_column("bytes", "BYTES", ColumnKind::Bytes);
  t.add_row({"System.Collections.Generic.Dictionary<System.String, Gcsnap.Sample.LeakyItem>", uint64_t{4096}});
  t.add_row({"System.Collections.Generic.Dictionary<System.String, Gcsnap.Sample.Other>", uint64_t{80}});
  t.add_row({"System.Byte[]", uint64_t{1000}});
  const std::string full = render_table(t, Format::Table, 0);
  CHECK(full.find("System.Collections.Generic.Dictionary<System.String, Gcsnap.Sample.LeakyItem>") != std::string::npos);
  const std::string narrow = render_table(t, Format::Table, 50);
  INFO(narrow);
  size_t start = 0;
  while (start < narrow.size()) {
    const size_t end = narrow.find('\n', start);
    CHECK(display_width(std::string_view(narrow).substr(start, end - start)) <= 50);
    start = end + 1;
  }
  CHECK(narrow.find("S.C.G.Dictionary<S.String, G.S.LeakyItem>") != std::string::npos);
  CHECK(narrow.find("S.C.G.Dictionary<S.String, G.S.Other>") != std::string::npos);
  CHECK(narrow.find("System.Byte[]") != std::string::npos);
  // Numbers are never cut: at a width nothing fits, names stop at their floor.
  const std::string tiny = render_table(t, Format::Table, 10);
  CHECK(tiny.find("4.0 KiB") != std::string::npos);
}

TEST_CASE("names that differ inside their arguments are cut, not shown in full", "[output][width]") {
  const std::vector<std::string> names = {
      "System.Collections.Generic.Dictionary<System.String, System.Collections.Generic.List<Contoso.Shipping.StockItem>>",
      "System.Collections.Generic.Dictionary<System.String, System.Collections.Generic.List<Contoso.Inventory.StockItem>>"};
  const auto out = shorten_type_names(names, 30);
  INFO(out[0] << " / " << out[1]);
  CHECK(out[0] != out[1]);
  CHECK(display_width(out[0]) == 30);
  CHECK(display_width(out[1]) == 30);
  CHECK(out[0].ends_with("<C.S.StockItem>>"));
  CHECK(out[1].ends_with("<C.I.StockItem>>"));
  // Names that only their start tells apart keep their full form.
  const std::vector<std::string> same_end = {"Alpha.Very.Long.Namespace.Name.Holder<Item>",
                                             "Beta.Very.Long.Namespace.Name.Holder<Item>"};
  const auto full = shorten_type_names(same_end, 12);
  CHECK(full[0] == same_end[0]);
  CHECK(full[1] == same_end[1]);
}

TEST_CASE("a narrow table leaves out its optional columns and says so", "[output][width]") {
  Table t("t", "");
  t.add_column("type", "TYPE", ColumnKind::TypeName).add_column("retained", "RETAINED", ColumnKind::Bytes);
  t.add_column("depth", "DEPTH", ColumnKind::Count).drop_when_narrow(2);
  t.add_column("size", "SIZE", ColumnKind::Bytes).drop_when_narrow(1);
  t.add_column("holder", "HOLDER TYPE", ColumnKind::TypeName);
  t.add_row({"Gcsnap.Sample.Orders.OrderLineCollection", uint64_t{4096}, uint64_t{12}, uint64_t{64},
             "System.Collections.Generic.Dictionary<System.Int32, Gcsnap.Sample.Orders.Order>"});
  const std::string full = render_table(t, Format::Table, 0);
  CHECK(full.find("DEPTH") != std::string::npos);
  CHECK(full.find("left out") == std::string::npos);
  // Wide enough for everything with readable names: nothing dropped.
  CHECK(render_table(t, Format::Table, 110).find("left out") == std::string::npos);
  // The highest rank goes first: at 85 columns leaving out DEPTH is enough.
  const std::string medium = render_table(t, Format::Table, 85);
  CHECK(medium.substr(0, medium.find('\n')).find("DEPTH") == std::string::npos);
  CHECK(medium.substr(0, medium.find('\n')).find("SIZE") != std::string::npos);
  CHECK(medium.find("(DEPTH left out to fit 85 columns") != std::string::npos);
  const std::string narrow = render_table(t, Format::Table, 80);
  INFO(narrow);
  CHECK(narrow.substr(0, narrow.find('\n')).find("SIZE") == std::string::npos);
  CHECK(narrow.find("(DEPTH, SIZE left out to fit 80 columns") != std::string::npos);
  CHECK(narrow.find("4.0 KiB") != std::string::npos);
  size_t start = 0;
  const size_t note = narrow.find("  (DEPTH");
  while (start < note) {
    const size_t end = narrow.find('\n', start);
    CHECK(display_width(std::string_view(narrow).substr(start, end - start)) <= 80);
    start = end + 1;
  }
  const std::string tiny = render_table(t, Format::Table, 50);
  CHECK(tiny.find("(DEPTH, SIZE left out to fit 50 columns; --wide shows every column)") != std::string::npos);
  // Machine formats never drop a column.
  CHECK(render_table(t, Format::Csv, 50).find("depth") != std::string::npos);
}

}  // namespace gcsnap::cli
