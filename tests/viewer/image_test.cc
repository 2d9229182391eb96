// Copyright Nereid authors.
// PNG round trips, the screenshot checks, and camera projection.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <doctest/doctest.h>

#include "image.h"
#include "recording.h"

namespace nereid::viewer {
namespace {

Image Gradient(int width, int height) {
  Image image{width, height, std::vector<uint8_t>(3 * width * height)};
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t* p = &image.rgb[3 * (y * width + x)];
      p[0] = static_cast<uint8_t>(x * 7);
      p[1] = static_cast<uint8_t>(y * 13);
      p[2] = static_cast<uint8_t>((x * y) & 0xff);
    }
  }
  return image;
}

// A camera at the origin looking along +x with z up, 90 degrees vertical field of view.
mjvGLCamera LookAlongX() {
  mjvGLCamera cam{};
  cam.forward[0] = 1;
  cam.up[2] = 1;
  cam.frustum_near = 0.1f;
  cam.frustum_far = 100;
  cam.frustum_bottom = -0.1f;
  cam.frustum_top = 0.1f;
  return cam;
}

}  // namespace

TEST_SUITE("viewer_image") {
  TEST_CASE("PNG: write, read back, identical pixels") {
    const std::string path = (std::filesystem::temp_directory_path() / "nereid_view_png_test.png").string();
    const Image image = Gradient(37, 23);
    std::string error;
    REQUIRE(WritePng(path, image, &error));
    Image back;
    REQUIRE(ReadPng(path, &back, &error));
    CHECK(back.width == 37);
    CHECK(back.height == 23);
    CHECK(back.rgb == image.rgb);
    std::filesystem::remove(path);
    CHECK_FALSE(ReadPng(path, &back, &error));
    CHECK(error.find("cannot open") != std::string::npos);
  }

  TEST_CASE("rows read from OpenGL are flipped upright") {
    const uint8_t bottom_up[12] = {1, 1, 1, 2, 2, 2, 9, 9, 9, 8, 8, 8};  // 2 x 2, bottom row first
    const Image image = Image::FromBottomUp(2, 2, bottom_up);
    CHECK(image.at(0, 0) == Rgb{9, 9, 9});
    CHECK(image.at(1, 1) == Rgb{2, 2, 2});
  }

  TEST_CASE("colour counts, the corner background, and windows that differ from it") {
    Image image{20, 10, std::vector<uint8_t>(600, 0)};
    for (size_t p = 0; p < 200; ++p) image.rgb[3 * p + 2] = 80;  // water blue everywhere
    for (int y = 4; y < 7; ++y) {
      for (int x = 8; x < 12; ++x) {
        uint8_t* p = &image.rgb[3 * (y * 20 + x)];
        p[0] = 250, p[1] = 5, p[2] = 245;  // a magenta patch of 12 pixels
      }
    }
    CHECK(CountNear(image, {255, 0, 255}, 20) == 12);
    CHECK(CountNear(image, {255, 0, 255}, 4) == 0);
    CHECK(CornerBackground(image, 3) == Rgb{0, 0, 80});
    CHECK(FractionDiffering(image, 9, 5, 1, {0, 0, 80}, 30) == doctest::Approx(1));
    CHECK(FractionDiffering(image, 2, 2, 1, {0, 0, 80}, 30) == 0);
    CHECK(DistinctColours(image) == 2);
    CHECK(ColourDistance({0, 10, 20}, {5, 40, 0}) == 30);
  }

  TEST_CASE("projection: centre, sides, behind the camera, and the aspect ratio") {
    const mjvGLCamera cam = LookAlongX();
    const double ahead[3] = {5, 0, 0};
    auto centre = Project(cam, 200, 100, ahead);
    REQUIRE(centre);
    CHECK(centre->x == 100);
    CHECK(centre->y == 50);
    // 45 degrees up is the top edge and, at this aspect ratio, 45 degrees to the left
    // (+y) is half way to the left edge
    const double up_left[3] = {5, 5, 2.5};
    auto p = Project(cam, 200, 100, up_left);
    REQUIRE(p);
    CHECK(p->x == 50);
    CHECK(p->y == 25);
    const double behind[3] = {-1, 0, 0};
    CHECK_FALSE(Project(cam, 200, 100, behind));
    const double outside[3] = {1, 0, 5};
    CHECK_FALSE(Project(cam, 200, 100, outside));
  }

  TEST_CASE("ffmpeg is found on PATH, and its command line is quoted") {
    CHECK(FindOnPath("sh", "/nonexistent:/bin:/usr/bin") != "");
    CHECK(FindOnPath("no-such-program-nereid", "/bin:/usr/bin") == "");
    const std::string command = FfmpegCommand("/usr/bin/ffmpeg", "rec it's", 29.97);
    CHECK(command.find("-framerate 29.970") != std::string::npos);
    CHECK(command.find("'rec it'\\''s/frame_%06d.png'") != std::string::npos);
    CHECK(command.find("'rec it'\\''s.mp4'") != std::string::npos);
  }

  TEST_CASE("a recording folder that cannot be made or written is an error naming it, before any frame") {
    namespace fs = std::filesystem;
    const fs::path tmp = fs::temp_directory_path() / ("nereid-record-test-" + std::to_string(::getpid()));
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    std::ofstream(tmp / "file.txt") << "x";
    auto error = [](const fs::path& dir, bool video = false) { return PrepareRecording(dir.string(), video); };

    // a folder under a regular file (cannot be made), /proc (cannot be made, even as root)
    std::string e = error(tmp / "file.txt" / "clip");
    CHECK(e.find((tmp / "file.txt" / "clip").string() + ": cannot make the folder: ") == 0);
    e = error("/proc/nereid-no-such-folder/clip");
    CHECK(e.find("/proc/nereid-no-such-folder/clip: cannot make the folder: ") == 0);
    // a regular file given as the folder
    e = error(tmp / "file.txt");
    CHECK(e.find((tmp / "file.txt").string() + ": exists and is not a folder") == 0);
    // the video's name taken by a folder (checked only when ffmpeg will write it)
    fs::create_directories(tmp / "clip.mp4");
    e = error(tmp / "clip", true);
    CHECK(e.find((tmp / "clip.mp4").string() + ": exists and is not a file") == 0);
    CHECK(error(tmp / "clip", false).empty());
    // a read-only folder (root writes anyway: checked as another user only)
    if (::geteuid() != 0) {
      fs::create_directories(tmp / "ro");
      fs::permissions(tmp / "ro", fs::perms::owner_read | fs::perms::owner_exec);
      e = error(tmp / "ro");
      CHECK(e.find((tmp / "ro").string() + ": cannot write in the folder: ") == 0);
      fs::permissions(tmp / "ro", fs::perms::owner_all);
    }

    // a good folder is made, with its parents; an earlier recording's frames are removed
    // (they would join this video), other files stay, and no probe file is left behind
    CHECK(error(tmp / "a" / "b").empty());
    CHECK(fs::is_directory(tmp / "a" / "b"));
    std::ofstream(tmp / "a" / "b" / "frame_000000.png") << "old";
    std::ofstream(tmp / "a" / "b" / "frame_000041.png") << "old";
    std::ofstream(tmp / "a" / "b" / "notes.txt") << "mine";
    CHECK(error(tmp / "a" / "b").empty());
    CHECK_FALSE(fs::exists(tmp / "a" / "b" / "frame_000000.png"));
    CHECK_FALSE(fs::exists(tmp / "a" / "b" / "frame_000041.png"));
    CHECK(fs::exists(tmp / "a" / "b" / "notes.txt"));
    CHECK(std::distance(fs::directory_iterator(tmp / "a" / "b"), fs::directory_iterator()) == 1);

    // trailing slashes: clip/ records into clip and clip.mp4
    CHECK(RecordingFolder("out/clip//") == "out/clip");
    CHECK(RecordingFolder("/") == "/");
    fs::remove_all(tmp);
  }

  TEST_CASE("a PNG that cannot be written is an error naming the file and the reason") {
    std::string error;
    CHECK_FALSE(WritePng("/proc/nereid-no-such-folder/a.png", Gradient(4, 4), &error));
    CHECK(error.find("/proc/nereid-no-such-folder/a.png: cannot write: ") == 0);
    if (std::filesystem::exists("/dev/full")) {
      // a full disk: the write or the flush fails, the message says so
      CHECK_FALSE(WritePng("/dev/full", Gradient(64, 64), &error));
      CHECK(error.find("/dev/full: write failed: No space left on device") == 0);
    }
  }
}

}  // namespace nereid::viewer
