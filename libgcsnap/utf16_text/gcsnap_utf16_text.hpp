#pragma once
// UTF-8 <-> UTF-16, the one conversion of the project: the Windows parts of libgcsnap, the CLI
// and the profiler shim (whose APIs take UTF-16 names) and the CLI's diagnostics IPC (whose
// strings are UTF-16LE) all use it. Header-only and without system calls, so the same code
// runs, and is tested, on every system (tests/format/utf16_text_test.cpp). Its own small
// target (gcsnap_utf16_text), like libgcsnap/thread_name.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gcsnap::text {

/// Return TEXT (UTF-8) as UTF-16 code units of type Unit (char16_t; wchar_t on Windows), or
/// nullopt when TEXT is not valid UTF-8: a byte that starts no sequence, a sequence cut short,
/// an overlong form, an encoded surrogate or a code point past U+10FFFF.
template <class Unit = char16_t>
std::optional<std::basic_string<Unit>> utf16_from_utf8(std::string_view text) {
  static_assert(sizeof(Unit) == 2, "UTF-16 code units are 16 bits");
  std::basic_string<Unit> out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t extra = 0;
    char32_t cp = lead;
    char32_t least = 0;  // the smallest code point the sequence's length may carry
    if (lead < 0x80) {
      extra = 0;
    } else if (lead >= 0xC2 && lead < 0xE0) {
      extra = 1, cp = lead & 0x1F, least = 0x80;
    } else if (lead >= 0xE0 && lead < 0xF0) {
      extra = 2, cp = lead & 0x0F, least = 0x800;
    } else if (lead >= 0xF0 && lead < 0xF5) {
      extra = 3, cp = lead & 0x07, least = 0x10000;
    } else {
      return std::nullopt;  // a continuation byte, C0/C1 (overlong) or F5..FF
    }
    if (text.size() - i <= extra) return std::nullopt;
    for (size_t k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return std::nullopt;
      cp = cp << 6 | (next & 0x3F);
    }
    if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) return std::nullopt;
    if (cp >= 0x10000) {
      out.push_back(static_cast<Unit>(0xD800 + ((cp - 0x10000) >> 10)));
      out.push_back(static_cast<Unit>(0xDC00 + ((cp - 0x10000) & 0x3FF)));
    } else {
      out.push_back(static_cast<Unit>(cp));
    }
    i += extra + 1;
  }
  return out;
}

/// Return TEXT (UTF-16) as UTF-8. An unpaired surrogate becomes U+FFFD, as the Windows API
/// does: names the system hands out are shown, never refused.
template <class Unit = char16_t>
std::string utf8_from_utf16(std::basic_string_view<Unit> text) {
  static_assert(sizeof(Unit) == 2, "UTF-16 code units are 16 bits");
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char32_t cp = static_cast<uint16_t>(text[i]);
    if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < text.size()) {
      const char32_t low = static_cast<uint16_t>(text[i + 1]);
      if (low >= 0xDC00 && low < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        ++i;
      }
    }
    if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  return out;
}

}  // namespace gcsnap::text
