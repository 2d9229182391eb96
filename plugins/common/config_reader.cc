// Copyright Nereid authors.
#include "common/config_reader.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "nereid/error.h"
#include "nereid/object_names.h"
#include "nereid/plugins.h"

namespace nereid {
namespace {

// `text` with every byte that is not part of valid UTF-8, and every control character,
// written as \xNN: error messages reach Python, which decodes them as UTF-8.
std::string Printable(const std::string& text) {
  std::string out;
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool valid = len > 0 && i + len <= n && !(len == 2 && c < 0xC2);
    for (size_t k = 1; valid && k < len; ++k) valid = (s[i + k] & 0xC0) == 0x80;
    if (valid && !(len == 1 && c < 0x20)) {
      out.append(text, i, len);
      i += len;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02X", c);
      out += hex;
      ++i;
    }
  }
  return out;
}

}  // namespace

ConfigReader::ConfigReader(const mjModel* m, int instance, const char* plugin_name)
    : m_(m), instance_(instance) {
  where_ = std::string(plugin_name) + " instance '" + Excerpt(PluginInstanceName(m, instance)) + "'";
}

ConfigReader::ConfigReader(std::string where, KeyText text, KeyFail fail)
    : where_(std::move(where)), text_(std::move(text)), fail_(std::move(fail)) {}

std::optional<std::string> ConfigReader::Raw(const ConfigKey& key) const {
  if (text_) {
    std::optional<std::string> value = text_(key.name);
    if (!value || value->empty()) return std::nullopt;
    return value;
  }
  const char* value = mj_getPluginConfig(m_, instance_, key.name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

std::optional<std::string> ConfigReader::Text(const ConfigKey& key) const {
  std::optional<std::string> given = Raw(key);
  if (given || !key.fallback) return given;
  return std::string(key.fallback);
}

void ConfigReader::Fail(const ConfigKey& key, const std::string& rule) const {
  if (fail_) {
    fail_(key.name, rule, false);
    throw ConfigError(where_ + ": key '" + key.name + "': " + rule);  // a KeyFail that returned
  }
  std::string value = Raw(key).value_or("");
  throw ConfigError(Printable(where_ + ": key '" + key.name + "' = '" + Excerpt(value) + "': " + rule));
}

void ConfigReader::FailMissing(const ConfigKey& key, const std::string& rule) const {
  if (fail_) {
    fail_(key.name, rule, true);
    throw ConfigError(where_ + ": missing required key '" + key.name + "' (" + rule + ")");
  }
  throw ConfigError(Printable(where_ + ": missing required key '" + key.name + "' (" + rule + ")"));
}

std::optional<std::vector<double>> ConfigReader::Numbers(const ConfigKey& key) const {
  std::optional<std::string> text = Text(key);
  if (!text) return std::nullopt;
  std::vector<double> values;
  std::istringstream in(*text);
  std::string token;
  while (in >> token) {
    errno = 0;
    char* end = nullptr;
    double x = std::strtod(token.c_str(), &end);
    if (end == token.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(x)) {
      Fail(key, "'" + Excerpt(token) + "' is not a finite number");
    }
    values.push_back(x);
  }
  if (values.empty()) Fail(key, "expected numbers");
  return values;
}

std::optional<std::vector<double>> ConfigReader::Numbers(const ConfigKey& key, size_t n) const {
  std::optional<std::vector<double>> values = Numbers(key);
  if (!values) {
    if (key.required) FailMissing(key, std::to_string(n) + " numbers");
    return std::nullopt;
  }
  if (values->size() != n) {
    Fail(key, "expected " + std::to_string(n) + " numbers, got " +
                  std::to_string(values->size()));
  }
  return values;
}

double ConfigReader::Number(const ConfigKey& key) const {
  std::optional<std::vector<double>> values = Numbers(key, 1);
  if (!values) throw ConfigError(where_ + ": key '" + key.name + "' has no value and no default");
  return (*values)[0];
}

std::optional<Vec3> ConfigReader::Vector3(const ConfigKey& key) const {
  std::optional<std::vector<double>> values = Numbers(key, 3);
  if (!values) return std::nullopt;
  return Vec3((*values)[0], (*values)[1], (*values)[2]);
}

std::optional<Mat6> ConfigReader::Matrix6(const ConfigKey& key) const {
  std::optional<std::vector<double>> values = Numbers(key);
  if (!values) {
    if (key.required) FailMissing(key, "6 numbers (diagonal) or 36 (row-major 6x6)");
    return std::nullopt;
  }
  Mat6 A = Mat6::Zero();
  if (values->size() == 6) {
    for (int i = 0; i < 6; ++i) A(i, i) = (*values)[i];
  } else if (values->size() == 36) {
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) A(i, j) = (*values)[6 * i + j];
    }
  } else {
    Fail(key, "expected 6 numbers (diagonal) or 36 (row-major 6x6), got " +
                  std::to_string(values->size()));
  }
  return A;
}

BodyFrame ConfigReader::Frame(const ConfigKey& key) const {
  BodyFrame frame = BodyFrame::kFRD;
  if (!ParseBodyFrame(Text(key).value_or(""), &frame)) Fail(key, "expected " + NameChoices(kBodyFrameNames, '\''));
  return frame;
}

int ConfigReader::Body(const ConfigKey& key) const {
  if (std::optional<std::string> name = Raw(key)) {
    int id = mj_name2id(m_, mjOBJ_BODY, name->c_str());
    if (id < 0) Fail(key, "no body of that name in the model");
    if (id == 0) Fail(key, "the world body cannot carry marine physics");
    return id;
  }
  for (int b = 1; b < m_->nbody; ++b) {
    if (m_->body_plugin[b] == instance_) return b;
  }
  FailMissing(key, "a body name, or attach the instance with <body><plugin instance=.../>");
}

std::vector<int> FindPluginInstances(const mjModel* m, const char* plugin_name) {
  std::vector<int> ids;
  int slot = -1;
  if (!mjp_getPlugin(plugin_name, &slot)) return ids;
  for (int i = 0; i < m->nplugin; ++i) {
    if (m->plugin[i] == slot) ids.push_back(i);
  }
  return ids;
}

int FindCurrentInstance(const mjModel* m) {
  const std::vector<int> currents = FindPluginInstances(m, kCurrentPlugin);
  return currents.empty() ? -1 : currents.front();
}

std::string PluginInstanceName(const mjModel* m, int instance) { return NameOrId(m, mjOBJ_PLUGIN, instance); }

}  // namespace nereid
