#pragma once
// Deck text as toml11 gets it. toml11 3.7 builds a diagnostic for every alternative it tries while
// parsing a value, and each one copies the whole current line, so a list written on one line parses
// in time quadratic in its length (20 000 tracers: 11 s; a million entries: not done after 13 min).
// Lists on long lines are broken after their commas (TOML allows newlines inside arrays, not inside
// inline tables or strings); every line keeps the number of the line it came from, so messages still
// cite the user's file and line.
#include <string>
#include <vector>

namespace meridian::io {

class TomlText {
 public:
  // Lines up to `long_line` characters pass unchanged.
  explicit TomlText(const std::string& source, std::size_t long_line = 1024);
  const std::string& text() const { return text_; }
  // The source line of line `line` (1-based) of text().
  long source_line(long line) const;
  // A toml11 message with the line numbers of its excerpts (" 12 | key = ...") mapped to the source.
  std::string with_source_lines(const std::string& message) const;

 private:
  std::string text_;
  std::vector<long> source_line_;
};

// The offset of the first byte that is not part of valid UTF-8, or npos. TOML documents are UTF-8,
// and toml11 3.7 reads out of bounds on an invalid sequence inside a literal string (found by the
// deck fuzzer), so decks are checked before toml11 sees them.
std::size_t first_invalid_utf8(const std::string& text);

}  // namespace meridian::io
