// User input in error messages (engine/text.hpp): quoted() escapes control characters,
// quotes, backslashes and invalid UTF-8, keeps valid UTF-8 whole and cuts long input at a
// character boundary with its length; one_line() keeps a whole message on one bounded line.
#include "testing/catch.hpp"

#include <string>

#include "engine/text.hpp"

using namespace kalah;

namespace {

bool valid_utf8(const std::string& s) {
  for (std::size_t at = 0; at < s.size();) {
    const std::size_t n = utf8_length(s, at);
    if (n == 0) return false;
    at += n;
  }
  return true;
}

bool has_control(const std::string& s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

}  // namespace

TEST_CASE("quoted: plain input in single quotes", "[text]") {
  CHECK(quoted("standard") == "'standard'");
  CHECK(quoted("") == "''");
  CHECK(quoted("4,4,4/4,4,4/0/0/S") == "'4,4,4/4,4,4/0/0/S'");
}

TEST_CASE("quoted: control characters are escaped", "[text]") {
  CHECK(quoted("a\nb") == "'a\\nb'");
  CHECK(quoted("a\rb\tc") == "'a\\rb\\tc'");
  CHECK(quoted(std::string("a\0b", 3)) == "'a\\x00b'");
  CHECK(quoted("\x01\x1f\x7f") == "'\\x01\\x1f\\x7f'");
  CHECK(quoted("\x1b[31m") == "'\\x1b[31m'");
}

TEST_CASE("quoted: the quote and the backslash are escaped", "[text]") {
  CHECK(quoted("it's") == "'it\\'s'");
  CHECK(quoted("a\\nb") == "'a\\\\nb'");  // a real backslash, not a newline
  CHECK(quoted("say \"x\"") == "'say \"x\"'");
  CHECK(quoted("say \"x\"", 48, '"') == "\"say \\\"x\\\"\"");
  CHECK(quoted("it's", 48, '"') == "\"it's\"");
}

TEST_CASE("quoted: valid UTF-8 characters are kept whole", "[text]") {
  CHECK(quoted("\xd9\xa3") == "'\xd9\xa3'");                        // U+0663 ARABIC-INDIC DIGIT THREE
  CHECK(quoted("k\xc3\xa4yt\xc3\xa4") == "'k\xc3\xa4yt\xc3\xa4'");  // "käytä"
  CHECK(quoted("\xe2\x82\xac") == "'\xe2\x82\xac'");                // U+20AC euro sign
  CHECK(quoted("\xf0\x9f\x8e\xb2") == "'\xf0\x9f\x8e\xb2'");        // U+1F3B2 game die
}

TEST_CASE("quoted: invalid UTF-8 bytes are escaped one by one", "[text]") {
  CHECK(quoted("\xd9") == "'\\xd9'");                             // a lone lead byte
  CHECK(quoted("\xd9x") == "'\\xd9x'");                           // a lead byte without its continuation
  CHECK(quoted("\xa3") == "'\\xa3'");                             // a lone continuation byte
  CHECK(quoted("\xff\xfe") == "'\\xff\\xfe'");                    // never valid
  CHECK(quoted("\xc0\xaf") == "'\\xc0\\xaf'");                    // an overlong '/'
  CHECK(quoted("\xed\xa0\x80") == "'\\xed\\xa0\\x80'");           // a UTF-16 surrogate
  CHECK(quoted("\xf4\x90\x80\x80") == "'\\xf4\\x90\\x80\\x80'");  // beyond U+10FFFF
  CHECK(quoted("\xe2\x82") == "'\\xe2\\x82'");                    // a character cut short
}

TEST_CASE("quoted: C1 controls and Unicode line separators are escaped", "[text]") {
  CHECK(quoted("a\xc2\x85z") == "'a\\u0085z'");  // NEL
  CHECK(quoted("\xc2\x9b") == "'\\u009b'");      // CSI
  CHECK(quoted("a\xe2\x80\xa8z\xe2\x80\xa9") == "'a\\u2028z\\u2029'");
  CHECK(quoted("\xc2\xa0") == "'\xc2\xa0'");  // no-break space is kept
}

TEST_CASE("quoted: long input is cut at a character boundary with its full length", "[text]") {
  std::string position;
  for (int i = 0; i < 20003; ++i) position += (i ? "," : "") + std::to_string(i % 10);
  REQUIRE(position.size() == 40005);
  CHECK(quoted(position, 8) == "'0,1,2,3,...' (40005 bytes)");
  CHECK(quoted(position).size() < 80);

  CHECK(quoted("abcdef", 6) == "'abcdef'");  // exactly max_chars: whole
  CHECK(quoted("abcdefg", 6) == "'abcdef...' (7 bytes)");
  CHECK(quoted("abc", 0) == "'...' (3 bytes)");

  // Multi-byte characters count as one and are never split.
  std::string digits;
  for (int i = 0; i < 10; ++i) digits += "\xd9\xa3";  // 10 characters, 20 bytes
  CHECK(quoted(digits, 3) == "'\xd9\xa3\xd9\xa3\xd9\xa3...' (20 bytes)");
  CHECK(quoted(digits, 10) == "'" + digits + "'");
  // An escaped character counts as one character too.
  CHECK(quoted("\n\n\n\n", 2) == "'\\n\\n...' (4 bytes)");
}

TEST_CASE("one_line: control characters in a message are escaped, quotes kept", "[text]") {
  CHECK(one_line("position '4,4/\nS': bad", 512) == "position '4,4/\\nS': bad");
  CHECK(one_line("a\r\n\tb\x01\x7f", 512) == "a\\r\\n\\tb\\x01\\x7f");
  CHECK(one_line("turn 1 (\"\xd9\xa3\"): \\ kept", 512) == "turn 1 (\"\xd9\xa3\"): \\ kept");
  CHECK(one_line("bad byte \xd9 here", 512) == "bad byte \\xd9 here");
  CHECK(one_line("", 512).empty());
}

TEST_CASE("one_line: a long message is cut at a character boundary within max_bytes", "[text]") {
  const std::string fits(20, 'x');
  CHECK(one_line(fits, 20) == fits);  // exactly max_bytes: whole
  CHECK(one_line(fits + "y", 20) == std::string(17, 'x') + "...");

  std::string wide;
  for (int i = 0; i < 100; ++i) wide += "\xd9\xa3";
  for (std::size_t max = 3; max < 40; ++max) {
    const std::string line = one_line(wide, max);
    INFO("max_bytes " << max << ": " << line);
    CHECK(line.size() <= max);
    CHECK(line.size() + 1 >= max);  // at most one byte of the last character left unused
    CHECK(valid_utf8(line));
    CHECK(line.substr(line.size() - 3) == "...");
  }
  // An escape is never split: "\n" escaped is two bytes, cut whole.
  CHECK(one_line("ab\ncd", 6) == "ab\\ncd");  // six bytes escaped: fits
  CHECK(one_line("ab\ncd", 5) == "ab...");
  CHECK(one_line(std::string(10000, '\n'), 512).size() <= 512);

  std::string noisy;
  for (int i = 0; i < 5000; ++i) noisy += std::string("\n\xff\xd9\xa3\x01", 5);
  const std::string line = one_line(noisy, 512);
  CHECK(line.size() <= 512);
  CHECK(valid_utf8(line));
  CHECK_FALSE(has_control(line));
}
