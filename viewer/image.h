// Copyright Nereid authors.
// RGB images, PNG files (8-bit RGB/RGBA, written and read with zlib), and the checks the
// headless test makes on a screenshot.
#ifndef NEREID_VIEWER_IMAGE_H_
#define NEREID_VIEWER_IMAGE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

namespace nereid::viewer {

using Rgb = std::array<uint8_t, 3>;

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // row-major, top row first, 3 bytes per pixel

  Rgb at(int x, int y) const;
  // An image read from OpenGL (bottom row first) turned upright.
  static Image FromBottomUp(int width, int height, const uint8_t* rgb);
};

// Writes an 8-bit RGB PNG. `level` is zlib's compression level (1: fast, for video
// frames). Returns false with a message on failure.
bool WritePng(const std::string& path, const Image& image, std::string* error, int level = 6);
// Reads an 8-bit, non-interlaced RGB or RGBA PNG (alpha dropped).
bool ReadPng(const std::string& path, Image* image, std::string* error);

// Largest per-channel difference.
int ColourDistance(const Rgb& a, const Rgb& b);
// Pixels within `tolerance` (per channel) of `colour`.
long CountNear(const Image& image, const Rgb& colour, int tolerance);
// Median colour of the four corner patches (size x size pixels each): the background.
Rgb CornerBackground(const Image& image, int size = 8);
// Fraction of pixels in the (2 r + 1)^2 window around (x, y), clipped to the image, that
// differ from `background` by more than `tolerance`.
double FractionDiffering(const Image& image, int x, int y, int r, const Rgb& background,
                         int tolerance);
// Number of distinct colours (a uniform image has one).
long DistinctColours(const Image& image);

// The pixel (x right, y down from the top-left corner) where a world point appears for an
// OpenGL camera of the scene (mjvScene::camera[0] after mjv_updateScene) rendered into a
// width x height viewport; nullopt behind the camera or outside the image.
struct Pixel { int x, y; };
std::optional<Pixel> Project(const mjvGLCamera& camera, int width, int height,
                             const double point[3]);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_IMAGE_H_
