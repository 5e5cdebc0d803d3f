# Prints the README.md of a binary archive; sourced by packaging/dist.sh.
#   archive_readme KIND VERSION NAME TARGET RUST_TARGET REQUIREMENT
# KIND: gnu (Linux, glibc: shared and static library), musl (Linux, static only) or
# windows (MinGW-w64: DLL, import library, static library).
archive_readme() {
  local kind=$1 version=$2 name=$3 target=$4 rust_target=$5 requirement=$6
  cat <<EOF
# utf8validate $version for $target

Fast, exact UTF-8 validation for C and C++ (RFC 3629 §4, Unicode §3.9): the C
library \`utf8validate\`, the command-line checker \`utf8check\`, and \`utf8-check\`
commands for gdb and lldb. Built from the source release utf8validate-$version.tar.xz
for the Rust target \`$rust_target\`.

$requirement

The archive works from wherever it is unpacked: the pkg-config file and the CMake
package find everything relative to their own location. Below, \`\$U\` is the
directory this README is in (\`U=\$PWD/$name\` after unpacking).

## What is where

| path | what |
|---|---|
| \`include/utf8validate.h\` | the header (C99, C++11 or newer) |
EOF
  case $kind in
    gnu) cat <<EOF
| \`lib/libutf8validate.so.$version\` | the shared library; soname \`libutf8validate.so.${version%%.*}\` |
| \`lib/libutf8validate.so.${version%%.*}\`, \`lib/libutf8validate.so\` | the links to it (the soname, and what \`-lutf8validate\` finds) |
| \`lib/libutf8validate.a\` | the static library (needs nothing but the C library) |
| \`bin/utf8check\` | the command-line checker: a static executable (musl), which runs on any Linux of this architecture, whatever its C library |
EOF
      ;;
    musl) cat <<EOF
| \`lib/libutf8validate.a\` | the static library (needs nothing but the C library); no shared library on musl |
| \`bin/utf8check\` | the command-line checker, a static executable |
EOF
      ;;
    windows) cat <<EOF
| \`bin/utf8validate.dll\` | the DLL (imports KERNEL32.dll and msvcrt.dll only) |
| \`lib/libutf8validate.dll.a\` | its import library: what \`-lutf8validate\` takes |
| \`lib/libutf8validate.a\` | the static library: what \`-Wl,-Bstatic -lutf8validate\` takes |
| \`bin/utf8check.exe\` | the command-line checker |
EOF
      ;;
  esac
  cat <<EOF
| \`lib/pkgconfig/utf8validate.pc\` | for pkg-config (relocatable: \`\${pcfiledir}\`) |
| \`lib/cmake/utf8validate/\` | the CMake package (\`find_package(utf8validate)\`) |
| \`share/man/man1/utf8check.1\`, \`share/man/man3/utf8validate.3\` | the man pages (\`man -M \$U/share/man utf8validate\`) |
| \`share/utf8validate/gdb/\`, \`lldb/\`, \`debugger/\` | the gdb and lldb extensions and the module they share |
| \`LICENSE-MIT\`, \`LICENSE-APACHE\` | utf8validate's licence: MIT or Apache-2.0, at your option |
| \`THIRD-PARTY-LICENSES.md\`, \`rust-library-COPYRIGHT.html\` | the licences of the code compiled in from other projects |

## Use it

EOF
  case $kind in
    gnu) cat <<EOF
With pkg-config:

\`\`\`sh
export PKG_CONFIG_PATH=\$U/lib/pkgconfig
cc -o app app.c \$(pkg-config --cflags --libs utf8validate) -Wl,-rpath,\$U/lib   # shared
cc -o app app.c \$(pkg-config --cflags utf8validate) \$U/lib/libutf8validate.a   # static
\`\`\`

(without \`-rpath\`, run the shared program with \`LD_LIBRARY_PATH=\$U/lib\`, or copy
\`lib/libutf8validate.so*\` where the dynamic loader looks.) With CMake, configured
with \`-DCMAKE_PREFIX_PATH=\$U\`:

\`\`\`cmake
find_package(utf8validate ${version%.*} CONFIG REQUIRED)
target_link_libraries(app PRIVATE utf8validate::utf8validate)          # shared
target_link_libraries(app PRIVATE utf8validate::utf8validate_static)   # static
\`\`\`
EOF
      ;;
    musl) cat <<EOF
With musl-gcc (Debian: musl-tools) or any musl toolchain, and pkg-config:

\`\`\`sh
export PKG_CONFIG_PATH=\$U/lib/pkgconfig
musl-gcc -static -o app app.c \$(pkg-config --cflags --static --libs utf8validate)
\`\`\`

With CMake (\`-DCMAKE_PREFIX_PATH=\$U\`, a musl C compiler):
\`find_package(utf8validate ${version%.*} CONFIG REQUIRED)\` and
\`target_link_libraries(app PRIVATE utf8validate::utf8validate_static)\`; here
\`utf8validate::utf8validate\` is the same static library, as there is no shared one.
EOF
      ;;
    windows) cat <<EOF
With MinGW-w64 (on Windows with MSYS2, or cross from Linux; \`x86_64-w64-mingw32-gcc\`
below) and pkg-config:

\`\`\`sh
export PKG_CONFIG_LIBDIR=\$U/lib/pkgconfig
x86_64-w64-mingw32-gcc -o app.exe app.c \$(pkg-config --cflags --libs utf8validate)   # DLL
x86_64-w64-mingw32-gcc -o app-static.exe app.c \$(pkg-config --cflags utf8validate) \\
  -Wl,-Bstatic \$(pkg-config --libs utf8validate) -Wl,-Bdynamic                 # static
\`\`\`

A program linked against the DLL needs \`bin/utf8validate.dll\` next to it or on
\`PATH\`. With CMake and the same compiler: \`-Dutf8validate_DIR=\$U/lib/cmake/utf8validate\`,
then \`find_package(utf8validate ${version%.*} CONFIG REQUIRED)\` and
\`utf8validate::utf8validate\` (the DLL) or \`utf8validate::utf8validate_static\`. The
library is built for MinGW-w64 (the GNU ABI); MSVC programs should link the DLL
through their own import library or build from the source release.
EOF
      ;;
  esac
  cat <<EOF

The API is in the header and in \`utf8validate(3)\`; \`utf8check --help\` and
\`utf8check(1)\` describe the command.

## Debuggers

Either of

\`\`\`
(gdb) source \$U/share/utf8validate/gdb/utf8validate.py
(lldb) command script import \$U/share/utf8validate/lldb/utf8validate.py
\`\`\`

adds a \`utf8-check EXPR [LEN]\` command that says whether a buffer in the debugged
program is valid UTF-8, and where and why not, and \`utf8-annotate on\`, which adds that
verdict to every string the debugger prints, in an IDE's variables view too (see
\`share/utf8validate/gdb/README.md\` and \`share/utf8validate/lldb/README.md\`).
They load this archive's \`lib/libutf8validate.so\` into the debugger (Linux
archives with a shared library), or the one named by \`UTF8VALIDATE_LIB\`.

## Versions

Within a major version the C ABI only grows: a later ${version%%.*}.x library replaces this
one under programs linked against it, without relinking (on Linux the soname is
\`libutf8validate.so.${version%%.*}\` for every ${version%%.*}.x release).
\`find_package(utf8validate ${version%.*})\` accepts this release and any later ${version%%.*}.x.
EOF
}
