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

// Encodes dir.mp4 when ffmpeg is on $PATH; returns what happened, for the user.
std::string EncodeVideo(const std::string& dir, double fps);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_RECORDING_H_
