# FindCasADi.cmake -- locate CasADi's C++ library from its Python wheel.
#
# The wheel (PyPI `casadi`) ships libcasadi.so, its plugins (nlpsol_sqpmethod,
# conic_qrqp, conic_osqp, conic_qpoases, ...), the C++ headers and a CMake package config
# in <site-packages>/casadi/cmake. We ask the Python interpreter where the package lives,
# then load that config. The version is pinned once, in requirements.txt (casadi==X), and
# passed by the caller as CasADi_FIND_VERSION (find_package(CasADi <version> EXACT)).
#
# Defines the imported target casadi::casadi (from the wheel's config) and the variables
#   CasADi_FOUND, CasADi_VERSION, CasADi_PACKAGE_DIR.

if(NOT CasADi_PYTHON)
  if(MuJoCo_PYTHON)
    set(CasADi_PYTHON "${MuJoCo_PYTHON}")
  else()
    find_program(CasADi_PYTHON NAMES python3 python)
  endif()
endif()

include("${CMAKE_CURRENT_LIST_DIR}/PythonPackage.cmake")
nereid_python_package(CasADi casadi "${CasADi_PYTHON}")

if(CasADi_PACKAGE_DIR)
  set(CasADi_VERSION "${CasADi_PACKAGE_VERSION}")
  find_file(CasADi_CONFIG casadi-config.cmake PATHS "${CasADi_PACKAGE_DIR}/cmake" NO_DEFAULT_PATH)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CasADi
  REQUIRED_VARS CasADi_CONFIG CasADi_PACKAGE_DIR
  VERSION_VAR CasADi_VERSION
  REASON_FAILURE_MESSAGE
    "install the pinned wheel first: pip install -r requirements.txt (or run scripts/bootstrap.sh)")

if(CasADi_FOUND AND NOT TARGET casadi::casadi)
  include("${CasADi_CONFIG}")
endif()
mark_as_advanced(CasADi_CONFIG)
