# Exports the model zoo in FLAVOURS unless OUT already holds an export of those
# flavours made from the same exporter sources by the same interpreter (a stamp
# file per flavour list records their hash). Other flavours in OUT are left
# alone: the 1.13 flavours and the pytorch_ir flavour come from two interpreters.
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
# The interpreter's path names its environment (scripts/python_env.sh keys it by the pins).
set(fingerprint "flavours=${FLAVOURS}\npython=${PYTHON}\n")
foreach(source "${TOOLS_DIR}/export_ir.py" ${sources})
  file(SHA256 "${source}" hash)
  file(RELATIVE_PATH name "${TOOLS_DIR}" "${source}")
  string(APPEND fingerprint "${name} ${hash}\n")
endforeach()
string(SHA256 fingerprint_hash "${fingerprint}")

string(REPLACE "," "-" stamp_suffix "${FLAVOURS}")
set(stamp "${OUT}/.zoo-stamp-${stamp_suffix}")
if(EXISTS "${stamp}")
  file(READ "${stamp}" previous)
  if(previous STREQUAL fingerprint_hash)
    message(STATUS "zoo in ${OUT} is up to date")
    return()
  endif()
endif()

# A stale or partial export of these flavours is removed first so that no model
# from an older exporter survives next to new ones.
string(REPLACE "," ";" flavour_list "${FLAVOURS}")
foreach(flavour IN LISTS flavour_list)
  file(GLOB stale LIST_DIRECTORIES true "${OUT}/*/${flavour}")
  if(stale)
    file(REMOVE_RECURSE ${stale})
  endif()
endforeach()
file(REMOVE "${OUT}/.zoo-stamp" "${stamp}")
file(MAKE_DIRECTORY "${OUT}")
execute_process(
  COMMAND "${PYTHON}" "${TOOLS_DIR}/export_ir.py" --zoo "${OUT}" --flavours "${FLAVOURS}"
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "export_ir.py --zoo failed (exit status ${result})")
endif()
file(WRITE "${stamp}" "${fingerprint_hash}")
