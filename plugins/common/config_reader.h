// Copyright Nereid authors.
// Reading a plugin instance's <config> keys with errors that name the plugin, the
// instance, the key and the offending value.
#ifndef NEREID_PLUGINS_COMMON_CONFIG_READER_H_
#define NEREID_PLUGINS_COMMON_CONFIG_READER_H_

#include <optional>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/frames.h"

namespace nereid {

class ConfigReader {
 public:
  ConfigReader(const mjModel* m, int instance, const char* plugin_name);

  // The raw text of a key, or nullopt when absent (or empty).
  std::optional<std::string> Raw(const char* key) const;
  bool Has(const char* key) const { return Raw(key).has_value(); }
  // Whitespace-separated finite numbers; throws if any token is not one.
  std::optional<std::vector<double>> Numbers(const char* key) const;
  // Exactly `n` numbers; throws if absent (when required) or of another count.
  std::optional<std::vector<double>> Numbers(const char* key, size_t n, bool required) const;
  double Number(const char* key, double fallback) const;
  std::optional<Vec3> Vector3(const char* key, bool required) const;
  // 6 values (diagonal) or 36 (row-major 6x6); throws otherwise.
  std::optional<Mat6> Matrix6(const char* key, bool required) const;
  // The body: the `body` key (a body name), else the body that references the instance.
  int Body() const;

  // "<plugin> instance '<name>'", the prefix of every message.
  const std::string& where() const { return where_; }
  // Throws ConfigError "<where>: key '<key>' = '<value>': <rule>".
  [[noreturn]] void Fail(const char* key, const std::string& rule) const;
  [[noreturn]] void FailMissing(const char* key, const std::string& rule) const;

 private:
  const mjModel* m_;
  int instance_;
  std::string where_;
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_COMMON_CONFIG_READER_H_
