#include "engine/text.hpp"

#include <cstdio>

namespace kalah {

std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char b = byte(at);
  if (b < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range (excludes overlongs, surrogates, > U+10FFFF)
  if (b >= 0xc2 && b <= 0xdf)
    n = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    if (b == 0xe0) lo = 0xa0;
    if (b == 0xed) hi = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    if (b == 0xf0) lo = 0x90;
    if (b == 0xf4) hi = 0x8f;
  } else
    return 0;
  if (text.size() - at < n) return 0;
  if (byte(at + 1) < lo || byte(at + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(at + k) < 0x80 || byte(at + k) > 0xbf) return 0;
  return n;
}

namespace {

std::string hex_byte(unsigned char b) {
  static const char digits[] = "0123456789abcdef";
  return std::string("\\x") + digits[b >> 4] + digits[b & 15];
}

// The character of `length` bytes at text[at] (length from utf8_length) as it is shown:
// itself, or an escape for a control character or an invalid byte. Quotes and backslashes
// are the caller's business.
std::string shown_char(std::string_view text, std::size_t at, std::size_t length) {
  const auto b = static_cast<unsigned char>(text[at]);
  if (length == 0) return hex_byte(b);
  if (length == 1) {
    if (b == '\n') return "\\n";
    if (b == '\r') return "\\r";
    if (b == '\t') return "\\t";
    if (b < 0x20 || b == 0x7f) return hex_byte(b);
    return std::string(1, static_cast<char>(b));
  }
  const auto b1 = static_cast<unsigned char>(text[at + 1]);
  if (b == 0xc2 && b1 >= 0x80 && b1 <= 0x9f) return "\\u00" + hex_byte(b1).substr(2);  // C1 controls
  if (b == 0xe2 && b1 == 0x80) {
    const auto b2 = static_cast<unsigned char>(text[at + 2]);
    if (b2 == 0xa8) return "\\u2028";  // line separator
    if (b2 == 0xa9) return "\\u2029";  // paragraph separator
  }
  return std::string(text.substr(at, length));
}

std::size_t step(std::size_t length) { return length == 0 ? 1 : length; }  // an invalid byte is one

}  // namespace

std::string quoted(std::string_view input, std::size_t max_chars, char quote) {
  std::string out(1, quote);
  std::size_t chars = 0, at = 0;
  while (at < input.size()) {
    if (chars == max_chars) {
      out += "...";
      out += quote;
      return out + " (" + std::to_string(input.size()) + " bytes)";
    }
    const std::size_t length = utf8_length(input, at);
    const char c = input[at];
    if (c == quote || c == '\\')
      out += std::string("\\") + c;
    else
      out += shown_char(input, at, length);
    at += step(length);
    ++chars;
  }
  out += quote;
  return out;
}

std::string one_line(std::string_view message, std::size_t max_bytes) {
  std::string out;
  std::size_t cut = 0;  // the longest whole-character prefix of `out` that leaves room for "..."
  for (std::size_t at = 0; at < message.size();) {
    const std::size_t length = utf8_length(message, at);
    out += shown_char(message, at, length);
    at += step(length);
    if (out.size() + 3 <= max_bytes) cut = out.size();
    if (out.size() > max_bytes) break;  // it will be cut at `cut` anyway
  }
  if (out.size() <= max_bytes) return out;
  out.resize(cut);
  return out + "...";
}

std::string byte_text(std::uint64_t count) {
  double bytes = static_cast<double>(count);
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : u <= 2 ? "%.1f %s" : "%.2f %s", bytes, units[u]);
  return buf;
}

}  // namespace kalah
