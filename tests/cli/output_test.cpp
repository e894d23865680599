// The shared CLI output helpers (table/json/csv) and GC selection parsing.
#include <catch2/catch.hpp>

#include "cli_error.hpp"
#include "gc_select.hpp"
#include "output.hpp"

namespace gcsnap::cli {

namespace {

Table sample() {
  Table t("things", "Things");
  t.add_column("name", "NAME").add_column("count", "N", ColumnKind::Count);
  t.add_column("bytes", "BYTES", ColumnKind::Bytes).add_column("delta", "ΔB", ColumnKind::DeltaBytes);
  t.add_column("address", "ADDR", ColumnKind::Address);
  t.add_row({"Dictionary<String, Int32>", uint64_t{3}, uint64_t{1536}, int64_t{-512}, uint64_t{0x7f00}});
  t.add_row({"say \"hi\"\n", uint64_t{12}, uint64_t{10}, int64_t{0}, Cell()});
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

}  // namespace gcsnap::cli
