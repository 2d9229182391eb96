// Copyright Nereid authors.
// The command-line parser of `nereid` and `nereid-view`: CLI11 (Debian's libcli11-dev),
// with Nereid's conventions on top. A mistake is a Usage (exit status 2, with the
// program's usage text); messages name the flag and the value given; a value one of
// Nereid's parsers refuses (an integrator, a constraint method) lists the accepted ones;
// a number out of its range states the range.
#ifndef NEREID_SRC_CLI_ARGUMENTS_H_
#define NEREID_SRC_CLI_ARGUMENTS_H_

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <type_traits>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/usage.h"
#include "nereid/error.h"
#include "nereid/names.h"

namespace nereid::cli {

// `text` with each word (a run without blanks) longer than 80 characters cut (Excerpt):
// CLI11's messages quote what was given (a choice, a path), and a huge argument must not
// make a huge message.
inline std::string CutLongWords(std::string_view text) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find_first_of(" \t\n", start), text.size());
    out += Excerpt(text.substr(start, end - start));
    if (end < text.size()) out += text[end];
    start = end + 1;
  }
  return out;
}

// One command's options. Add them to app(), then Parse. For --help the program prints its
// own usage text (Parse throws Help), the usage documented in README.md.
class Parser {
 public:
  explicit Parser(const std::string& name) : app_(std::string(), name) {
    app_.allow_extras(false);
    app_.positionals_at_end(false);
  }
  CLI::App& app() { return app_; }

  // Parses `args` (the words after the program or command name). Throws Usage, or Help.
  void Parse(std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    try {
      app_.parse(args);
    } catch (const CLI::CallForHelp&) {
      throw Help{};
    } catch (const CLI::ParseError& e) {
      throw Usage{CutLongWords(e.what())};
    }
  }

 private:
  CLI::App app_;
};

// A flag naming one value of a closed set (its names table, nereid/names.h); `set` gets
// the value. Anything else: "FLAG: expects a, b or c, got 'TEXT'".
template <class T, std::size_t N>
CLI::Option* AddChoice(CLI::App& app, const std::string& flag, const std::array<Named<T>, N>& names,
                       std::function<void(const T&)> set, const std::string& help = "") {
  return app.add_option_function<std::string>(
      flag,
      [=](const std::string& text) {
        T value{};
        if (!ParseName(names, text, &value)) {
          throw CLI::ValidationError(flag, "expects " + NameChoices(names, 0) + ", got '" + Excerpt(text) + "'");
        }
        set(value);
      },
      help);
}

// A number (double or integer) within [lo, hi]: "FLAG: must be in LO..HI, got TEXT", with
// the text as given (NaN, which CLI11's range checks let through, and infinities are
// refused; an integer beyond the type, which CLI11 caps, is shown as typed); text that is no
// number: "FLAG: must be a number in LO..HI, got 'TEXT'" ("an integer" for integers).
template <class T>
CLI::Option* AddNumber(CLI::App& app, const std::string& flag, std::function<void(const T&)> set, T lo, T hi,
                       const std::string& help = "") {
  return app.add_option_function<std::string>(
      flag,
      [=](const std::string& text) {
        auto show = [](T x) {
          if constexpr (std::is_integral_v<T>) {
            return std::to_string(x);
          } else {
            char buffer[32];
            std::snprintf(buffer, sizeof(buffer), "%g", static_cast<double>(x));
            return std::string(buffer);
          }
        };
        const std::string range = show(lo) + ".." + show(hi);
        T value{};
        if (!CLI::detail::lexical_cast(text, value)) {
          const char* kind = std::is_integral_v<T> ? "an integer" : "a number";
          throw CLI::ValidationError(flag, std::string("must be ") + kind + " in " + range + ", got '" +
                                               Excerpt(text) + "'");
        }
        // an integer beyond the type arrives as its nearest end (CLI11 caps it): out of range too
        if (!(value >= lo && value <= hi)) {
          throw CLI::ValidationError(flag, "must be in " + range + ", got " + Excerpt(text));
        }
        set(value);
      },
      help);
}

// The one positional argument a command takes (its input file).
inline CLI::Option* AddInput(CLI::App& app, std::string* input, const std::string& name) {
  return app.add_option(name, *input, name);
}

}  // namespace nereid::cli

#endif  // NEREID_SRC_CLI_ARGUMENTS_H_
