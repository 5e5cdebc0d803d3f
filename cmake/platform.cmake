# The Rust target to build for and the names of the library's files, per platform
# (included by CMakeLists.txt after project(), with UTF8VALIDATE_SOVERSION set).
#
# The Rust target comes from the toolchain CMake was given, so that a cross build needs
# nothing but its toolchain file:
#   Windows   <arch>-pc-windows-gnu with MinGW-w64 (gcc or clang), <arch>-pc-windows-msvc
#             with MSVC (cl or clang-cl), native or cross;
#   macOS     <arch>-apple-darwin, from CMAKE_OSX_ARCHITECTURES (one architecture) or,
#             when cross-compiling, CMAKE_SYSTEM_PROCESSOR;
#   Linux     the host's target (cargo's default) unless cross-compiling, where
#             UTF8VALIDATE_RUST_TARGET must be given.
# -DUTF8VALIDATE_RUST_TARGET=<triple> overrides all of this.
#
# Sets, in the including scope:
#   UTF8VALIDATE_RUST_TARGET         the triple ("" for cargo's default, the host)
#   _utf8validate_kind               ELF, MACHO, MINGW or MSVC
#   _utf8validate_{shared,implib,static}_cargo   the files cargo makes ("" if none)
#   _utf8validate_{shared,implib,static}_file    their installed names
#   _utf8validate_shared_links       the links to the shared library, each named after
#                                    the file it points to: "name>target" pairs
#   _utf8validate_soname             what a program records: the soname (ELF), the
#                                    install name (Mach-O), "" on Windows (the DLL name)
#   _utf8validate_shared_in_bindir   ON when the shared library is installed in bin/

set(UTF8VALIDATE_RUST_TARGET "" CACHE STRING
  "The Rust target triple to build for (empty: worked out from the toolchain)")

# <arch> of a Rust triple, from a CMake processor or architecture name.
function(_utf8validate_rust_arch processor out)
  string(TOLOWER "${processor}" p)
  if(p MATCHES "^(x86_64|amd64|x64)$")
    set(arch x86_64)
  elseif(p MATCHES "^(aarch64|arm64)$")
    set(arch aarch64)
  elseif(p MATCHES "^(i[3-6]86|x86)$")
    set(arch i686)
  else()
    message(FATAL_ERROR "utf8validate: no Rust target known for the processor "
      "'${processor}'; pass -DUTF8VALIDATE_RUST_TARGET=<triple>")
  endif()
  set(${out} "${arch}" PARENT_SCOPE)
endfunction()

if(NOT UTF8VALIDATE_RUST_TARGET)
  if(WIN32)
    if(MSVC)
      set(_env msvc)
    elseif(MINGW)
      set(_env gnu)
    else()
      message(FATAL_ERROR "utf8validate: on Windows, the C compiler must be MinGW-w64's "
        "or MSVC's (or pass -DUTF8VALIDATE_RUST_TARGET=<triple>)")
    endif()
    if(MSVC AND CMAKE_C_COMPILER_ARCHITECTURE_ID)
      _utf8validate_rust_arch("${CMAKE_C_COMPILER_ARCHITECTURE_ID}" _arch)
    else()
      _utf8validate_rust_arch("${CMAKE_SYSTEM_PROCESSOR}" _arch)
    endif()
    set(UTF8VALIDATE_RUST_TARGET "${_arch}-pc-windows-${_env}")
  elseif(APPLE)
    list(LENGTH CMAKE_OSX_ARCHITECTURES _count)
    if(_count GREATER 1)
      message(FATAL_ERROR "utf8validate: one architecture at a time "
        "(CMAKE_OSX_ARCHITECTURES is '${CMAKE_OSX_ARCHITECTURES}'): build each and "
        "combine them with lipo")
    elseif(_count EQUAL 1)
      _utf8validate_rust_arch("${CMAKE_OSX_ARCHITECTURES}" _arch)
      set(UTF8VALIDATE_RUST_TARGET "${_arch}-apple-darwin")
    elseif(CMAKE_CROSSCOMPILING)
      _utf8validate_rust_arch("${CMAKE_SYSTEM_PROCESSOR}" _arch)
      set(UTF8VALIDATE_RUST_TARGET "${_arch}-apple-darwin")
    endif()
  elseif(CMAKE_CROSSCOMPILING)
    message(FATAL_ERROR "utf8validate: cross-compiling for ${CMAKE_SYSTEM_NAME}: pass "
      "-DUTF8VALIDATE_RUST_TARGET=<triple> (and have cargo's linker for it set up)")
  endif()
endif()

# The kind of platform, from the target (whatever CMake's own variables say).
set(_t "${UTF8VALIDATE_RUST_TARGET}")
if(_t MATCHES "-windows-msvc$" OR (NOT _t AND WIN32 AND MSVC))
  set(_utf8validate_kind MSVC)
elseif(_t MATCHES "-windows-gnu" OR (NOT _t AND WIN32))
  set(_utf8validate_kind MINGW)
elseif(_t MATCHES "-apple-" OR (NOT _t AND APPLE))
  set(_utf8validate_kind MACHO)
elseif(_t MATCHES "-linux-" OR (NOT _t AND CMAKE_SYSTEM_NAME STREQUAL "Linux"))
  set(_utf8validate_kind ELF)
else()
  message(FATAL_ERROR "utf8validate: the CMake build supports Linux, Windows and macOS; "
    "on ${CMAKE_SYSTEM_NAME} use `cargo build --release` directly.")
endif()

set(_v "${PROJECT_VERSION}")
set(_major "${UTF8VALIDATE_SOVERSION}")
set(_utf8validate_implib_cargo "")
set(_utf8validate_implib_file "")
set(_utf8validate_shared_links "")
set(_utf8validate_shared_in_bindir OFF)
if(_utf8validate_kind STREQUAL "ELF")
  # lib/libutf8validate.so.X.Y.Z, with the soname link .so.<major> and the .so link.
  set(_utf8validate_shared_cargo libutf8validate.so)
  set(_utf8validate_shared_file libutf8validate.so.${_v})
  set(_utf8validate_soname libutf8validate.so.${_major})
  set(_utf8validate_shared_links
    "${_utf8validate_soname}>${_utf8validate_shared_file}"
    "libutf8validate.so>${_utf8validate_soname}")
  set(_utf8validate_static_cargo libutf8validate.a)
  set(_utf8validate_static_file libutf8validate.a)
elseif(_utf8validate_kind STREQUAL "MACHO")
  # lib/libutf8validate.X.Y.Z.dylib, the install-name link .<major>.dylib and the
  # .dylib link (build.rs gives the library the install name and versions).
  set(_utf8validate_shared_cargo libutf8validate.dylib)
  set(_utf8validate_shared_file libutf8validate.${_v}.dylib)
  set(_utf8validate_soname "@rpath/libutf8validate.${_major}.dylib")
  set(_utf8validate_shared_links
    "libutf8validate.${_major}.dylib>${_utf8validate_shared_file}"
    "libutf8validate.dylib>libutf8validate.${_major}.dylib")
  set(_utf8validate_static_cargo libutf8validate.a)
  set(_utf8validate_static_file libutf8validate.a)
elseif(_utf8validate_kind STREQUAL "MINGW")
  # bin/utf8validate.dll, lib/libutf8validate.dll.a (import), lib/libutf8validate.a:
  # cargo's names, which are MinGW-w64's usual ones (-lutf8validate takes the import
  # library, -Wl,-Bstatic -lutf8validate the static one).
  set(_utf8validate_shared_cargo utf8validate.dll)
  set(_utf8validate_shared_file utf8validate.dll)
  set(_utf8validate_implib_cargo libutf8validate.dll.a)
  set(_utf8validate_implib_file libutf8validate.dll.a)
  set(_utf8validate_static_cargo libutf8validate.a)
  set(_utf8validate_static_file libutf8validate.a)
  set(_utf8validate_soname "")
  set(_utf8validate_shared_in_bindir ON)
else() # MSVC
  # bin/utf8validate.dll; lib/utf8validate.lib, the import library (MSVC's usual name,
  # cargo's utf8validate.dll.lib); lib/utf8validate_static.lib, the static library
  # (cargo's utf8validate.lib, renamed so that the two .lib files do not collide).
  set(_utf8validate_shared_cargo utf8validate.dll)
  set(_utf8validate_shared_file utf8validate.dll)
  set(_utf8validate_implib_cargo utf8validate.dll.lib)
  set(_utf8validate_implib_file utf8validate.lib)
  set(_utf8validate_static_cargo utf8validate.lib)
  set(_utf8validate_static_file utf8validate_static.lib)
  set(_utf8validate_soname "")
  set(_utf8validate_shared_in_bindir ON)
endif()
unset(_t)
unset(_v)
unset(_major)
