// Copyright Nereid authors.
#include "image.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>

#include "nereid/output.h"

namespace nereid::viewer {
namespace {

constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

void PutU32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xff));
}

uint32_t GetU32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// length, type, data, CRC of type + data
void PutChunk(std::string* out, const char type[4], const std::string& data) {
  PutU32(out, static_cast<uint32_t>(data.size()));
  std::string body(type, 4);
  body += data;
  out->append(body);
  PutU32(out, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()),
                                          static_cast<uInt>(body.size()))));
}

// PNG's Paeth predictor (filter type 4)
int Paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

bool Fail(std::string* error, const std::string& message) {
  if (error) *error = message;
  return false;
}

}  // namespace

Rgb Image::at(int x, int y) const {
  const uint8_t* p = rgb.data() + 3 * (static_cast<size_t>(y) * width + x);
  return {p[0], p[1], p[2]};
}

Image Image::FromBottomUp(int width, int height, const uint8_t* rgb) {
  Image image{width, height, std::vector<uint8_t>(3 * static_cast<size_t>(width) * height)};
  const size_t row = 3 * static_cast<size_t>(width);
  for (int y = 0; y < height; ++y) {
    std::copy(rgb + (height - 1 - y) * row, rgb + (height - y) * row, image.rgb.begin() + y * row);
  }
  return image;
}

bool WritePng(const std::string& path, const Image& image, std::string* error, int level) {
  // raw scanlines, each with filter byte 0 (none)
  const size_t row = 3 * static_cast<size_t>(image.width);
  std::string raw;
  raw.reserve((row + 1) * image.height);
  for (int y = 0; y < image.height; ++y) {
    raw.push_back(0);
    raw.append(reinterpret_cast<const char*>(image.rgb.data()) + y * row, row);
  }
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string compressed(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(compressed.data()), &size,
                reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()),
                level) != Z_OK) {
    return Fail(error, path + ": zlib compression failed");
  }
  compressed.resize(size);

  std::string header;
  PutU32(&header, static_cast<uint32_t>(image.width));
  PutU32(&header, static_cast<uint32_t>(image.height));
  header += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bit, RGB, deflate, filters, no interlace
  std::string png(reinterpret_cast<const char*>(kSignature), 8);
  PutChunk(&png, "IHDR", header);
  PutChunk(&png, "IDAT", compressed);
  PutChunk(&png, "IEND", "");
  try {
    // checked writes, flush and close, then renamed: never half an image (nereid/output.h)
    WriteOutputFile(path, png);
  } catch (const OutputError& e) {
    return Fail(error, e.what());
  }
  return true;
}

bool ReadPng(const std::string& path, Image* image, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(error, path + ": cannot open");
  const std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < 8 || !std::equal(kSignature, kSignature + 8, file.begin())) {
    return Fail(error, path + ": not a PNG file");
  }
  int channels = 0;
  std::vector<uint8_t> idat;
  for (size_t pos = 8; pos + 12 <= file.size();) {
    const uint32_t length = GetU32(&file[pos]);
    if (pos + 12 + length > file.size()) return Fail(error, path + ": truncated chunk");
    const std::string type(reinterpret_cast<const char*>(&file[pos + 4]), 4);
    const uint8_t* data = &file[pos + 8];
    if (type == "IHDR") {
      image->width = static_cast<int>(GetU32(data));
      image->height = static_cast<int>(GetU32(data + 4));
      const uint8_t depth = data[8], colour = data[9], interlace = data[12];
      if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0) {
        return Fail(error, path + ": only 8-bit non-interlaced RGB or RGBA PNGs are read");
      }
      channels = colour == 2 ? 3 : 4;
    } else if (type == "IDAT") {
      idat.insert(idat.end(), data, data + length);
    } else if (type == "IEND") {
      break;
    }
    pos += 12 + length;
  }
  if (channels == 0 || image->width <= 0 || image->height <= 0) {
    return Fail(error, path + ": no image header");
  }
  const size_t stride = static_cast<size_t>(channels) * image->width;
  uLongf size = static_cast<uLongf>((stride + 1) * image->height);
  std::vector<uint8_t> raw(size);
  if (uncompress(raw.data(), &size, idat.data(), static_cast<uLong>(idat.size())) != Z_OK ||
      size != raw.size()) {
    return Fail(error, path + ": corrupt image data");
  }
  // undo the per-scanline filters in place (a: left, b: up, c: up-left)
  std::vector<uint8_t> pixels(stride * image->height);
  for (int y = 0; y < image->height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in_row = &raw[y * (stride + 1) + 1];
    uint8_t* row = &pixels[y * stride];
    const uint8_t* up = y > 0 ? row - stride : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<size_t>(channels) ? row[i - channels] : 0;
      const int b = up ? up[i] : 0;
      const int c = up && i >= static_cast<size_t>(channels) ? up[i - channels] : 0;
      int predictor = 0;
      switch (filter) {
        case 0: predictor = 0; break;
        case 1: predictor = a; break;
        case 2: predictor = b; break;
        case 3: predictor = (a + b) / 2; break;
        case 4: predictor = Paeth(a, b, c); break;
        default: return Fail(error, path + ": unknown PNG filter " + std::to_string(filter));
      }
      row[i] = static_cast<uint8_t>(in_row[i] + predictor);
    }
  }
  image->rgb.resize(3 * static_cast<size_t>(image->width) * image->height);
  for (size_t p = 0; p < static_cast<size_t>(image->width) * image->height; ++p) {
    std::copy_n(&pixels[p * channels], 3, &image->rgb[3 * p]);
  }
  return true;
}

int ColourDistance(const Rgb& a, const Rgb& b) {
  int d = 0;
  for (int k = 0; k < 3; ++k) d = std::max(d, std::abs(int{a[k]} - int{b[k]}));
  return d;
}

long CountNear(const Image& image, const Rgb& colour, int tolerance) {
  long count = 0;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) count += ColourDistance(image.at(x, y), colour) <= tolerance;
  }
  return count;
}

Rgb CornerBackground(const Image& image, int size) {
  std::array<std::vector<uint8_t>, 3> channels;
  const int sx = std::min(size, image.width), sy = std::min(size, image.height);
  for (int cy : {0, image.height - sy}) {
    for (int cx : {0, image.width - sx}) {
      for (int y = cy; y < cy + sy; ++y) {
        for (int x = cx; x < cx + sx; ++x) {
          const Rgb p = image.at(x, y);
          for (int k = 0; k < 3; ++k) channels[k].push_back(p[k]);
        }
      }
    }
  }
  Rgb median{};
  for (int k = 0; k < 3; ++k) {
    auto mid = channels[k].begin() + channels[k].size() / 2;
    std::nth_element(channels[k].begin(), mid, channels[k].end());
    median[k] = channels[k].empty() ? 0 : *mid;
  }
  return median;
}

double FractionDiffering(const Image& image, int x, int y, int r, const Rgb& background,
                         int tolerance) {
  long total = 0, differing = 0;
  for (int j = std::max(0, y - r); j <= std::min(image.height - 1, y + r); ++j) {
    for (int i = std::max(0, x - r); i <= std::min(image.width - 1, x + r); ++i) {
      ++total;
      differing += ColourDistance(image.at(i, j), background) > tolerance;
    }
  }
  return total ? static_cast<double>(differing) / static_cast<double>(total) : 0;
}

long DistinctColours(const Image& image) {
  std::set<uint32_t> colours;
  for (size_t p = 0; p + 2 < image.rgb.size(); p += 3) {
    colours.insert((uint32_t{image.rgb[p]} << 16) | (uint32_t{image.rgb[p + 1]} << 8) | image.rgb[p + 2]);
  }
  return static_cast<long>(colours.size());
}

std::optional<Pixel> Project(const mjvGLCamera& camera, int width, int height,
                             const double point[3]) {
  double rel[3], forward[3], up[3], right[3];
  for (int k = 0; k < 3; ++k) {
    rel[k] = point[k] - camera.pos[k];
    forward[k] = camera.forward[k];
    up[k] = camera.up[k];
  }
  mju_cross(right, forward, up);
  const double depth = mju_dot3(rel, forward);
  if (!camera.orthographic && depth <= camera.frustum_near) return std::nullopt;
  // on the near plane (perspective) or in the view volume's cross-section (orthographic)
  const double to_near = camera.orthographic ? 1 : camera.frustum_near / depth;
  const double xn = mju_dot3(rel, right) * to_near, yn = mju_dot3(rel, up) * to_near;
  // MuJoCo sizes the frustum's width to the viewport's aspect ratio around frustum_center
  const double half_height = 0.5 * (camera.frustum_top - camera.frustum_bottom);
  const double half_width = half_height * width / height;
  const double u = (xn - (camera.frustum_center - half_width)) / (2 * half_width);
  const double v = (yn - camera.frustum_bottom) / (2 * half_height);
  const int x = static_cast<int>(std::floor(u * width));
  const int y = static_cast<int>(std::floor((1 - v) * height));
  if (x < 0 || x >= width || y < 0 || y >= height) return std::nullopt;
  return Pixel{x, y};
}

}  // namespace nereid::viewer
