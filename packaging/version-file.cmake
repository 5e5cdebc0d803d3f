# Writes a CMake package version file with CMake's own helper, outside a project:
#
#   cmake -DVERSION=0.1.0 -DCMAKE_SIZEOF_VOID_P=8 -DOUT=.../utf8validateConfigVersion.cmake \
#         -P version-file.cmake
#
# The same rule as cmake/CMakeLists.txt's (SameMajorVersion); packaging/dist.sh uses it
# for the static-only (musl) archive, which it lays out without the CMake project.
include(CMakePackageConfigHelpers)
write_basic_package_version_file("${OUT}" VERSION "${VERSION}" COMPATIBILITY SameMajorVersion)
