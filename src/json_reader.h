// Copyright Nereid authors.
// Reading JSON input (scenarios, controller specs) with errors that name the file, the
// JSON path of the offending value, and the value: "<file>: <path>: <rule> (got <value>)".
// Internal to the engine library.
#ifndef NEREID_SRC_JSON_READER_H_
#define NEREID_SRC_JSON_READER_H_

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "nereid/error.h"
#include "nereid/frames.h"

namespace nereid::detail {

// Deepest nesting accepted in a JSON input (Nereid's own formats nest 5 deep at most).
constexpr int kMaxJsonDepth = 64;

// Parses JSON text. A malformed document, a number out of double's range (1e400) or
// nesting deeper than kMaxJsonDepth throws ConfigError naming `source`.
inline nlohmann::json ParseJson(const std::string& text, const std::string& source) {
  using json = nlohmann::json;
  // the nesting depth, by one linear scan outside strings (nlohmann's parser with a callback
  // is quadratic in a long array: 180,000 entries took 10 s)
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) {
        throw ConfigError(source + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    // nlohmann quotes the token it last read, which can be a whole (huge) string: cut it
    std::string what = e.what();
    const std::string mark = "; last read: '";
    if (const size_t at = what.find(mark); at != std::string::npos) {
      std::string token = what.substr(at + mark.size());
      if (!token.empty() && token.back() == '\'') token.pop_back();
      what = what.substr(0, at) + mark + ::nereid::Excerpt(std::string_view(token)) + "'";
    }
    throw ConfigError(source + ": malformed JSON: " + ::nereid::Excerpt(std::string_view(what), 400));
  }
}

// A value for an error message: its JSON text, cut to at most 80 characters.
inline std::string Excerpt(const nlohmann::json& value) { return ::nereid::Excerpt(std::string_view(value.dump())); }

class JsonReader {
 public:
  using json = nlohmann::json;
  explicit JsonReader(std::string source) : source_(std::move(source)) {}
  const std::string& source() const { return source_; }

  [[noreturn]] void Fail(const std::string& path, const std::string& rule,
                         const json* value = nullptr) const {
    std::string message = source_ + ": " + (path.empty() ? "/" : path) + ": " + rule;
    if (value) message += " (got " + Excerpt(*value) + ")";
    throw ConfigError(message);
  }

  // Throws for any key of `object` not in `allowed`, listing the allowed ones.
  void Keys(const json& object, const std::string& path,
            std::initializer_list<const char*> allowed) const {
    if (!object.is_object()) Fail(path, "expected an object", &object);
    for (auto it = object.begin(); it != object.end(); ++it) {
      if (std::none_of(allowed.begin(), allowed.end(),
                       [&](const char* k) { return it.key() == k; })) {
        std::string list;
        for (const char* k : allowed) list += std::string(list.empty() ? "" : ", ") + k;
        Fail(path + "/" + it.key(), "unknown key; allowed: " + list);
      }
    }
  }

  const json& Required(const json& object, const std::string& path, const char* key) const {
    if (!object.contains(key)) Fail(path + "/" + key, "missing required key");
    return object[key];
  }

  double Number(const json& value, const std::string& path) const {
    if (!value.is_number()) Fail(path, "expected a number", &value);
    const double x = value.get<double>();
    if (!std::isfinite(x)) Fail(path, "expected a finite number", &value);
    return x;
  }

  // object[key] as a number, or `fallback` when absent
  double Number(const json& object, const std::string& path, const char* key, double fallback) const {
    return object.contains(key) ? Number(object[key], path + "/" + key) : fallback;
  }

  double Positive(const json& value, const std::string& path) const {
    const double x = Number(value, path);
    if (!(x > 0)) Fail(path, "must be > 0", &value);
    return x;
  }

  bool Bool(const json& value, const std::string& path) const {
    if (!value.is_boolean()) Fail(path, "expected true or false", &value);
    return value.get<bool>();
  }

  std::string String(const json& value, const std::string& path) const {
    if (!value.is_string()) Fail(path, "expected a string", &value);
    return value.get<std::string>();
  }

  std::vector<double> Numbers(const json& value, const std::string& path, size_t n) const {
    if (!value.is_array() || value.size() != n) {
      Fail(path, "expected an array of " + std::to_string(n) + " numbers", &value);
    }
    std::vector<double> out;
    for (size_t i = 0; i < n; ++i) out.push_back(Number(value[i], path + "/" + std::to_string(i)));
    return out;
  }

  Vec3 Vector3(const json& value, const std::string& path) const {
    std::vector<double> x = Numbers(value, path, 3);
    return Vec3(x[0], x[1], x[2]);
  }

 private:
  std::string source_;
};

}  // namespace nereid::detail

#endif  // NEREID_SRC_JSON_READER_H_
