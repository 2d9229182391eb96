// Copyright Nereid authors.
#include "instruments.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "acoustic/acoustic.h"
#include "common/plugin_base.h"
#include "dvl/dvl.h"
#include "marker/marker.h"
#include "nereid/kinematics.h"
#include "nereid/plugins.h"

namespace nereid::viewer {
namespace {

// The sensordata of the <sensor><plugin/> element that shows `instance`, or nullptr.
const mjtNum* Reading(const mjModel* m, const mjData* d, int instance) {
  for (int s = 0; s < m->nsensor; ++s) {
    if (m->sensor_type[s] == mjSENS_PLUGIN && m->sensor_plugin[s] == instance) return d->sensordata + m->sensor_adr[s];
  }
  return nullptr;
}

// The index of `field` in a sensor's field names (its kFields).
template <size_t N>
constexpr int Field(const std::array<const char*, N>& fields, std::string_view field) {
  for (size_t i = 0; i < N; ++i) {
    if (std::string_view(fields[i]) == field) return static_cast<int>(i);
  }
  return -1;
}

// Calls f(sensor, reading, instance) for each instance of the sensor plugin T whose object
// and sensor element the data has.
template <class T, class F>
void ForEachSensor(const mjModel* m, const mjData* d, F&& f) {
  for (int instance : FindPluginInstances(m, T::kName)) {
    const T* sensor = d->plugin_data[instance] ? PluginObject<T>(d, instance) : nullptr;
    const mjtNum* y = Reading(m, d, instance);
    if (sensor && y && sensor->site() >= 0) f(*sensor, y, instance);
  }
}

mjvGeom* Next(mjvScene* scn) { return scn->ngeom < scn->maxgeom ? scn->geoms + scn->ngeom++ : nullptr; }

void Flat(mjvGeom* g) {
  g->emission = 1;  // an overlay's flat colour (overlays.h)
  g->specular = 0;
}

}  // namespace

std::vector<DvlDrawing> DvlDrawings(const mjModel* m, const mjData* d) {
  std::vector<DvlDrawing> out;
  ForEachSensor<Dvl>(m, d, [&](const Dvl& dvl, const mjtNum* y, int instance) {
    constexpr int kStatus = Field(Dvl::kFields, "status"), kRange0 = Field(Dvl::kFields, "range0");
    static_assert(kStatus >= 0 && kRange0 >= 0);
    DvlDrawing drawing;
    drawing.name = PluginInstanceName(m, instance);
    drawing.status = static_cast<int>(y[kStatus]);
    const Vec3 p = SitePosition(d, dvl.site());
    const Mat3 R = SiteRotation(d, dvl.site());
    const std::vector<Vec3>& beams = dvl.beams();  // unit, site frame, at beam_angle from +z
    for (size_t i = 0; i < beams.size(); ++i) {
      const double range = y[kRange0 + i];
      DvlBeamSegment beam;
      beam.from = p;
      beam.hit = range >= 0;
      beam.to = p + (beam.hit ? range : dvl.max_altitude() / beams[i].z()) * (R * beams[i]);
      drawing.beams.push_back(beam);
    }
    out.push_back(std::move(drawing));
  });
  return out;
}

double ReadingAge(double t, double period, double latency) {
  if (t < latency || !(period > 0)) return t;
  return latency + std::fmod(t - latency, period);
}

float FixOpacity(double age, double period) {
  if (!(period > 0)) return 1;
  const double fade = std::clamp(age / (2 * period), 0.0, 1.0);
  return static_cast<float>(1 - (1 - kMinFixOpacity) * fade);
}

std::vector<AcousticFixDrawing> AcousticFixDrawings(const mjModel* m, const mjData* d) {
  std::vector<AcousticFixDrawing> out;
  ForEachSensor<Acoustic>(m, d, [&](const Acoustic& acoustic, const mjtNum* y, int instance) {
    constexpr int kX = Field(Acoustic::kFields, "x"), kValid = Field(Acoustic::kFields, "valid");
    static_assert(kX >= 0 && kValid >= 0);
    AcousticFixDrawing fix;
    fix.name = PluginInstanceName(m, instance);
    fix.valid = y[kValid] > 0.5;
    fix.fix = Vec3(y[kX], y[kX + 1], y[kX + 2]);
    fix.period = acoustic.period();
    fix.age = ReadingAge(d->time, fix.period, acoustic.latency());
    out.push_back(std::move(fix));
  });
  return out;
}

std::vector<MarkerDrawing> MarkerDrawings(const mjModel* m, const mjData* d) {
  std::vector<MarkerDrawing> out;
  ForEachSensor<Marker>(m, d, [&](const Marker& marker, const mjtNum* y, int instance) {
    constexpr int kX = Field(Marker::kFields, "x"), kValid = Field(Marker::kFields, "valid");
    static_assert(kX >= 0 && kValid >= 0);
    MarkerDrawing drawing;
    drawing.name = PluginInstanceName(m, instance);
    drawing.valid = y[kValid] > 0.5;
    drawing.camera = SitePosition(d, marker.site());
    drawing.seen = drawing.camera + SiteRotation(d, marker.site()) * Vec3(y[kX], y[kX + 1], y[kX + 2]);
    drawing.age = ReadingAge(d->time, marker.period(), marker.latency());
    out.push_back(std::move(drawing));
  });
  return out;
}

void AddMarkerSightings(const std::vector<MarkerDrawing>& markers, double size, mjvScene* scn) {
  for (const MarkerDrawing& marker : markers) {
    if (!marker.valid) continue;
    mjvGeom* g = Next(scn);
    if (!g) return;
    mjv_initGeom(g, mjGEOM_LINE, nullptr, nullptr, nullptr, kMarkerRgba.data());
    Flat(g);
    mjv_connector(g, mjGEOM_LINE, 2, marker.camera.data(), marker.seen.data());
    if (!(g = Next(scn))) return;
    const mjtNum radius[3] = {size, 0, 0};
    mjv_initGeom(g, mjGEOM_SPHERE, radius, marker.seen.data(), nullptr, kMarkerRgba.data());
    Flat(g);
    std::snprintf(g->label, sizeof(g->label), "%s %.1f s", marker.name.c_str(), marker.age);
  }
}

void AddInstruments(const std::vector<DvlDrawing>& dvls, const std::vector<AcousticFixDrawing>& fixes,
                    const float lock_rgba[4], double size, mjvScene* scn) {
  for (const DvlDrawing& dvl : dvls) {
    const float* rgba = dvl.status == Dvl::kBottomLock  ? lock_rgba
                        : dvl.status == Dvl::kWaterTrack ? kWaterTrackRgba.data()
                                                         : kNoLockRgba.data();
    for (const DvlBeamSegment& beam : dvl.beams) {
      mjvGeom* g = Next(scn);
      if (!g) return;
      mjv_initGeom(g, mjGEOM_LINE, nullptr, nullptr, nullptr, rgba);
      Flat(g);
      mjv_connector(g, mjGEOM_LINE, beam.hit ? 3 : 1, beam.from.data(), beam.to.data());
      if (!beam.hit) continue;
      if (!(g = Next(scn))) return;
      const mjtNum radius[3] = {size, 0, 0};
      mjv_initGeom(g, mjGEOM_SPHERE, radius, beam.to.data(), nullptr, rgba);
      Flat(g);
    }
  }
  for (const AcousticFixDrawing& fix : fixes) {
    if (!fix.valid) continue;
    mjvGeom* g = Next(scn);
    if (!g) return;
    float rgba[4] = {kFixRgba[0], kFixRgba[1], kFixRgba[2], FixOpacity(fix.age, fix.period)};
    const mjtNum radius[3] = {2 * size, 0, 0};
    mjv_initGeom(g, mjGEOM_SPHERE, radius, fix.fix.data(), nullptr, rgba);
    Flat(g);
    std::snprintf(g->label, sizeof(g->label), "%s %.1f s", fix.name.c_str(), fix.age);
  }
}

void AddGhost(const mjModel* m, const mjData* d, const std::vector<int>& bodies, int body,
              const Vec3& position, const Mat3& rotation, const float rgba[4], mjvScene* scn) {
  if (body < 0 || body >= m->nbody) return;
  const Vec3 x(d->xpos[3 * body], d->xpos[3 * body + 1], d->xpos[3 * body + 2]);
  Mat3 R;
  const mjtNum* r = d->xmat + 9 * body;
  R << r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8];
  const Mat3 turn = rotation * R.transpose();  // world from world: truth to estimate
  const int drawn = scn->ngeom;
  for (int i = 0; i < drawn; ++i) {
    const mjvGeom& geom = scn->geoms[i];
    if (geom.objtype != mjOBJ_GEOM || geom.objid < 0 || geom.objid >= m->ngeom) continue;
    if (std::find(bodies.begin(), bodies.end(), m->geom_bodyid[geom.objid]) == bodies.end()) continue;
    mjvGeom* g = Next(scn);
    if (!g) return;
    *g = geom;
    const Vec3 p(geom.pos[0], geom.pos[1], geom.pos[2]);
    const Vec3 moved = position + turn * (p - x);
    Mat3 G;
    G << geom.mat[0], geom.mat[1], geom.mat[2], geom.mat[3], geom.mat[4], geom.mat[5], geom.mat[6], geom.mat[7],
        geom.mat[8];
    const Mat3 turned = turn * G;
    for (int k = 0; k < 3; ++k) {
      g->pos[k] = static_cast<float>(moved[k]);
      for (int c = 0; c < 3; ++c) g->mat[3 * k + c] = static_cast<float>(turned(k, c));
    }
    std::copy(rgba, rgba + 4, g->rgba);
    g->emission = 0.5f;
    g->objtype = mjOBJ_UNKNOWN;  // drawn only: not selectable, not one of the model's geoms
    g->objid = -1;
    g->category = mjCAT_DECOR;
    g->label[0] = 0;
  }
}

}  // namespace nereid::viewer
