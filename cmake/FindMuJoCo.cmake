# FindMuJoCo.cmake -- locate MuJoCo from its Python wheel.
#
# The wheel ships libmujoco.so.<version>, include/mujoco/*.h and plugin/*.so but no
# CMake config, so we ask the Python interpreter where the package lives. The required
# version is read from requirements.txt (the single pin) by the caller and passed as
# MuJoCo_FIND_VERSION (find_package(MuJoCo <version> EXACT)).
#
# Defines the imported target MuJoCo::MuJoCo and the variables
#   MuJoCo_FOUND, MuJoCo_VERSION, MuJoCo_INCLUDE_DIR, MuJoCo_LIBRARY, MuJoCo_PLUGIN_DIR.

if(NOT MuJoCo_PYTHON)
  find_program(MuJoCo_PYTHON NAMES python3 python)
endif()

if(MuJoCo_PYTHON AND NOT MuJoCo_PACKAGE_DIR)
  execute_process(
    COMMAND "${MuJoCo_PYTHON}" -c
      "import mujoco, os; print(os.path.dirname(mujoco.__file__)); print(mujoco.__version__)"
    OUTPUT_VARIABLE _mujoco_out
    ERROR_VARIABLE _mujoco_err
    RESULT_VARIABLE _mujoco_rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_mujoco_rc EQUAL 0)
    string(REPLACE "\n" ";" _mujoco_lines "${_mujoco_out}")
    list(GET _mujoco_lines 0 _mujoco_dir)
    list(GET _mujoco_lines 1 _mujoco_ver)
    set(MuJoCo_PACKAGE_DIR "${_mujoco_dir}" CACHE PATH "MuJoCo Python package folder")
    set(MuJoCo_PACKAGE_VERSION "${_mujoco_ver}" CACHE STRING "MuJoCo Python package version")
  else()
    message(STATUS "FindMuJoCo: '${MuJoCo_PYTHON} -c import mujoco' failed: ${_mujoco_err}")
  endif()
endif()

if(MuJoCo_PACKAGE_DIR)
  set(MuJoCo_VERSION "${MuJoCo_PACKAGE_VERSION}")
  find_path(MuJoCo_INCLUDE_DIR mujoco/mujoco.h
    PATHS "${MuJoCo_PACKAGE_DIR}/include" NO_DEFAULT_PATH)
  find_file(MuJoCo_LIBRARY "libmujoco.so.${MuJoCo_VERSION}"
    PATHS "${MuJoCo_PACKAGE_DIR}" NO_DEFAULT_PATH)
  set(MuJoCo_PLUGIN_DIR "${MuJoCo_PACKAGE_DIR}/plugin")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(MuJoCo
  REQUIRED_VARS MuJoCo_LIBRARY MuJoCo_INCLUDE_DIR
  VERSION_VAR MuJoCo_VERSION
  REASON_FAILURE_MESSAGE
    "install the pinned wheel first: pip install -r requirements.txt (or run scripts/bootstrap.sh)")

if(MuJoCo_FOUND AND NOT TARGET MuJoCo::MuJoCo)
  add_library(MuJoCo::MuJoCo SHARED IMPORTED)
  set_target_properties(MuJoCo::MuJoCo PROPERTIES
    IMPORTED_LOCATION "${MuJoCo_LIBRARY}"
    IMPORTED_SONAME "libmujoco.so.${MuJoCo_VERSION}"
    INTERFACE_INCLUDE_DIRECTORIES "${MuJoCo_INCLUDE_DIR}")
endif()
mark_as_advanced(MuJoCo_INCLUDE_DIR MuJoCo_LIBRARY)
