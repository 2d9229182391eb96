// Copyright Nereid authors.
#include "vms/vms_config.h"

#include <algorithm>
#include <cmath>

#include "json_reader.h"
#include "nereid/error.h"

namespace nereid {
namespace {

using nlohmann::json;

using VmsReader = detail::JsonReader;

// Key `key` of `table` in object j, a number; the table's default when j leaves it out.
double TableNumber(const VmsReader& r, const json& j, const std::string& path, const detail::JsonObject& table,
                   const char* key) {
  return r.Number(j, path, key, json::parse(table.At(key).fallback).get<double>());
}

// a number (constant) or {"sine": {...}} / {"ramp": {...}} / {"linear": {...}}
Signal ReadSignal(const VmsReader& r, const json& value, const std::string& path) {
  Signal s;
  if (value.is_number()) {
    s.value = r.Number(value, path);
    return s;
  }
  r.Keys(value, path, detail::kSignalKeys);
  r.ExactlyOne(value, path, detail::kSignalKeys, "give a number or exactly one of");
  if (value.contains("sine")) {
    const json& j = value["sine"];
    const std::string p = path + "/sine";
    r.Keys(j, p, detail::kSineKeys);
    s.kind = Signal::Kind::kSine;
    s.amplitude = r.Number(j["amplitude"], p + "/amplitude");
    s.period = r.Number(j["period"], p + "/period");
    if (!(s.period > 0)) r.Fail(p + "/period", "must be > 0 (s)", &j["period"]);
    s.phase = TableNumber(r, j, p, detail::kSineKeys, "phase");
    s.offset = TableNumber(r, j, p, detail::kSineKeys, "offset");
    s.start = r.Number(j, p, "start", -Signal::kInf);  // the table's "−inf" (no JSON number)
    s.end = r.Number(j, p, "end", Signal::kInf);        // its "inf"
    s.value = TableNumber(r, j, p, detail::kSineKeys, "outside");
    if (!(s.end > s.start)) r.Fail(p + "/end", "must be later than start", j.contains("end") ? &j["end"] : nullptr);
  } else if (value.contains("ramp")) {
    const json& j = value["ramp"];
    const std::string p = path + "/ramp";
    r.Keys(j, p, detail::kRampKeys);
    s.kind = Signal::Kind::kRamp;
    s.start = r.Number(j["start"], p + "/start");
    s.end = r.Number(j["end"], p + "/end");
    s.from = TableNumber(r, j, p, detail::kRampKeys, "from");
    s.to = r.Number(j["to"], p + "/to");
    if (!(s.end > s.start)) r.Fail(p + "/end", "must be later than start", &j["end"]);
  } else {
    const json& j = value["linear"];
    const std::string p = path + "/linear";
    r.Keys(j, p, detail::kLinearKeys);
    s.kind = Signal::Kind::kLinear;
    s.offset = TableNumber(r, j, p, detail::kLinearKeys, "offset");
    s.rate = r.Number(j["rate"], p + "/rate");
  }
  return s;
}



VehiclePdSpec ReadVehicle(const VmsReader& r, const json& j, const std::string& path) {
  r.Keys(j, path, detail::kVehiclePdKeys);
  VehiclePdSpec v;
  v.body = r.String(j["body"], path + "/body");
  for (const char* key : {"kp", "kd"}) {
    const std::vector<double> g = r.Numbers(j[key], path + "/" + key, 6);
    for (size_t i = 0; i < 6; ++i) {
      if (g[i] < 0) r.Fail(path + "/" + key + "/" + std::to_string(i), "gains must be >= 0", &j[key][i]);
      (std::string(key) == "kp" ? v.kp : v.kd)[static_cast<Eigen::Index>(i)] = g[i];
    }
  }
  if (j.contains("active")) {
    const json& a = j["active"];
    if (!a.is_array() || a.size() != 6) r.Fail(path + "/active", "expected an array of 6 true/false", &a);
    for (size_t i = 0; i < 6; ++i) {
      if (!a[i].is_boolean()) r.Fail(path + "/active/" + std::to_string(i), "expected true or false", &a[i]);
      v.active[i] = a[i].get<bool>();
    }
  }
  if (j.contains("origin")) {
    const std::vector<double> o = r.Numbers(j["origin"], path + "/origin", 3);
    v.origin = Vec3(o[0], o[1], o[2]);
  }
  if (j.contains("reference")) {
    const json& ref = j["reference"];
    const std::string p = path + "/reference";
    r.Keys(ref, p, detail::kVehicleReferenceKeys);
    for (size_t i = 0; i < 6; ++i) {  // the table's order: x y z phi theta psi
      const std::string name(detail::kVehicleReferenceKeys.keys[i].name);
      if (ref.contains(name)) v.reference[i] = ReadSignal(r, ref[name], p + "/" + name);
    }
  }
  return v;
}

JointLoopSpec ReadJoint(const VmsReader& r, const json& j, const std::string& path) {
  r.Keys(j, path, detail::kJointLoopKeys);
  JointLoopSpec js;
  js.path = path;
  js.joint = r.String(j["joint"], path + "/joint");
  js.actuator = r.String(j["actuator"], path + "/actuator");
  if (j.contains("mode") && r.Choice(j["mode"], path + "/mode", detail::kJointLoopKeys.At("mode")) == "computed_torque") {
    js.mode = JointLoopSpec::Mode::kComputedTorque;
  }
  const bool pid = js.mode == JointLoopSpec::Mode::kPid;
  const json& g = j["gains"];
  const std::vector<double> gains = r.Numbers(g, path + "/gains", pid ? 3 : 2);
  for (size_t i = 0; i < gains.size(); ++i) {
    if (gains[i] < 0) r.Fail(path + "/gains/" + std::to_string(i), "gains must be >= 0", &g[i]);
  }
  js.kp = gains[0];
  if (pid) {
    js.ki = gains[1];
    js.kd = gains[2];
  } else {
    js.kd = gains[1];
  }
  if (j.contains("angle_units")) {
    // gains given per degree of joint error (as a paper may print them): per radian they
    // are 180/pi times larger (P, I and D alike)
    if (r.Choice(j["angle_units"], path + "/angle_units", detail::kJointLoopKeys.At("angle_units")) == "deg") {
      js.kp *= 180 / M_PI;
      js.ki *= 180 / M_PI;
      js.kd *= 180 / M_PI;
    }
  }
  if (j.contains("reference")) js.reference = ReadSignal(r, j["reference"], path + "/reference");
  return js;
}

ArmIkSpec ReadIk(const VmsReader& r, const json& j, const std::string& path) {
  r.Keys(j, path, detail::kIkKeys);
  ArmIkSpec ik;
  ik.path = path;
  const json& joints = j["joints"];
  if (!joints.is_array() || joints.size() != 3) r.Fail(path + "/joints", "expected 3 joint names (q1, q2, q3)", &joints);
  for (size_t i = 0; i < 3; ++i) ik.joints[i] = r.String(joints[i], path + "/joints/" + std::to_string(i));
  const std::vector<double> l = r.Numbers(j["link_lengths"], path + "/link_lengths", 2);
  if (!(l[0] > 0) || !(l[1] > 0)) r.Fail(path + "/link_lengths", "lengths must be > 0 (m)", &j["link_lengths"]);
  ik.l2 = l[0];
  ik.l3 = l[1];
  if (j.contains("elbow")) {
    const json& e = j["elbow"];
    const std::vector<std::string>& allowed = detail::kIkKeys.At("elbow").allowed;  // "1", "-1"
    if (std::find(allowed.begin(), allowed.end(), e.dump()) == allowed.end()) {
      r.Fail(path + "/elbow", "expected " + allowed.front() + " or " + allowed.back() + " (the sign of q3)", &e);
    }
    ik.elbow = e.get<int>();
  }
  const json& target = j["target"];
  r.Keys(target, path + "/target", detail::kIkTargetKeys);
  for (size_t i = 0; i < 3; ++i) {  // the table's order: x y z
    const std::string name(detail::kIkTargetKeys.keys[i].name);
    ik.target[i] = ReadSignal(r, target[name], path + "/target/" + name);
  }
  return ik;
}

}  // namespace

bool IsVmsController(const json& block) {
  return block.is_object() && block.contains("type") && block["type"] == "vms";
}

VmsControllerSpec ReadVmsController(const json& block, const std::string& source, const std::string& path) {
  // list sizes from the user are bounded: every joint loop and monitored body costs work
  // and log columns in every step (the computed-torque solve grows with the loops squared)
  constexpr size_t kMaxEntries = 64;
  VmsReader r(source);
  auto bounded = [&](const json& list, const std::string& at, const char* what) {
    if (!list.is_array()) r.Fail(at, std::string("expected an array of ") + what, &list);
    if (list.size() > kMaxEntries) {
      r.Fail(at, std::to_string(list.size()) + " " + what + "; at most " + std::to_string(kMaxEntries));
    }
  };
  r.Keys(block, path, detail::kVmsControllerKeys);
  VmsControllerSpec spec;
  spec.path = path;
  if (block.contains("vehicle")) spec.vehicle = ReadVehicle(r, block["vehicle"], path + "/vehicle");
  if (block.contains("joints")) {
    const json& list = block["joints"];
    bounded(list, path + "/joints", "joint loops");
    for (size_t i = 0; i < list.size(); ++i) {
      spec.joints.push_back(ReadJoint(r, list[i], path + "/joints/" + std::to_string(i)));
      for (size_t k = 0; k < i; ++k) {
        if (spec.joints[k].joint == spec.joints[i].joint) {
          r.Fail(path + "/joints/" + std::to_string(i) + "/joint",
                 "joint '" + Excerpt(spec.joints[i].joint) + "' already has a loop (" + path + "/joints/" +
                     std::to_string(k) + ")");
        }
      }
    }
  }
  if (block.contains("ik")) {
    const json& list = block["ik"];
    bounded(list, path + "/ik", "arms");
    for (size_t i = 0; i < list.size(); ++i) spec.ik.push_back(ReadIk(r, list[i], path + "/ik/" + std::to_string(i)));
  }
  if (block.contains("monitor")) {
    const json& list = block["monitor"];
    bounded(list, path + "/monitor", "body names");
    for (size_t i = 0; i < list.size(); ++i) {
      spec.monitor.push_back(r.String(list[i], path + "/monitor/" + std::to_string(i)));
    }
  }
  if (!spec.vehicle && spec.joints.empty()) r.Fail(path, "give a vehicle block, joints, or both");
  return spec;
}

}  // namespace nereid
