// Copyright Nereid authors.
// Video recording: the viewer writes a PNG per frame into a folder; this turns the folder
// into an MP4 with ffmpeg when ffmpeg is on PATH.
#ifndef NEREID_VIEWER_RECORDING_H_
#define NEREID_VIEWER_RECORDING_H_

#include <string>

namespace nereid::viewer {

// The full path of `program` in the PATH list `path` (':'-separated), or "".
std::string FindOnPath(const std::string& program, const std::string& path);

// The ffmpeg command that encodes dir/frame_%06d.png at `fps` into dir.mp4 (H.264,
// yuv420p, dimensions padded to even numbers).
std::string FfmpegCommand(const std::string& ffmpeg, const std::string& dir, double fps);

// ffmpeg's full path on $PATH, or "".
std::string FindFfmpeg();

// `dir` without trailing slashes ("clip/" records into clip and clip.mp4, not clip/.mp4).
std::string RecordingFolder(const std::string& dir);

// Readies `dir` for a recording before the first frame: makes it (and its parents), checks
// that it is a folder and that a file can be written in it, and, when `video` (ffmpeg is on
// PATH), that dir.mp4 is not a folder. Frames of an earlier recording there
// (frame_NNNNNN.png) are removed, so that the video holds this recording's frames only.
// Returns "" or the error, naming the path and the system's reason.
std::string PrepareRecording(const std::string& dir, bool video);

// What EncodeVideo did: ok false when ffmpeg ran and failed (the PNG frames stay).
struct VideoResult {
  bool ok = true;
  std::string message;  // for the user: "wrote dir.mp4", "ffmpeg is not on PATH: ...", the error
};

// Encodes dir.mp4 when ffmpeg is on $PATH.
VideoResult EncodeVideo(const std::string& dir, double fps);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_RECORDING_H_
