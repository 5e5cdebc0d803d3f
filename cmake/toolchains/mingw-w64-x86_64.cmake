# Cross-compiling for 64-bit Windows with MinGW-w64 (Debian: gcc-mingw-w64-x86-64,
# g++-mingw-w64-x86-64):
#
#   cmake -S cmake -B build-windows -DCMAKE_BUILD_TYPE=Release \
#         -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/mingw-w64-x86_64.cmake"
#
# Nothing here is specific to utf8validate, whose CMake project works out the Rust
# target (x86_64-pc-windows-gnu) from these settings. A consumer project can use the
# same file; it finds an installed utf8validate with
# -Dutf8validate_DIR=<prefix>/lib/cmake/utf8validate, or by adding <prefix> to
# CMAKE_FIND_ROOT_PATH.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(_mingw x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${_mingw}-gcc)
set(CMAKE_CXX_COMPILER ${_mingw}-g++)
set(CMAKE_RC_COMPILER ${_mingw}-windres)

# Headers, libraries and packages come from the MinGW-w64 tree (and the roots a user
# adds), programs from the build machine.
list(APPEND CMAKE_FIND_ROOT_PATH /usr/${_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
