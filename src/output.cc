// Copyright Nereid authors.
#include "nereid/output.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace nereid {
namespace {

namespace fs = std::filesystem;

// The system's reason for the last failure, or a generic one when errno was not set.
std::string Reason(int error) {
  return error ? std::strerror(error) : "the write failed (no system reason given)";
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  // the target itself when it is a device or a pipe (renaming onto /dev/null would replace it)
  fs::path target = path_;
  if (fs::is_symlink(target, ec)) {
    const fs::path resolved = fs::weakly_canonical(target, ec);
    if (!ec) target = resolved;
  }
  const bool special = fs::exists(target, ec) && !fs::is_regular_file(target, ec);
  temporary_ = !special;
  if (special) {
    written_ = target.string();
  } else {
    static std::atomic<unsigned> counter{0};
    written_ = target.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  }
  errno = 0;
  out_.open(written_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    const int error = errno;
    written_.clear();
    throw OutputError(path_ + ": cannot write: " + Reason(error));
  }
}

OutputFile::~OutputFile() {
  if (committed_ || !temporary_ || written_.empty()) return;
  out_.close();
  std::error_code ec;
  fs::remove(written_, ec);
}

void OutputFile::Fail(std::string_view what) {
  const int error = errno;
  out_.close();
  std::error_code ec;
  if (temporary_) fs::remove(written_, ec);
  written_.clear();
  throw OutputError(path_ + ": " + std::string(what) + ": " + Reason(error));
}

void OutputFile::Check() {
  if (!out_) Fail("write failed");
}

void OutputFile::Commit() {
  if (committed_) return;
  if (!out_) Fail("write failed");  // errno still holds the failed write's reason
  errno = 0;
  out_.flush();
  if (!out_) Fail("write failed");
  errno = 0;
  out_.close();
  if (out_.fail()) Fail("close failed");
  if (temporary_) {
    fs::path target = path_;
    std::error_code ec;
    if (fs::is_symlink(target, ec)) {
      const fs::path resolved = fs::weakly_canonical(target, ec);
      if (!ec) target = resolved;
    }
    errno = 0;
    if (std::rename(written_.c_str(), target.c_str()) != 0) Fail("cannot replace the file");
  }
  committed_ = true;
}

void WriteOutputFile(const std::string& path, std::string_view text) {
  OutputFile file(path);
  errno = 0;
  file.stream() << text;
  file.Commit();
}

}  // namespace nereid
