// Copyright Nereid authors.
// A plugin's <config> keys, each declared once. A plugin lists its keys in one table (an
// array of ConfigKey); that table gives MuJoCo the attribute names it accepts (KeyNames),
// gives ConfigReader each key's name, requiredness and default, and is what the plugin's
// README key table is checked against (tests/plugins/keys_test.cc: name, default, units).
// Code reads a key only through its ConfigKey, so a misspelt key does not compile.
#ifndef NEREID_CONFIG_KEY_H_
#define NEREID_CONFIG_KEY_H_

#include <array>
#include <cstddef>
#include <string_view>

namespace nereid {

struct ConfigKey {
  const char* name;
  const char* units;         // the README's "Units" column ("—" for none)
  const char* fallback;      // the default, as a user would write it (read like a given
                             // value); nullptr: none (required, or a rule in `default_doc`)
  bool required = false;     // absent: ConfigReader::FailMissing
  const char* default_doc = nullptr;  // the README's "Required / default" column when it is
                                      // not "**required**" or `fallback` in backticks
};

// The attribute names MuJoCo's plugin registration takes, in table order.
template <std::size_t N>
constexpr std::array<const char*, N> KeyNames(const std::array<ConfigKey, N>& keys) {
  std::array<const char*, N> names{};
  for (std::size_t i = 0; i < N; ++i) names[i] = keys[i].name;
  return names;
}

// True if no two keys of the table share a name (checked at compile time by each plugin).
template <std::size_t N>
constexpr bool DistinctNames(const std::array<ConfigKey, N>& keys) {
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = i + 1; j < N; ++j) {
      if (std::string_view(keys[i].name) == keys[j].name) return false;
    }
  }
  return true;
}

}  // namespace nereid

#endif  // NEREID_CONFIG_KEY_H_
