# Cross-compiling for aarch64 Linux (glibc) with Debian's cross compilers
# (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu), as packaging/dist.sh builds the aarch64-linux-gnu
# archive and .ci/release-tests.sh builds consumers against it:
#
#   cmake -S cmake -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=$PWD/packaging/toolchains/aarch64-linux-gnu.cmake \
#         -DUTF8VALIDATE_RUST_TARGET=aarch64-unknown-linux-gnu
#
# CMake finds the matching binutils (aarch64-linux-gnu-ld, -objcopy, -ar, -readelf) from
# the compilers' prefix. Packages (find_package) are looked for on the build machine
# too, so that -DCMAKE_PREFIX_PATH=<unpacked archive> works.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

list(APPEND CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
