# Cross-compiling for i686 Linux (glibc) with Debian's cross compilers
# (gcc-i686-linux-gnu, g++-i686-linux-gnu), as packaging/dist.sh builds the i686-linux-gnu
# archive and .ci/release-tests.sh builds consumers against it:
#
#   cmake -S cmake -B build-i686 -DCMAKE_TOOLCHAIN_FILE=$PWD/packaging/toolchains/i686-linux-gnu.cmake \
#         -DUTF8VALIDATE_RUST_TARGET=i686-unknown-linux-gnu
#
# CMake finds the matching binutils (i686-linux-gnu-ld, -objcopy, -ar, -readelf) from
# the compilers' prefix. Packages (find_package) are looked for on the build machine
# too, so that -DCMAKE_PREFIX_PATH=<unpacked archive> works.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)

set(CMAKE_C_COMPILER i686-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER i686-linux-gnu-g++)

list(APPEND CMAKE_FIND_ROOT_PATH /usr/i686-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
