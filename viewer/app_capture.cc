// Copyright Nereid authors.
// nereid-view's captures: the rendered image read back, screenshots, and recording a PNG
// per frame (then the MP4, recording.h).
#include <GLFW/glfw3.h>

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "app.h"
#include "recording.h"

namespace nereid::viewer {
namespace {

std::string Timestamp() {
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y%m%d-%H%M%S", std::localtime(&now));
  return buffer;
}

}  // namespace

Image App::ReadPixels(int width, int height) const {
  std::vector<uint8_t> rgb(3 * static_cast<size_t>(width) * height);
  mjr_readPixels(rgb.data(), nullptr, {0, 0, width, height}, &con_);
  return Image::FromBottomUp(width, height, rgb.data());
}

std::string App::WriteImage(const std::string& path, const Image& image, int level) {
  std::string error;
  return WritePng(path, image, &error, level) ? std::string() : error;
}

// ---- recording ----------------------------------------------------------------------------

void App::TakeScreenshot() {
  int width, height;
  glfwGetFramebufferSize(window_, &width, &height);
  const std::string path = "nereid-view-" + Timestamp() + ".png";
  const std::string error = WriteImage(path, ReadPixels(width, height));
  message_ = error.empty() ? "wrote " + path : error;
}

std::string App::StartRecording() {
  const std::string dir = RecordingFolder(options_.record.empty() ? "nereid-view-" + Timestamp() : options_.record);
  const std::string error = PrepareRecording(dir, !FindFfmpeg().empty());
  if (!error.empty()) {
    message_ = error;
    return error;
  }
  record_dir_ = dir;
  record_frames_ = 0;
  record_start_ = glfwGetTime();
  message_ = "recording into " + record_dir_;
  return "";
}

std::string App::StopRecording() {
  // the video's frame rate is the rate frames were captured at (60 headless)
  const double seconds = glfwGetTime() - record_start_;
  const double fps = options_.headless || seconds <= 0 ? 60 : record_frames_ / seconds;
  const VideoResult video = EncodeVideo(record_dir_, fps);
  message_ = std::to_string(record_frames_) + " frames in " + record_dir_ + "; " + video.message;
  record_dir_.clear();
  return video.ok ? "" : video.message;
}

std::string App::RecordFrame(int width, int height) {
  char name[32];
  std::snprintf(name, sizeof(name), "frame_%06d.png", record_frames_++);
  const std::string error = WriteImage(record_dir_ + "/" + name, ReadPixels(width, height), 1);
  if (!error.empty()) {
    message_ = error + " (recording stopped)";
    record_dir_.clear();
  }
  return error;
}

}  // namespace nereid::viewer
