// Copyright Nereid authors.
// The MJCF text MuJoCo 3.14's parser must not see, refused before it parses (docs/robustness.md).
// Internal to libnereid.
#ifndef NEREID_SRC_MJCF_GUARD_H_
#define NEREID_SRC_MJCF_GUARD_H_

#include <filesystem>
#include <string>

namespace nereid {

// Throws ConfigError naming `name` and the line when `text` holds a '%' outside a comment,
// spelled out or as a character reference the XML parser decodes to '%'. MuJoCo's parser
// passes some attribute values through printf as formats in its error messages (an unknown
// class="%s%n" reads memory or aborts the process). Likewise a NUL outside a comment, a
// byte or a reference ("&#0;"): XML allows none, and the parser would cut the value there
// (<include file="a.xml&#0;.bak"/> loaded a.xml). Included files are checked too
// (relative to `dir`; nesting bounded at 16).
void CheckMjcfText(const std::string& text, const std::string& name, const std::filesystem::path& dir,
                   int depth = 0);

}  // namespace nereid

#endif  // NEREID_SRC_MJCF_GUARD_H_
