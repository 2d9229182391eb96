// Copyright Nereid authors.
// Output files that are written in full or not at all. Every result file Nereid writes
// (trajectory.csv, summary.json, the controllers' logs, the reports of bench, crosscheck and
// baselines) goes through OutputFile: the text goes to a temporary file beside the target,
// every write, the flush and the close are checked, and Commit() renames the temporary file
// onto the target, so a reader never sees half a file and a full disk is an error naming the
// file (OutputError), never a silent "wrote ...". A target that exists and is not a regular
// file (a device such as /dev/null, a pipe) is written in place, still checked.
#ifndef NEREID_OUTPUT_H_
#define NEREID_OUTPUT_H_

#include <fstream>
#include <string>
#include <string_view>

#include "nereid/error.h"

namespace nereid {

// A result file could not be written (a full disk, a missing or read-only folder); the
// message names the file and the system's reason.
class OutputError : public Error {
 public:
  using Error::Error;
};

class OutputFile {
 public:
  // Opens the temporary file for `path` (throws OutputError when it cannot be created).
  explicit OutputFile(std::string path);
  ~OutputFile();  // removes the temporary file unless Commit() succeeded
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return out_; }
  const std::string& path() const { return path_; }
  // Throws OutputError when a write so far has failed (call it now and then in long writes,
  // so that a full disk stops a run early).
  void Check();
  // Flushes, closes and renames onto the target; throws OutputError naming the file.
  void Commit();

 private:
  [[noreturn]] void Fail(std::string_view what);

  std::string path_;     // the target
  std::string written_;  // the file written: a temporary beside the target, or the target
  std::ofstream out_;
  bool temporary_ = true;
  bool committed_ = false;
};

// Writes `text` to `path` through an OutputFile.
void WriteOutputFile(const std::string& path, std::string_view text);

}  // namespace nereid

#endif  // NEREID_OUTPUT_H_
