// Copyright Nereid authors.
// Reading a plugin instance's <config> keys with errors that name the plugin, the
// instance, the key and the offending value.
#ifndef NEREID_PLUGINS_COMMON_CONFIG_READER_H_
#define NEREID_PLUGINS_COMMON_CONFIG_READER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/config_key.h"
#include "nereid/frames.h"
#include "nereid/plugins.h"

namespace nereid {

class ConfigReader {
 public:
  ConfigReader(const mjModel* m, int instance, const char* plugin_name);
  // Keys from another source than a model's <config> (a scenario's JSON object, through
  // nereid::WavesFromKeys): `text` gives a key's text as a user wrote it, `fail` throws
  // that source's ConfigError naming the key and its value (include/nereid/plugins.h).
  ConfigReader(std::string where, KeyText text, KeyFail fail);

  // The user's text of a key, or nullopt when absent (or empty).
  std::optional<std::string> Raw(const ConfigKey& key) const;
  bool Has(const ConfigKey& key) const { return Raw(key).has_value(); }
  // The user's text, else the key's default text (ConfigKey::fallback), else nullopt.
  std::optional<std::string> Text(const ConfigKey& key) const;
  // Text(key) as whitespace-separated finite numbers (nullopt without text); throws if any
  // token is not one.
  std::optional<std::vector<double>> Numbers(const ConfigKey& key) const;
  // Exactly `n` numbers; throws if of another count, or absent from a required key.
  std::optional<std::vector<double>> Numbers(const ConfigKey& key, size_t n) const;
  // One number: the given one, else the key's default (a key without either throws).
  double Number(const ConfigKey& key) const;
  std::optional<Vec3> Vector3(const ConfigKey& key) const;
  // 6 values (diagonal) or 36 (row-major 6x6); throws otherwise.
  std::optional<Mat6> Matrix6(const ConfigKey& key) const;
  // The body: `key`'s value (a body name), else the body that references the instance.
  int Body(const ConfigKey& key) const;
  // A body frame (nereid/frames.h): `key`'s value, else its default.
  BodyFrame Frame(const ConfigKey& key) const;

  // "<plugin> instance '<name>'", the prefix of every message.
  const std::string& where() const { return where_; }
  // Throws ConfigError "<where>: key '<key>' = '<value>': <rule>".
  [[noreturn]] void Fail(const ConfigKey& key, const std::string& rule) const;
  [[noreturn]] void FailMissing(const ConfigKey& key, const std::string& rule) const;

 private:
  const mjModel* m_ = nullptr;
  int instance_ = -1;
  std::string where_;
  KeyText text_;  // set: keys from another source than the model
  KeyFail fail_;
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_COMMON_CONFIG_READER_H_
