// Copyright Nereid authors.
// An output file named on the command line, checked before a long run (nereid bench,
// nereid baselines): its folder is made and must be writable, and it must not be a folder,
// so that a run whose results could not be written fails at once instead of at its end.
// The write itself is still checked then (OutputFile: a full disk).
#ifndef NEREID_SRC_CLI_OUTPUT_PATH_H_
#define NEREID_SRC_CLI_OUTPUT_PATH_H_

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "nereid/error.h"
#include "nereid/output.h"

namespace nereid::cli {

// Throws OutputError "FILE (FLAG): <reason>" when `file` is a folder, or its folder cannot
// be made or written; makes the missing folders.
inline void PrepareOutputFile(const std::string& file, const std::string& flag) {
  namespace fs = std::filesystem;
  const std::string named = Excerpt(file) + " (" + flag + ")";
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw OutputError(named + ": is a folder; a file name is expected");
  const fs::path folder = fs::path(file).has_parent_path() ? fs::path(file).parent_path() : fs::path(".");
  fs::create_directories(folder, ec);
  if (ec) throw OutputError(named + ": cannot create the folder " + Excerpt(folder.string()) + ": " + ec.message());
  if (::access(folder.c_str(), W_OK) != 0) {
    throw OutputError(named + ": cannot write into the folder " + Excerpt(folder.string()) + ": " +
                      std::strerror(errno));
  }
}

}  // namespace nereid::cli

#endif  // NEREID_SRC_CLI_OUTPUT_PATH_H_
