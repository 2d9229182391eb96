# nereid_python_package(<Prefix> <module> <python>): asks the interpreter where the Python
# package <module> lives and which version it is, and caches them as <Prefix>_PACKAGE_DIR
# and <Prefix>_PACKAGE_VERSION (unless <Prefix>_PACKAGE_DIR is already set). Used by
# FindMuJoCo.cmake and FindCasADi.cmake: both libraries come from their Python wheels.
function(nereid_python_package prefix module python)
  if(NOT python OR ${prefix}_PACKAGE_DIR)
    return()
  endif()
  execute_process(
    COMMAND "${python}" -c
      "import ${module}, os; print(os.path.dirname(${module}.__file__)); print(${module}.__version__)"
    OUTPUT_VARIABLE _out
    ERROR_VARIABLE _err
    RESULT_VARIABLE _rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_rc EQUAL 0)
    string(REPLACE "\n" ";" _lines "${_out}")
    list(GET _lines 0 _dir)
    list(GET _lines 1 _ver)
    set(${prefix}_PACKAGE_DIR "${_dir}" CACHE PATH "${prefix} Python package folder")
    set(${prefix}_PACKAGE_VERSION "${_ver}" CACHE STRING "${prefix} Python package version")
  else()
    message(STATUS "Find${prefix}: '${python} -c import ${module}' failed: ${_err}")
  endif()
endfunction()
