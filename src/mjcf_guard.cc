// Copyright Nereid authors.
#include "mjcf_guard.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "nereid/error.h"

namespace nereid {
namespace {

// Whether text[at] starts an XML numeric character reference ("&#37;", "&#x25;", "&#X25;",
// any number of leading zeros) that the XML parser decodes to '%'; *spelling: its text.
bool DecodesToPercent(const std::string& text, size_t at, std::string* spelling) {
  if (text.compare(at, 2, "&#") != 0) return false;
  size_t i = at + 2;
  const bool hex = i < text.size() && (text[i] == 'x' || text[i] == 'X');
  if (hex) ++i;
  const size_t digits = i;
  unsigned long value = 0;
  for (; i < text.size() && text[i] != ';'; ++i) {
    const char c = text[i];
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (hex && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (hex && c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) return false;
    value = value * (hex ? 16 : 10) + static_cast<unsigned long>(digit);
    if (value > 0x10FFFF) return false;  // not a character; the parser keeps it as text
  }
  if (i == text.size() || i == digits || value != '%') return false;
  *spelling = text.substr(at, i + 1 - at);
  return true;
}

}  // namespace

void CheckMjcfText(const std::string& text, const std::string& name, const std::filesystem::path& dir,
                   int depth) {
  if (depth > 16) throw ConfigError(name + ": <include> nested deeper than 16 files");
  int line = 1;
  std::string plain;  // the text without comments, for finding <include>
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 4, "<!--") == 0) {
      const size_t end = text.find("-->", i + 4);
      const size_t stop = end == std::string::npos ? text.size() : end + 3;
      line += static_cast<int>(std::count(text.begin() + static_cast<long>(i), text.begin() + static_cast<long>(stop), '\n'));
      i = stop - 1;
      continue;
    }
    if (text[i] == '\n') ++line;
    std::string spelling;
    if (text[i] == '%') {
      spelling = "'%'";
    } else if (text[i] == '&' && DecodesToPercent(text, i, &spelling)) {
      spelling = "'" + spelling + "' (a character reference for '%')";
    }
    if (!spelling.empty()) {
      throw ConfigError(name + ": line " + std::to_string(line) + ": " + spelling +
                        " outside a comment is refused: MuJoCo's MJCF parser (3.14) passes some "
                        "attribute values through printf as formats when it reports an error");
    }
    plain += text[i];
  }
  for (size_t at = plain.find("<include"); at != std::string::npos; at = plain.find("<include", at + 8)) {
    const size_t file = plain.find("file", at);
    const size_t close = plain.find('>', at);
    if (file == std::string::npos || file > close) continue;
    const size_t q = plain.find_first_of("\"'", file);
    if (q == std::string::npos || q > close) continue;
    const size_t q2 = plain.find(plain[q], q + 1);
    if (q2 == std::string::npos) continue;
    const std::filesystem::path included = dir / plain.substr(q + 1, q2 - q - 1);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(included, ec)) continue;  // MuJoCo reports it
    std::ifstream in(included, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    CheckMjcfText(buffer.str(), included.string(), included.parent_path(), depth + 1);
  }
}

}  // namespace nereid
