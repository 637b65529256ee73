# Install rules of the runtime SDK (docs/embedding.md): static libraries,
# headers under include/torchir/ in the repository's layout (so
# #include "runtime/executor/program.h" works from the prefix), the CMake
# package torchir (components runtime, portable_kernels, xnnpack, c_api) and
# pkg-config files. Included once every SDK target exists: at the end of
# runtime/CMakeLists.txt in the runtime-only build, by the top-level
# CMakeLists.txt in the full build.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
get_filename_component(_torchir_root ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
set(_torchir_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/torchir)

# Every runtime header (the portable kernels' too); not the examples.
install(DIRECTORY ${_torchir_root}/runtime/ DESTINATION include/torchir/runtime
  FILES_MATCHING PATTERN "*.h" PATTERN "examples" EXCLUDE PATTERN "c_api" EXCLUDE)
# The .pte format: no installed header includes the generated one, but an app
# reading programs itself needs it (and then the FlatBuffers headers).
install(FILES ${_torchir_root}/schema/file_header.h
              ${CMAKE_BINARY_DIR}/generated/schema/program_generated.h
  DESTINATION include/torchir/schema)

install(TARGETS torchir_runtime torchir_schema EXPORT torchir-runtime-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT torchir-runtime-targets NAMESPACE torchir:: DESTINATION ${_torchir_cmakedir})
install(TARGETS torchir_portable_kernels EXPORT torchir-portable_kernels-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT torchir-portable_kernels-targets NAMESPACE torchir::
  DESTINATION ${_torchir_cmakedir})
set(_torchir_pc_files runtime portable-kernels)
# The thread pool the delegates share (backends/common), in its own export set so that both
# delegate components can name it.
if(TARGET torchir_backend_common)
  install(TARGETS torchir_backend_common EXPORT torchir-backend_common-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT torchir-backend_common-targets NAMESPACE torchir::
    DESTINATION ${_torchir_cmakedir})
endif()
if(TARGET torchir_native_backend)
  install(FILES ${_torchir_root}/backends/native/runtime/native_backend.h
    DESTINATION include/torchir/backends/native/runtime)
  # The kernels and the blob schema are private to the delegate, but a static library's
  # private link items travel with it, so the export must name them.
  install(TARGETS torchir_native_backend torchir_native_kernels torchir_native_blob
    EXPORT torchir-native-targets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT torchir-native-targets NAMESPACE torchir:: DESTINATION ${_torchir_cmakedir})
  list(APPEND _torchir_pc_files native)
endif()
if(TARGET torchir_xnnpack_backend)
  install(FILES ${_torchir_root}/backends/xnnpack/runtime/xnnpack_backend.h
    DESTINATION include/torchir/backends/xnnpack/runtime)
  # torchir_xnnpack_blob (header-only) is private, but a static library's private link items
  # travel with it, so the export must name it.
  install(TARGETS torchir_xnnpack_backend torchir_xnnpack_blob
    EXPORT torchir-xnnpack-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT torchir-xnnpack-targets NAMESPACE torchir:: DESTINATION ${_torchir_cmakedir})
  install(FILES ${_torchir_root}/cmake/FindXNNPACK.cmake DESTINATION ${_torchir_cmakedir})
  list(APPEND _torchir_pc_files xnnpack)
endif()

# The C API: its one header as <prefix>/include/torchir/c_api.h (include
# directory <prefix>/include), its library with the kernels and backends it
# registers.
if(TARGET torchir_c_api)
  install(FILES ${_torchir_root}/runtime/c_api/include/torchir/c_api.h
    DESTINATION include/torchir)
  install(TARGETS torchir_c_api EXPORT torchir-c_api-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT torchir-c_api-targets NAMESPACE torchir:: DESTINATION ${_torchir_cmakedir})
  set(TORCHIR_PC_C_API_REQUIRES "torchir-portable-kernels = ${PROJECT_VERSION}")
  if(TARGET torchir_xnnpack_backend)
    string(APPEND TORCHIR_PC_C_API_REQUIRES ", torchir-xnnpack = ${PROJECT_VERSION}")
  endif()
  if(TARGET torchir_native_backend)
    string(APPEND TORCHIR_PC_C_API_REQUIRES ", torchir-native = ${PROJECT_VERSION}")
  endif()
  list(APPEND _torchir_pc_files c-api)
endif()

configure_package_config_file(${_torchir_root}/cmake/torchirConfig.cmake.in
  ${CMAKE_BINARY_DIR}/sdk/torchirConfig.cmake INSTALL_DESTINATION ${_torchir_cmakedir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/sdk/torchirConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/sdk/torchirConfig.cmake
              ${CMAKE_BINARY_DIR}/sdk/torchirConfigVersion.cmake
  DESTINATION ${_torchir_cmakedir})

# pkg-config: the prefix is found relative to the .pc file, so the SDK can be
# installed with --prefix anywhere and moved.
file(RELATIVE_PATH _torchir_pc_up /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
set(TORCHIR_PC_PREFIX "\${pcfiledir}/${_torchir_pc_up}")
string(REGEX REPLACE "/$" "" TORCHIR_PC_PREFIX "${TORCHIR_PC_PREFIX}")
set(TORCHIR_PC_VERSION ${PROJECT_VERSION})
foreach(pc IN LISTS _torchir_pc_files)
  configure_file(${_torchir_root}/cmake/pkgconfig/torchir-${pc}.pc.in
    ${CMAKE_BINARY_DIR}/sdk/torchir-${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/sdk/torchir-${pc}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
