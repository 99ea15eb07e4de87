// engine/text.hpp — user input made safe to show in a one-line error message.
//
// quoted() puts a piece of input in quotes with control characters, the quote and the
// backslash escaped, invalid UTF-8 bytes as \xNN, and long input cut (with its full length
// noted): quoted("4,4\nS") == "'4,4\\nS'". one_line() is the last guard on a whole message:
// no control character, valid UTF-8, at most max_bytes bytes. Both keep valid UTF-8
// characters whole; C1 controls and U+2028/U+2029 (line breaks to some readers) become \uXXXX.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kalah {

// `input` between `quote` characters, escaped: \n \r \t, other bytes below 0x20 and 0x7f
// as \xNN, the quote as \' (or \"), the backslash as \\, invalid UTF-8 bytes as \xNN.
// Input of more than max_chars characters (a UTF-8 character or an invalid byte counts as
// one) keeps its first max_chars and gets "..." and its full length:
// "'1,2,3,4,...' (60012 bytes)".
std::string quoted(std::string_view input, std::size_t max_chars = 48, char quote = '\'');

// `message` with every control character escaped as in quoted() (quotes and backslashes
// left as they are), cut at a character boundary with "..." so that the result holds at
// most max_bytes bytes (max_bytes >= 3).
std::string one_line(std::string_view message, std::size_t max_bytes);

// The length in bytes of the valid UTF-8 character at text[at] (1..4), or 0 when the
// byte there does not start one (an invalid byte). at < text.size().
std::size_t utf8_length(std::string_view text, std::size_t at);

// A byte count for people: "512 B", "848.5 KiB", "67.2 MiB", "14.30 GiB" (binary units).
std::string byte_text(std::uint64_t bytes);

}  // namespace kalah
