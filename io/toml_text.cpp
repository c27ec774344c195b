#include "io/toml_text.hpp"

#include <algorithm>
#include <regex>

namespace meridian::io {
namespace {

enum class In { code, basic_string, literal_string, multiline_basic, multiline_literal, comment };

bool starts(const std::string& s, std::size_t at, const char* token) { return s.compare(at, 3, token) == 0; }

std::size_t line_length(const std::string& s, std::size_t from) {
  const std::size_t end = s.find('\n', from);
  return (end == std::string::npos ? s.size() : end) - from;
}

}  // namespace

TomlText::TomlText(const std::string& source, std::size_t long_line) {
  text_.reserve(source.size() + source.size() / 16);
  source_line_.push_back(1);
  long line = 1;
  In in = In::code;
  bool escaped = false;
  bool long_now = line_length(source, 0) > long_line;
  std::vector<char> open;  // the brackets and braces enclosing the current position
  for (std::size_t i = 0; i < source.size(); ++i) {
    const char c = source[i];
    text_ += c;
    if (c == '\n') {
      ++line;
      source_line_.push_back(line);
      long_now = line_length(source, i + 1) > long_line;
      if (in == In::comment || in == In::basic_string || in == In::literal_string) in = In::code;
      escaped = false;
      continue;
    }
    if (escaped) {
      escaped = false;
      continue;
    }
    switch (in) {
      case In::code:
        if (c == '#') {
          in = In::comment;
        } else if (starts(source, i, "\"\"\"") || starts(source, i, "'''")) {
          in = c == '"' ? In::multiline_basic : In::multiline_literal;
          text_.append(2, c);
          i += 2;
        } else if (c == '"') {
          in = In::basic_string;
        } else if (c == '\'') {
          in = In::literal_string;
        } else if (c == '[' || c == '{') {
          open.push_back(c);
        } else if ((c == ']' || c == '}') && !open.empty()) {
          open.pop_back();
        } else if (c == ',' && long_now && !open.empty() && std::count(open.begin(), open.end(), '{') == 0) {
          text_ += '\n';
          source_line_.push_back(line);
        }
        break;
      case In::basic_string:
        if (c == '\\') escaped = true;
        else if (c == '"') in = In::code;
        break;
      case In::literal_string:
        if (c == '\'') in = In::code;
        break;
      case In::multiline_basic:
        if (c == '\\') {
          escaped = true;
        } else if (starts(source, i, "\"\"\"")) {
          text_.append(2, c);
          i += 2;
          in = In::code;
        }
        break;
      case In::multiline_literal:
        if (starts(source, i, "'''")) {
          text_.append(2, c);
          i += 2;
          in = In::code;
        }
        break;
      case In::comment: break;
    }
  }
}

std::size_t first_invalid_utf8(const std::string& text) {
  const auto byte = [&text](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char lead = byte(i);
    // Sequence length and the range of the second byte (excluding overlongs, surrogates, > U+10FFFF).
    std::size_t length = 1;
    unsigned char low = 0x80, high = 0xBF;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high) return i;
    for (std::size_t k = 2; k < length; ++k)
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return i;
    i += length;
  }
  return std::string::npos;
}

long TomlText::source_line(long line) const {
  if (line < 1 || source_line_.empty()) return line;
  return source_line_[std::min<std::size_t>(static_cast<std::size_t>(line), source_line_.size()) - 1];
}

std::string TomlText::with_source_lines(const std::string& message) const {
  static const std::regex excerpt(R"((^|\n)( *)(\d+)( \| ))");
  std::string out;
  auto last = message.cbegin();
  for (auto it = std::sregex_iterator(message.begin(), message.end(), excerpt); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    out.append(last, m[3].first);
    out += std::to_string(source_line(std::stol(m[3].str())));
    last = m[3].second;
  }
  out.append(last, message.cend());
  return out;
}

}  // namespace meridian::io
