# Turns cargo's libutf8validate.a into one that links next to any other Rust staticlib:
#
#   cmake -DIN=cargo.a -DOUT=libutf8validate.a -DLD=ld -DOBJCOPY=objcopy -DAR=ar
#         -DREADELF=readelf -DWORK=dir -P localize-staticlib.cmake
#
# (run by CMakeLists.txt after every cargo build; OUT is only replaced when it changes,
# so that nothing relinks needlessly).
#
# A Rust staticlib holds its own copy of the standard library, and a few of std's
# symbols are global (rust_eh_personality, std::panicking::EMPTY_PANIC,
# ARGV_INIT_ARRAY...). Two Rust staticlibs in one C program then clash with "multiple
# definition" errors as soon as both pull the object defining them, which always
# happens when one of them was built with LTO (it is then a single object).
#
# So the archive is partially linked into a single object (`ld -r`), keeping only what
# the public functions reach (`--gc-sections` from those roots), and every symbol but the
# public utf8_* / utf8validate_* functions is made local (`objcopy`), as a shared
# library's version script would. Kept global too: COMDAT group signatures such as
# DW.ref.rust_eh_personality (hidden, so they never leave the final program), because
# the linker keeps one copy of each group, whose symbol the other copies' code then uses.
# `--strip-unneeded` drops what no relocation needs: the debug info of the prebuilt std
# and the undefined symbols left behind by the sections --gc-sections removed (`ld -r`
# marks them local, objcopy would make them global again, and a weak reference such as
# std's to pidfd_spawnp would become a strong one that no libc has). LLVM bitcode
# sections (.llvmbc, .llvmcmd) are dropped: concatenated by `ld -r` they are no longer
# valid bitcode, and binutils with the LLVM plugin fail on them ("Invalid encoding").
cmake_minimum_required(VERSION 3.16)

foreach(var IN ITEMS IN OUT LD OBJCOPY AR READELF WORK)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "localize-staticlib.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "localize-staticlib.cmake: `${cmd}` failed:\n${out}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY "${WORK}")

# The public functions: the archive's defined global functions named utf8_* or
# utf8validate_* (the C API's prefixes, the same rule the packaging test applies).
# readelf, not nm: binutils' nm loads the LLVM plugin when one is installed, and that
# fails on the bitcode rustc embeds in the objects.
run("${READELF}" -sW "${IN}")
string(REGEX MATCHALL "FUNC +GLOBAL +DEFAULT +[0-9]+ utf8(validate)?_[A-Za-z0-9_]+" lines
       "${run_output}")
set(roots "")
set(keep "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^.* " "" name "${line}")
  list(APPEND roots "--require-defined=${name}")
  list(APPEND keep "--keep-global-symbol=${name}")
endforeach()
list(REMOVE_DUPLICATES roots)
list(REMOVE_DUPLICATES keep)
if(NOT roots)
  message(FATAL_ERROR "localize-staticlib.cmake: no utf8_* function in ${IN}")
endif()

set(merged "${WORK}/utf8validate-merged.o")
run("${LD}" -r --gc-sections ${roots} -o "${merged}" --whole-archive "${IN}")

# COMDAT group signatures stay global (see above).
run("${READELF}" -g -W "${merged}")
string(REGEX MATCHALL "COMDAT group section \\[ *[0-9]+\\] `[^']*' \\[[^]]+\\]" groups
       "${run_output}")
foreach(group IN LISTS groups)
  string(REGEX REPLACE ".*\\[([^]]+)\\]$" "\\1" signature "${group}")
  list(APPEND keep "--keep-global-symbol=${signature}")
endforeach()

set(localized "${WORK}/utf8validate.o")
run("${OBJCOPY}" --strip-unneeded --remove-section=.llvmbc --remove-section=.llvmcmd ${keep}
    "${merged}" "${localized}")
set(archive "${WORK}/libutf8validate.a")
file(REMOVE "${archive}")
run("${AR}" rcsD "${archive}" "${localized}")
file(REMOVE "${merged}" "${localized}")
execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${archive}" "${OUT}"
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "localize-staticlib.cmake: cannot write ${OUT}")
endif()
