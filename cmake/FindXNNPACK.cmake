# Finds XNNPACK and the two libraries it is built on, pthreadpool and cpuinfo.
# Debian's packages (libxnnpack-dev, libpthreadpool-dev, libcpuinfo-dev) ship no
# CMake config, so this module makes the imported targets the XNNPACK delegate
# links: XNNPACK::XNNPACK, pthreadpool::pthreadpool and cpuinfo::cpuinfo.
# Installed with torchir's CMake package (find_package(torchir ... xnnpack)).
#
# Hints: XNNPACK_ROOT (or CMAKE_PREFIX_PATH / a toolchain's sysroot), or the
# cache entries XNNPACK_LIBRARY, XNNPACK_INCLUDE_DIR, pthreadpool_LIBRARY, ...
# Sets XNNPACK_FOUND.
find_path(XNNPACK_INCLUDE_DIR xnnpack.h)
find_library(XNNPACK_LIBRARY XNNPACK)
find_path(pthreadpool_INCLUDE_DIR pthreadpool.h)
find_library(pthreadpool_LIBRARY pthreadpool)
find_path(cpuinfo_INCLUDE_DIR cpuinfo.h)
find_library(cpuinfo_LIBRARY cpuinfo)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(XNNPACK
  REQUIRED_VARS XNNPACK_LIBRARY XNNPACK_INCLUDE_DIR pthreadpool_LIBRARY pthreadpool_INCLUDE_DIR
                cpuinfo_LIBRARY cpuinfo_INCLUDE_DIR)
mark_as_advanced(XNNPACK_INCLUDE_DIR XNNPACK_LIBRARY pthreadpool_INCLUDE_DIR pthreadpool_LIBRARY
                 cpuinfo_INCLUDE_DIR cpuinfo_LIBRARY)

if(XNNPACK_FOUND)
  # UNKNOWN: Debian ships shared libraries, a cross sysroot may hold static
  # ones; either way the file is linked as found.
  if(NOT TARGET cpuinfo::cpuinfo)
    add_library(cpuinfo::cpuinfo UNKNOWN IMPORTED)
    set_target_properties(cpuinfo::cpuinfo PROPERTIES
      IMPORTED_LOCATION "${cpuinfo_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${cpuinfo_INCLUDE_DIR}")
  endif()
  if(NOT TARGET pthreadpool::pthreadpool)
    find_package(Threads REQUIRED)
    add_library(pthreadpool::pthreadpool UNKNOWN IMPORTED)
    set_target_properties(pthreadpool::pthreadpool PROPERTIES
      IMPORTED_LOCATION "${pthreadpool_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${pthreadpool_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES Threads::Threads)
  endif()
  if(NOT TARGET XNNPACK::XNNPACK)
    add_library(XNNPACK::XNNPACK UNKNOWN IMPORTED)
    set_target_properties(XNNPACK::XNNPACK PROPERTIES
      IMPORTED_LOCATION "${XNNPACK_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${XNNPACK_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "pthreadpool::pthreadpool;cpuinfo::cpuinfo")
  endif()
endif()
