// Copyright Nereid authors.
#include "nereid/paths.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace nereid {

std::string DefaultModelDir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("NEREID_MODEL_DIR")) return env;
  std::error_code ec;
  if (fs::is_directory(NEREID_SOURCE_MODEL_DIR, ec)) return NEREID_SOURCE_MODEL_DIR;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&DefaultModelDir), &info) != 0 && info.dli_fname != nullptr) {
    const fs::path lib = fs::absolute(info.dli_fname, ec).parent_path();
    for (const fs::path& candidate : {lib.parent_path() / "share" / "nereid" / "models", lib / "models"}) {
      if (fs::is_directory(candidate, ec)) return candidate.string();
    }
  }
  return NEREID_SOURCE_MODEL_DIR;
}

}  // namespace nereid
