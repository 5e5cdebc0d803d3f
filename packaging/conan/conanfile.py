"""Conan 2 recipe for utf8validate, built from the source release it is part of.

From an unpacked source release (utf8validate-VERSION.tar.xz), with no remote and no
network (the Rust crates are in vendor/):

    conan create packaging/conan                     # static library (the default)
    conan create packaging/conan -o "&:shared=True"  # shared library

Needs cargo and rustc 1.89 or newer and CMake 3.16 or newer on the build machine (they
are not Conan packages). The recipe exports the release's sources (this directory's
../..), builds them with the release's CMake project (cmake/), which runs cargo, and
packages the library and the header; consumers get the CMake target
utf8validate::utf8validate through CMakeDeps (find_package(utf8validate)), and
utf8validate.pc through PkgConfigDeps. The version is Cargo.toml's.
"""
import os
import re

from conan import ConanFile
from conan.tools.cmake import CMake, CMakeToolchain, cmake_layout
from conan.tools.files import copy, load, rm, rmdir

required_conan_version = ">=2.0"


class Utf8validateConan(ConanFile):
    name = "utf8validate"
    license = "MIT OR Apache-2.0"
    description = "Fast, exact UTF-8 validation (RFC 3629 section 4) as a C library"
    topics = ("utf-8", "unicode", "validation", "simd", "c")
    package_type = "library"
    settings = "os", "arch", "compiler", "build_type"
    options = {"shared": [True, False]}
    default_options = {"shared": False}
    # The release's top directory, relative to this recipe.
    _top = os.path.join("..", "..")
    # The build reads the sources where Conan exported them and writes only into the
    # build folder and cargo's target directory: the static and the shared package
    # are built from one source folder, so cargo compiles the crates once for both.
    no_copy_source = True

    def set_version(self):
        # The one version of the project: Cargo.toml's [package] table.
        toml = load(self, os.path.join(self.recipe_folder, self._top, "Cargo.toml"))
        package = re.search(r"^\[package\]\n(.*?)(?=^\[)", toml, re.M | re.S).group(1)
        self.version = re.search(r'^version\s*=\s*"([^"]+)"', package, re.M).group(1)

    def export_sources(self):
        # The whole release, vendored crates included, but no build output.
        copy(self, "*", src=os.path.join(self.recipe_folder, self._top), dst=self.export_sources_folder,
             excludes=("target/*", "build/*", ".git/*", "packaging/conan/test_package/build/*"))

    def configure(self):
        # A C library, and Rust's code does not depend on the C++ settings.
        self.settings.rm_safe("compiler.libcxx")
        self.settings.rm_safe("compiler.cppstd")

    def package_id(self):
        # cargo always builds the release profile, and the C ABI does not depend on the
        # C compiler that links the library.
        del self.info.settings.build_type
        del self.info.settings.compiler

    def layout(self):
        cmake_layout(self, src_folder=".")

    def generate(self):
        tc = CMakeToolchain(self)
        tc.cache_variables["UTF8VALIDATE_BUILD_CLI"] = False
        tc.cache_variables["UTF8VALIDATE_MAN_PAGES"] = "OFF"
        tc.cache_variables["UTF8VALIDATE_INSTALL_GDB"] = False
        tc.cache_variables["UTF8VALIDATE_INSTALL_LLDB"] = False
        tc.generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure(build_script_folder="cmake")
        cmake.build()

    def package(self):
        for name in ("LICENSE-MIT", "LICENSE-APACHE"):
            copy(self, name, src=os.path.join(self.source_folder, "packaging", "licenses"),
                 dst=os.path.join(self.package_folder, "licenses"))
        cmake = CMake(self)
        cmake.install()
        lib = os.path.join(self.package_folder, "lib")
        bindir = os.path.join(self.package_folder, "bin")
        # One kind of library per package, as Conan's shared option says; Conan writes
        # the CMake and pkg-config files for consumers itself.
        if self.options.shared:
            rm(self, "libutf8validate.a", lib)
            rm(self, "utf8validate_static.lib", lib)
        else:
            rm(self, "libutf8validate.so*", lib)
            rm(self, "libutf8validate*.dylib", lib)
            rm(self, "libutf8validate.dll.a", lib)
            rm(self, "utf8validate.lib", lib)
            rm(self, "utf8validate.dll", bindir)
            rmdir(self, bindir)
        rmdir(self, os.path.join(lib, "cmake"))
        rmdir(self, os.path.join(lib, "pkgconfig"))
        rmdir(self, os.path.join(self.package_folder, "share"))

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "utf8validate")
        self.cpp_info.set_property("cmake_target_name", "utf8validate::utf8validate")
        if not self.options.shared:
            # The name the installed CMake package gives the static library.
            self.cpp_info.set_property("cmake_target_aliases", ["utf8validate::utf8validate_static"])
        self.cpp_info.set_property("pkg_config_name", "utf8validate")
        if self.settings.os == "Windows" and self.settings.compiler == "msvc" and not self.options.shared:
            self.cpp_info.libs = ["utf8validate_static"]
        else:
            self.cpp_info.libs = ["utf8validate"]
        # The static library needs nothing but the C library.
