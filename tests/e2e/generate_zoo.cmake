# Exports the model zoo unless OUT already holds an export made from the same
# exporter sources with the same flavours (a stamp file records their hash).
#
#   cmake -DPYTHON=... -DTOOLS_DIR=<repo>/tools -DOUT=<dir> -DFLAVOURS=export,core
#         -P generate_zoo.cmake
foreach(variable PYTHON TOOLS_DIR OUT FLAVOURS)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "generate_zoo.cmake: -D${variable}=... is required")
  endif()
endforeach()

file(GLOB_RECURSE sources "${TOOLS_DIR}/zoo/*.py")
list(SORT sources)
set(fingerprint "flavours=${FLAVOURS}\n")
foreach(source "${TOOLS_DIR}/export_ir.py" ${sources})
  file(SHA256 "${source}" hash)
  file(RELATIVE_PATH name "${TOOLS_DIR}" "${source}")
  string(APPEND fingerprint "${name} ${hash}\n")
endforeach()
string(SHA256 fingerprint_hash "${fingerprint}")

set(stamp "${OUT}/.zoo-stamp")
if(EXISTS "${stamp}")
  file(READ "${stamp}" previous)
  if(previous STREQUAL fingerprint_hash)
    message(STATUS "zoo in ${OUT} is up to date")
    return()
  endif()
endif()

# A stale or partial zoo is removed first so that no model from an older
# exporter survives next to new ones.
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
execute_process(
  COMMAND "${PYTHON}" "${TOOLS_DIR}/export_ir.py" --zoo "${OUT}" --flavours "${FLAVOURS}"
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "export_ir.py --zoo failed (exit status ${result})")
endif()
file(WRITE "${stamp}" "${fingerprint_hash}")
