// Copyright Nereid authors.
#include "recording.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
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

std::string FindFfmpeg() {
  const char* path = std::getenv("PATH");
  return FindOnPath("ffmpeg", path ? path : "");
}

std::string RecordingFolder(const std::string& dir) {
  std::string folder = dir;
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  return folder;
}

std::string PrepareRecording(const std::string& dir, bool video) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (dir.empty()) return "the recording folder is empty";
  const fs::path folder = dir;
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec)) {
    return dir + ": exists and is not a folder (--record names the folder for the frames)";
  }
  ec.clear();
  fs::create_directories(folder, ec);
  if (ec) return dir + ": cannot make the folder: " + ec.message();
  // a file can be written there (the frames), checked by writing one
  const fs::path probe = folder / (".nereid-view-probe." + std::to_string(::getpid()));
  {
    errno = 0;
    std::ofstream out(probe, std::ios::binary);
    const int error = errno;
    if (out) out << "x";
    if (out) out.close();
    if (!out) {
      fs::remove(probe, ec);
      return dir + ": cannot write in the folder: " + (error ? std::strerror(error) : "the write failed");
    }
  }
  fs::remove(probe, ec);
  if (video) {
    const std::string mp4 = dir + ".mp4";
    if (fs::exists(mp4, ec) && !fs::is_regular_file(mp4, ec)) {
      return mp4 + ": exists and is not a file; the video cannot be written there";
    }
  }
  // an earlier recording's frames would end up in this video (ffmpeg reads frame_%06d.png
  // from 0 until one is missing)
  static const std::regex kFrame("frame_[0-9]{6}\\.png");
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    if (std::regex_match(e.path().filename().string(), kFrame)) {
      std::error_code removed;
      fs::remove(e.path(), removed);
      if (removed) return e.path().string() + ": cannot remove an earlier recording's frame: " + removed.message();
    }
  }
  if (ec) return dir + ": cannot list the folder: " + ec.message();
  return "";
}

VideoResult EncodeVideo(const std::string& dir, double fps) {
  const std::string ffmpeg = FindFfmpeg();
  if (ffmpeg.empty()) return {true, "ffmpeg is not on PATH: PNG frames only"};
  const int status = std::system(FfmpegCommand(ffmpeg, dir, fps).c_str());
  if (status != 0) {
    const std::string how = status == -1 ? "could not be started"
                            : WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                                : "was stopped by a signal";
    return {false, dir + ".mp4: not written: ffmpeg " + how + " (the PNG frames are in " + dir + ")"};
  }
  return {true, "wrote " + dir + ".mp4"};
}

}  // namespace nereid::viewer
