# Install rules: libvkxla.a with its public headers (include/vkxla/), an
# exported CMake package (find_package(vkxla) gives vkxla::vkxla) and a
# pkg-config file (vkxla.pc).
include(CMakePackageConfigHelpers)

install(TARGETS vkxla_library EXPORT vkxlaTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/vkxla DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(VKXLA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/vkxla)
install(EXPORT vkxlaTargets NAMESPACE vkxla:: DESTINATION ${VKXLA_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vkxlaConfig.cmake.in
  ${PROJECT_BINARY_DIR}/vkxlaConfig.cmake INSTALL_DESTINATION ${VKXLA_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/vkxlaConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/vkxlaConfig.cmake ${PROJECT_BINARY_DIR}/vkxlaConfigVersion.cmake
        DESTINATION ${VKXLA_CMAKE_DIR})

# pkg-config: Vulkan, glslang and SPIRV-Tools ship .pc files on Debian;
# glslang's default resource limits library is named here.
# The prefix is found from the .pc file's own place, so `cmake --install
# --prefix DIR` gives a correct file whatever prefix was configured.
file(RELATIVE_PATH VKXLA_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" VKXLA_PC_TO_PREFIX "${VKXLA_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/vkxla.pc.in ${PROJECT_BINARY_DIR}/vkxla.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/vkxla.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
