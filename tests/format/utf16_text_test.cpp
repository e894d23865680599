// The one UTF-8 <-> UTF-16 conversion (libgcsnap/utf16_text): what the Windows parts of the
// library, the CLI and the shim hand to the system, and the diagnostics IPC's strings. Text
// that is not UTF-8 is refused, never turned into other names.

#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "gcsnap_utf16_text.hpp"

using gcsnap::text::utf16_from_utf8;
using gcsnap::text::utf8_from_utf16;

TEST_CASE("utf16_text: every length of sequence converts and comes back") {
  const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";  // a, é, €, 😀
  const std::optional<std::u16string> units = utf16_from_utf8(text);
  REQUIRE(units);
  CHECK(*units == std::u16string{u'a', u'\u00E9', u'\u20AC', char16_t{0xD83D}, char16_t{0xDE00}});
  CHECK(utf8_from_utf16(std::u16string_view(*units)) == text);
  CHECK(utf16_from_utf8("").value() == u"");
}

TEST_CASE("utf16_text: the edges of each length are accepted") {
  for (const std::string& text : {std::string("\x7F"), std::string("\xC2\x80"), std::string("\xDF\xBF"),
                                  std::string("\xE0\xA0\x80"), std::string("\xED\x9F\xBF"),
                                  std::string("\xEE\x80\x80"), std::string("\xEF\xBF\xBF"),
                                  std::string("\xF0\x90\x80\x80"), std::string("\xF4\x8F\xBF\xBF")}) {
    INFO(text.size() << " bytes");
    const auto units = utf16_from_utf8(text);
    REQUIRE(units);
    CHECK(utf8_from_utf16(std::u16string_view(*units)) == text);
  }
}

TEST_CASE("utf16_text: text that is not UTF-8 is refused") {
  const char* invalid[] = {
      "\x80",              // a continuation byte first
      "ab\xBF",            // a continuation byte after ASCII
      "\xC3",              // cut short
      "\xE2\x82",          // cut short
      "\xF0\x9F\x98",      // cut short
      "\xC3\x28",          // the second byte is no continuation
      "\xC0\xAF",          // overlong '/'
      "\xC1\xBF",          // overlong
      "\xE0\x80\xAF",      // overlong '/'
      "\xF0\x80\x80\xAF",  // overlong '/'
      "\xED\xA0\x80",      // an encoded surrogate (U+D800)
      "\xED\xBF\xBF",      // an encoded surrogate (U+DFFF)
      "\xF4\x90\x80\x80",  // past U+10FFFF
      "\xF5\x80\x80\x80",  // no such lead byte
      "\xFF",              // no such byte
  };
  for (const char* text : invalid) {
    INFO(std::string(text));
    CHECK_FALSE(utf16_from_utf8(text).has_value());
    CHECK_FALSE(utf16_from_utf8(std::string("name-") + text + ".snap").has_value());
  }
}

TEST_CASE("utf16_text: an unpaired surrogate becomes U+FFFD, as the Windows API gives it") {
  const std::u16string lone_high{u'x', char16_t{0xD800}, u'y'};
  CHECK(utf8_from_utf16(std::u16string_view(lone_high)) == "x\xEF\xBF\xBDy");
  const std::u16string lone_low{char16_t{0xDC00}};
  CHECK(utf8_from_utf16(std::u16string_view(lone_low)) == "\xEF\xBF\xBD");
  const std::u16string high_at_end{u'z', char16_t{0xDBFF}};
  CHECK(utf8_from_utf16(std::u16string_view(high_at_end)) == "z\xEF\xBF\xBD");
}
