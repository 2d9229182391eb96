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

include("${CMAKE_CURRENT_LIST_DIR}/PythonPackage.cmake")
nereid_python_package(MuJoCo mujoco "${MuJoCo_PYTHON}")

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
