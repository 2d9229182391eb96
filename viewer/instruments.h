// Copyright Nereid authors.
// The `sensors` overlay: what the model's nereid.dvl, nereid.acoustic and nereid.marker
// sensors read, as geometry. The builders are pure (they read the model, the data and the sensors' mounts,
// nereid::SensorMountOf, and return segments and points), so tests check them without a window; the
// Add* functions append them to an mjvScene after mjv_updateScene, as the other overlays.
// Nothing is measured again here: a beam ends where the DVL's reported range puts it, and
// the fix is where the acoustic sensor's reading says.
#ifndef NEREID_VIEWER_INSTRUMENTS_H_
#define NEREID_VIEWER_INSTRUMENTS_H_

#include <array>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/frames.h"

namespace nereid::viewer {

struct DvlBeamSegment {
  Vec3 from = Vec3::Zero();  // the DVL's site, world
  Vec3 to = Vec3::Zero();    // the hit point (site + range * direction), or the maximum range
  bool hit = false;          // the beam has a range (its `rangeN` field >= 0)
};

struct DvlDrawing {
  std::string name;  // the plugin instance's name
  int status = 0;    // the reading's `status`: 0 no lock, 1 bottom lock, 2 water track
  std::vector<DvlBeamSegment> beams;
};

// Every nereid.dvl instance of the model as its delivered reading shows it now: per beam,
// a segment from the site along the plugin's own beam direction (SensorMount::beams, rotated by
// the site's orientation in `d`) to site + range * direction when the beam has a range,
// else to the maximum range, max_altitude / cos(beam angle). The reading is sampled and
// held at the sensor's rate (and delivered after its latency); the segments start at the
// site's current position. Instances without a sensor element or object are skipped.
std::vector<DvlDrawing> DvlDrawings(const mjModel* m, const mjData* d);

struct AcousticFixDrawing {
  std::string name;
  bool valid = false;        // the reading's `valid` field
  Vec3 fix = Vec3::Zero();   // the reading's x, y, z (world)
  double age = 0;            // s since the delivered fix was taken (ReadingAge)
  double period = 0;         // s between fixes (1 / rate)
};

// Every nereid.acoustic instance's delivered fix, with its age at d->time.
std::vector<AcousticFixDrawing> AcousticFixDrawings(const mjModel* m, const mjData* d);

struct MarkerDrawing {
  std::string name;
  bool valid = false;          // the reading's `valid` field
  Vec3 camera = Vec3::Zero();  // the camera's site now, world
  Vec3 seen = Vec3::Zero();    // where the reading puts the marker: camera + R_c (x, y, z), world
  double age = 0;              // s since the delivered frame was taken (ReadingAge)
};

// Every nereid.marker instance's delivered reading: the marker where the camera reports it,
// seen from the camera's current pose (a reading taken `age` ago on a moving vehicle is
// drawn from where the camera is now, as the vehicle would use it).
std::vector<MarkerDrawing> MarkerDrawings(const mjModel* m, const mjData* d);

// The age at time t of the reading a sample-and-hold sensor delivers, sampling every
// `period` from t = 0 (its clock's start after a reset) with `latency`: the newest sample
// instant k period <= t - latency is delivered, so the age is latency + ((t - latency) mod
// period). Before the first delivery (t < latency) it is t.
double ReadingAge(double t, double period, double latency);
// The fix marker's opacity: 1 when fresh, falling linearly to kMinFixOpacity at an age of
// two periods and staying there.
inline constexpr float kMinFixOpacity = 0.25f;
float FixOpacity(double age, double period);

// Colours: a beam of a DVL with bottom lock takes the overlay's colour; water track and no
// lock their own; the acoustic fix its own (its alpha fades with age).
inline constexpr std::array<float, 4> kWaterTrackRgba = {0, 0.5f, 1, 1};
inline constexpr std::array<float, 4> kNoLockRgba = {0.5f, 0.5f, 0.5f, 1};
inline constexpr std::array<float, 4> kFixRgba = {1, 0, 0.5f, 1};
inline constexpr std::array<float, 4> kMarkerRgba = {1, 0.85f, 0, 1};

// Appends the `sensors` overlay: each DVL beam as a line (3 pixels with a range, 1 without),
// each hit point as a small sphere, each valid acoustic fix as a sphere labelled with its
// age. `lock_rgba` is the overlay's colour; `size` the spheres' radius (m). Stops quietly
// when the scene is full.
void AddInstruments(const std::vector<DvlDrawing>& dvls, const std::vector<AcousticFixDrawing>& fixes,
                    const float lock_rgba[4], double size, mjvScene* scn);

// Appends each valid marker reading: a line from the camera to where it sees the marker
// and a sphere there labelled with the reading's age. Stops quietly when the scene is full.
void AddMarkerSightings(const std::vector<MarkerDrawing>& markers, double size, mjvScene* scn);

// The estimate's ghost: appends a translucent copy of the geoms MuJoCo drew into scn
// (mjv_updateScene) for the bodies in `bodies`, moved rigidly by the transform that takes
// `body`'s pose in d to the estimated pose (`position`, world-from-body `rotation`), in
// `rgba` (its alpha included). With the estimate equal to the truth the ghost covers the
// vehicle exactly. Stops quietly when the scene is full.
void AddGhost(const mjModel* m, const mjData* d, const std::vector<int>& bodies, int body,
              const Vec3& position, const Mat3& rotation, const float rgba[4], mjvScene* scn);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_INSTRUMENTS_H_
