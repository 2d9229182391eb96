// Copyright Nereid authors.
#include "recording.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace nereid::viewer {
namespace {

// single-quoted for /bin/sh
std::string Quote(const std::string& s) {
  std::string quoted = "'";
  for (char c : s) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

std::string FindOnPath(const std::string& program, const std::string& path) {
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string FfmpegCommand(const std::string& ffmpeg, const std::string& dir, double fps) {
  char rate[32];
  std::snprintf(rate, sizeof(rate), "%.3f", fps);
  return Quote(ffmpeg) + " -y -loglevel error -framerate " + rate + " -i " +
         Quote(dir + "/frame_%06d.png") +
         " -vf " + Quote("pad=ceil(iw/2)*2:ceil(ih/2)*2") + " -c:v libx264 -pix_fmt yuv420p " +
         Quote(dir + ".mp4");
}

std::string EncodeVideo(const std::string& dir, double fps) {
  const char* path = std::getenv("PATH");
  const std::string ffmpeg = FindOnPath("ffmpeg", path ? path : "");
  if (ffmpeg.empty()) return "ffmpeg is not on PATH: PNG frames only";
  if (std::system(FfmpegCommand(ffmpeg, dir, fps).c_str()) != 0) {
    return "ffmpeg failed: PNG frames only";
  }
  return "wrote " + dir + ".mp4";
}

}  // namespace nereid::viewer
