// Copyright Nereid authors.
// Closed sets of strings (an integrator, a body frame, a thruster input, a constraint
// method...): each enum has one table of its names, and parsing, printing and the
// "expected ..." part of error messages all come from it.
#ifndef NEREID_NAMES_H_
#define NEREID_NAMES_H_

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace nereid {

template <class E>
struct Named {
  E value;
  std::string_view name;
};

// The name of `value` in `table` ("?" if it has none).
template <class E, std::size_t N>
constexpr std::string_view NameOf(const std::array<Named<E>, N>& table, E value) {
  for (const Named<E>& n : table) {
    if (n.value == value) return n.name;
  }
  return "?";
}

// The value named `text`; false (and `out` untouched) for any other text.
template <class E, std::size_t N>
constexpr bool ParseName(const std::array<Named<E>, N>& table, std::string_view text, E* out) {
  for (const Named<E>& n : table) {
    if (n.name == text) {
      *out = n.value;
      return true;
    }
  }
  return false;
}

// The names for a message, each in `quote`s (none for 0): "'a', 'b' or 'c'".
template <class E, std::size_t N>
std::string NameChoices(const std::array<Named<E>, N>& table, char quote = '"') {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? " or " : ", ";
    if (quote) out += quote;
    out += table[i].name;
    if (quote) out += quote;
  }
  return out;
}

}  // namespace nereid

#endif  // NEREID_NAMES_H_
