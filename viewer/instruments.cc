// Copyright Nereid authors.
#include "instruments.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "nereid/kinematics.h"
#include "nereid/plugins.h"

namespace nereid::viewer {
namespace {

// A sensor instance, its mount and its delivered reading (sensordata).
struct MountedReading {
  int instance = -1;
  SensorMount mount;
  const mjtNum* y = nullptr;
};

// Calls f(reading) for each instance of the sensor plugin `plugin` whose object and sensor
// element the data has and that sits on a site.
template <class F>
void ForEachSensor(const mjModel* m, const mjData* d, const char* plugin, F&& f) {
  for (int instance : FindPluginInstances(m, plugin)) {
    std::optional<SensorMount> mount = SensorMountOf(m, d, instance);
    if (!mount || mount->sensor < 0 || mount->site < 0) continue;
    const mjtNum* y = d->sensordata + m->sensor_adr[mount->sensor];
    f(MountedReading{instance, std::move(*mount), y});
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
  ForEachSensor(m, d, kDvlPlugin, [&](const MountedReading& r) {
    const int status = SensorFieldIndex(m, r.mount.sensor, "status");
    const int range0 = SensorFieldIndex(m, r.mount.sensor, "range0");
    if (status < 0 || range0 < 0) return;
    DvlDrawing drawing;
    drawing.name = PluginInstanceName(m, r.instance);
    drawing.status = static_cast<int>(r.y[status]);
    const Vec3 p = SitePosition(d, r.mount.site);
    const Mat3 R = SiteRotation(d, r.mount.site);
    const std::vector<Vec3>& beams = r.mount.beams;  // unit, site frame, at beam_angle from +z
    for (size_t i = 0; i < beams.size(); ++i) {
      const double range = r.y[static_cast<size_t>(range0) + i];
      DvlBeamSegment beam;
      beam.from = p;
      beam.hit = range >= 0;
      beam.to = p + (beam.hit ? range : r.mount.max_altitude / beams[i].z()) * (R * beams[i]);
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
  ForEachSensor(m, d, kAcousticPlugin, [&](const MountedReading& r) {
    const int x = SensorFieldIndex(m, r.mount.sensor, "x"), valid = SensorFieldIndex(m, r.mount.sensor, "valid");
    if (x < 0 || valid < 0) return;
    AcousticFixDrawing fix;
    fix.name = PluginInstanceName(m, r.instance);
    fix.valid = r.y[valid] > 0.5;
    fix.fix = Vec3(r.y[x], r.y[x + 1], r.y[x + 2]);
    fix.period = r.mount.period;
    fix.age = ReadingAge(d->time, fix.period, r.mount.latency);
    out.push_back(std::move(fix));
  });
  return out;
}

std::vector<MarkerDrawing> MarkerDrawings(const mjModel* m, const mjData* d) {
  std::vector<MarkerDrawing> out;
  ForEachSensor(m, d, kMarkerPlugin, [&](const MountedReading& r) {
    const int x = SensorFieldIndex(m, r.mount.sensor, "x"), valid = SensorFieldIndex(m, r.mount.sensor, "valid");
    if (x < 0 || valid < 0) return;
    MarkerDrawing drawing;
    drawing.name = PluginInstanceName(m, r.instance);
    drawing.valid = r.y[valid] > 0.5;
    drawing.camera = SitePosition(d, r.mount.site);
    drawing.seen = drawing.camera + SiteRotation(d, r.mount.site) * Vec3(r.y[x], r.y[x + 1], r.y[x + 2]);
    drawing.age = ReadingAge(d->time, r.mount.period, r.mount.latency);
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
    const float* rgba = dvl.status == sensors::kDvlBottomLock  ? lock_rgba
                        : dvl.status == sensors::kDvlWaterTrack ? kWaterTrackRgba.data()
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
