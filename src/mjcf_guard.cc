// Copyright Nereid authors.
#include "mjcf_guard.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "nereid/error.h"

namespace nereid {
namespace {

// The character an XML numeric character reference at text[at] decodes to ("&#37;",
// "&#x25;", "&#X25;", any number of leading zeros); *spelling: its text. -1 when there is
// none there (or it is no character: the parser keeps such text as it is).
long DecodedReference(const std::string& text, size_t at, std::string* spelling) {
  if (text.compare(at, 2, "&#") != 0) return -1;
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
    if (digit < 0) return -1;
    value = value * (hex ? 16 : 10) + static_cast<unsigned long>(digit);
    if (value > 0x10FFFF) return -1;  // not a character; the parser keeps it as text
  }
  if (i == text.size() || i == digits) return -1;
  *spelling = text.substr(at, i + 1 - at);
  return static_cast<long>(value);
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
    const long decoded = text[i] == '&' ? DecodedReference(text, i, &spelling) : -1;
    std::string what;
    if (text[i] == '%') {
      what = "'%'";
    } else if (decoded == '%') {
      what = "'" + spelling + "' (a character reference for '%')";
    }
    if (!what.empty()) {
      throw ConfigError(name + ": line " + std::to_string(line) + ": " + what +
                        " outside a comment is refused: MuJoCo's MJCF parser (3.14) passes some "
                        "attribute values through printf as formats when it reports an error");
    }
    // XML allows no NUL; MuJoCo's parser would end the text there (a raw one) or cut the
    // value there: <include file="a.xml&#0;.bak"/> loaded a.xml
    if (text[i] == '\0' || decoded == 0) {
      throw ConfigError(name + ": line " + std::to_string(line) + ": " +
                        (decoded == 0 ? "'" + spelling + "' (a character reference for NUL)" : std::string("a NUL byte")) +
                        " is refused: XML does not allow it, and MuJoCo's parser would cut the text or the value "
                        "there");
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
