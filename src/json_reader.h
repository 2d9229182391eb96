// Copyright Nereid authors.
// Reading JSON input (scenarios, controller specs) with errors that name the file, the
// JSON path of the offending value, and the value: "<file>: <path>: <rule> (got <value>)".
// Internal to the engine library.
#ifndef NEREID_SRC_JSON_READER_H_
#define NEREID_SRC_JSON_READER_H_

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "nereid/error.h"
#include "nereid/frames.h"
#include "json_keys.h"

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

  // Checks `object` against its table: an object, every key in the table (an unknown one
  // names the nearest valid key, or lists them all when none is near), every required key
  // present (in table order).
  void Keys(const json& object, const std::string& path, const JsonObject& keys) const {
    if (!object.is_object()) Fail(path, "expected an object", &object);
    for (auto it = object.begin(); it != object.end(); ++it) {
      if (keys.Find(it.key())) continue;
      const std::string_view nearest = NearestKey(keys, it.key());
      Fail(path + "/" + it.key(), nearest.empty() ? "unknown key; allowed: " + KeyList(keys)
                                                  : "unknown key; did you mean '" + std::string(nearest) + "'?");
    }
    for (const JsonKey& k : keys.keys) {
      if (k.required && !object.contains(std::string(k.name))) {
        Fail(path + "/" + std::string(k.name),
             "missing required key" + (k.missing.empty() ? std::string() : " (" + std::string(k.missing) + ")"));
      }
    }
  }

  // For an object that gives exactly one of its table's keys: "<lead> a, b, c" otherwise.
  void ExactlyOne(const json& object, const std::string& path, const JsonObject& keys,
                  const std::string& lead = "give exactly one of") const {
    if (object.size() != 1) Fail(path, lead + " " + KeyList(keys), &object);
  }

  // A string among `key`'s allowed values: "expected \"a\", \"b\" or \"c\"" otherwise.
  std::string Choice(const json& value, const std::string& path, const JsonKey& key) const {
    const std::string text = String(value, path);
    for (const std::string& a : key.allowed) {
      if (a.size() == text.size() + 2 && a.compare(1, text.size(), text) == 0) return text;
    }
    std::string choices;
    for (size_t i = 0; i < key.allowed.size(); ++i) {
      if (i > 0) choices += i + 1 == key.allowed.size() ? " or " : ", ";
      choices += key.allowed[i];
    }
    Fail(path, "expected " + choices, &value);
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
  static std::string KeyList(const JsonObject& keys) {
    std::string list;
    for (const JsonKey& k : keys.keys) list += (list.empty() ? "" : ", ") + std::string(k.name);
    return list;
  }

  std::string source_;
};

}  // namespace nereid::detail

#endif  // NEREID_SRC_JSON_READER_H_
