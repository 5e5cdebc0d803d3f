# utf8validate for gdb: check whether memory of the debugged program is well-formed
# UTF-8 (RFC 3629 section 4), with the libutf8validate library.
#
# Load it with
#     (gdb) source /path/to/utf8validate/gdb/utf8validate.py
# or let gdb auto-load it from an install prefix (see gdb/README.md). It adds
#
#     utf8-check EXPR [LEN]        a command (see `help utf8-check`)
#     $utf8_valid(EXPR [, LEN])    1 if the bytes are well-formed UTF-8, else 0
#     $utf8_first_error(EXPR [, LEN])
#                                  offset of the first ill-formed sequence, or the
#                                  number of bytes when they are all well-formed
#
# Nothing here calls into the debugged program: the bytes are read with gdb's memory
# API and validated by libutf8validate loaded into gdb's own Python with ctypes, so
# everything works on a core file and on a stopped thread, and a breakpoint condition
# using $utf8_valid costs no inferior function call.

import ctypes
import ctypes.util
import glob
import os
import sysconfig

import gdb

# Longest NUL-terminated string searched for its NUL when no LEN is given (1 MiB).
MAX_CSTRING = 1 << 20
# Largest LEN accepted (256 MiB): anything longer is most likely a garbage length.
MAX_LENGTH = 256 << 20
# Memory is read in blocks that never cross a page boundary of this size, so an
# unreadable page is reported at its first address.
PAGE = 4096
# Bytes shown before the error and from the error on in the hex dump (as
# `utf8check -v` and `isutf8 -v`).
BEFORE = 8
AFTER = 8

LIBRARY_ENV = "UTF8VALIDATE_LIB"


class _Utf8Error(ctypes.Structure):
    """`utf8_error` of utf8validate.h."""

    _fields_ = [
        ("offset", ctypes.c_size_t),
        ("length", ctypes.c_size_t),
        ("kind", ctypes.c_uint),
    ]


def _script_dir():
    """The directory of this file, with symbolic links resolved. gdb defines __file__
    only while it runs the script, so this is called at load time."""
    try:
        return os.path.dirname(os.path.realpath(__file__))
    except NameError:
        return None


def _autoloaded_for():
    """The file name of the object file this script is being auto-loaded for
    (`libutf8validate.so.<version>-gdb.py`), or None when it is `source`d."""
    objfile = gdb.current_objfile()
    return objfile.filename if objfile is not None else None


# Captured while the script runs: neither is available afterwards.
_SCRIPT_DIR = _script_dir()
_AUTOLOADED_FOR = _autoloaded_for()


def _library_candidates():
    """Where libutf8validate is looked for, in order: a list of paths or bare
    names (names are resolved by the dynamic loader)."""
    explicit = os.environ.get(LIBRARY_ENV)
    if explicit:
        # An explicit choice is not second-guessed: only that file is tried.
        return [explicit]
    found = []
    # Auto-loaded as `libutf8validate.so.X-gdb.py` for the library itself.
    if _AUTOLOADED_FOR and os.path.basename(_AUTOLOADED_FOR).startswith("libutf8validate.so"):
        found.append(_AUTOLOADED_FOR)
    here = _SCRIPT_DIR
    if here is not None:
        # In the source tree: gdb/ next to target/.
        root = os.path.dirname(here)
        cargo_target = os.environ.get("CARGO_TARGET_DIR")
        targets = [os.path.join(root, "target")]
        if cargo_target:
            targets.insert(0, cargo_target)
        for target in targets:
            for profile in ("release", "debug"):
                found.append(os.path.join(target, profile, "libutf8validate.so"))
        # In an install prefix: PREFIX/share/utf8validate/gdb/ or PREFIX/share/gdb/...,
        # with the library in PREFIX/lib, PREFIX/lib64 or PREFIX/lib/<multiarch>.
        libdirs = ["lib", "lib64"]
        multiarch = sysconfig.get_config_var("MULTIARCH")
        if multiarch:
            libdirs.append(os.path.join("lib", multiarch))
        prefix = here
        for _ in range(3):
            prefix = os.path.dirname(prefix)
            for libdir in libdirs:
                # The soname (libutf8validate.so.0 for 0.x) or the real file
                # name, then the development link libutf8validate.so.
                pattern = os.path.join(prefix, libdir, "libutf8validate.so.*")
                found.extend(sorted(glob.glob(pattern), key=len))
                found.append(os.path.join(prefix, libdir, "libutf8validate.so"))
    # The system's search path (ld.so.cache, LD_LIBRARY_PATH).
    system = ctypes.util.find_library("utf8validate")
    if system:
        found.append(system)
    found.append("libutf8validate.so")
    unique = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def _open_library(path):
    """The library at `path` with the prototypes used here, or raises OSError."""
    lib = ctypes.CDLL(path)
    try:
        lib.utf8_check.argtypes = [
            ctypes.c_char_p,
            ctypes.c_size_t,
            ctypes.POINTER(_Utf8Error),
        ]
        lib.utf8_check.restype = ctypes.c_bool
        lib.utf8_error_kind_name.argtypes = [ctypes.c_uint]
        lib.utf8_error_kind_name.restype = ctypes.c_char_p
        lib.utf8_error_kind_message.argtypes = [ctypes.c_uint]
        lib.utf8_error_kind_message.restype = ctypes.c_char_p
    except AttributeError as e:
        raise OSError("too old, lacks utf8_check (%s)" % e)
    return lib


_library = None


def library():
    """libutf8validate, loaded on first use; raises gdb.GdbError listing every path
    tried when it cannot be loaded."""
    global _library
    if _library is None:
        tried = []
        for candidate in _library_candidates():
            is_path = os.sep in candidate
            if is_path and not os.path.exists(candidate):
                tried.append("  %s: no such file" % candidate)
                continue
            try:
                _library = _open_library(candidate)
            except OSError as e:
                tried.append("  %s: %s" % (candidate, e))
                continue
            _library.utf8validate_path = candidate
            break
        else:
            raise gdb.GdbError(
                "utf8validate: cannot load libutf8validate; tried:\n%s\n"
                "Set %s to the library's path (e.g. target/release/libutf8validate.so"
                " or PREFIX/lib/libutf8validate.so) and retry."
                % ("\n".join(tried), LIBRARY_ENV)
            )
    return _library


def _check(data):
    """`utf8_check` of the bytes: None when valid, else the `_Utf8Error`."""
    err = _Utf8Error()
    if library().utf8_check(data, len(data), ctypes.byref(err)):
        return None
    return err


# --- reading the program's memory ------------------------------------------------


def _read(address, length):
    """`length` bytes at `address` of the selected inferior (process or core)."""
    inferior = gdb.selected_inferior()
    try:
        return inferior.read_memory(address, length).tobytes()
    except gdb.MemoryError:
        pass
    # Find the first unreadable page, to say where the buffer stops being readable.
    position, end = address, address + length
    while position < end:
        step = min(end - position, PAGE - position % PAGE)
        try:
            inferior.read_memory(position, step)
        except gdb.MemoryError:
            break
        position += step
    raise gdb.GdbError(
        "cannot read memory at 0x%x: byte %d of the %d bytes at 0x%x"
        % (position, position - address, length, address)
    )


def _read_cstring(address):
    """The bytes at `address` up to (not including) the first NUL."""
    inferior = gdb.selected_inferior()
    data = bytearray()
    position = address
    while len(data) < MAX_CSTRING:
        step = min(PAGE - position % PAGE, MAX_CSTRING - len(data))
        try:
            block = inferior.read_memory(position, step).tobytes()
        except gdb.MemoryError:
            raise gdb.GdbError(
                "cannot read memory at 0x%x (byte %d of the string at 0x%x) before"
                " finding its NUL; give the length: utf8-check EXPR LEN"
                % (position, position - address, address)
            )
        nul = block.find(b"\0")
        if nul >= 0:
            data += block[:nul]
            return bytes(data)
        data += block
        position += step
    raise gdb.GdbError(
        "no NUL in the first %d bytes of the string at 0x%x; give the length:"
        " utf8-check EXPR LEN" % (MAX_CSTRING, address)
    )


def _byte_sized(t):
    """Whether `t` (typedefs stripped) is a 1-byte character or integer type."""
    return t.sizeof == 1 and t.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR)


def _field_names(t):
    try:
        return {f.name for f in t.fields()}
    except TypeError:
        return set()


def _length_arg(length, available=None, what=None):
    if length is None:
        return available
    if length < 0:
        raise gdb.GdbError("LEN is negative: %d" % length)
    if length > MAX_LENGTH:
        raise gdb.GdbError(
            "LEN %d is larger than the %d bytes utf8-check accepts" % (length, MAX_LENGTH)
        )
    if available is not None and length > available:
        raise gdb.GdbError("LEN %d exceeds the %d bytes of %s" % (length, available, what))
    return length


def _std_string(value, t, length):
    """The bytes of a libstdc++ std::string / std::string_view, or None when `value`
    is neither."""
    names = _field_names(t)
    if "_M_str" in names and "_M_len" in names:  # std::basic_string_view
        pointer, size = value["_M_str"], int(value["_M_len"])
        what = "the string_view"
    elif "_M_dataplus" in names and "_M_string_length" in names:  # C++11 ABI
        pointer, size = value["_M_dataplus"]["_M_p"], int(value["_M_string_length"])
        what = "the string"
    elif "_M_dataplus" in names:  # the old copy-on-write string (_GLIBCXX_USE_CXX11_ABI=0)
        pointer = value["_M_dataplus"]["_M_p"]
        # Its _Rep { size_t _M_length, _M_capacity; int _M_refcount; } precedes the data.
        size_t = gdb.lookup_type("unsigned long")
        header = pointer.cast(size_t.pointer()) - 3
        size = int(header.dereference())
        what = "the string"
    else:
        return None
    if not _byte_sized(pointer.type.strip_typedefs().target().strip_typedefs()):
        raise gdb.GdbError(
            "%s holds %s, not bytes: only strings of 1-byte characters can be UTF-8"
            % (what, pointer.type.target())
        )
    size = _length_arg(length, size, what)
    return _read(int(pointer), size) if size else b""


def bytes_of(value, length=None):
    """The bytes `value` designates (see `help utf8-check`): a pointer to 1-byte
    characters (`length` bytes, or up to its NUL), an array of them (its size, or
    `length`), or a libstdc++ std::string / std::string_view."""
    t = value.type.strip_typedefs()
    while t.code in (gdb.TYPE_CODE_REF, gdb.TYPE_CODE_RVALUE_REF):
        value = value.referenced_value()
        t = value.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_PTR:
        target = t.target().strip_typedefs()
        if not (_byte_sized(target) or (target.code == gdb.TYPE_CODE_VOID and length is not None)):
            raise gdb.GdbError(
                "%s points to %s, not to bytes: cast it, e.g. (const char *)EXPR%s"
                % (value.type, t.target(), "" if length is not None else ", or give LEN")
            )
        address = int(value)
        if length is None:
            if address == 0:
                raise gdb.GdbError("the pointer is NULL")
            return _read_cstring(address)
        length = _length_arg(length)
        if length == 0:
            return b""
        if address == 0:
            raise gdb.GdbError("the pointer is NULL (with LEN %d)" % length)
        return _read(address, length)
    if t.code == gdb.TYPE_CODE_ARRAY:
        if not _byte_sized(t.target().strip_typedefs()):
            raise gdb.GdbError(
                "%s is not an array of bytes (char, unsigned char, uint8_t)" % value.type
            )
        size = _length_arg(length, t.sizeof, "the array")
        if value.address is None:
            # Not in the program's memory: a literal such as "caf\xc3\xa9" typed in gdb.
            return bytes(int(value[i]) & 0xFF for i in range(size))
        return _read(int(value.address), size) if size else b""
    if t.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        data = _std_string(value, t, length)
        if data is not None:
            return data
    raise gdb.GdbError(
        "utf8-check needs a char/unsigned char/uint8_t pointer or array, a std::string"
        " or a std::string_view, not %s" % value.type
    )


# --- reporting -------------------------------------------------------------------


def position(data, offset):
    """(line, char) of byte `offset`, both 1-based, as utf8check and isutf8 count
    them: line = newlines before it + 1; char = bytes since the last newline + 1."""
    line = data.count(b"\n", 0, offset) + 1
    char = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, char


def dump(data, offset, length):
    """The two lines of `utf8check -v`'s hex dump: up to BEFORE bytes before the
    error and AFTER from it on, in hex and as text, with carets under the maximal
    subpart."""
    start = max(0, offset - BEFORE)
    context = data[start : offset + AFTER]
    at = offset - start
    width = 3 * (BEFORE + AFTER)
    hex_part = "".join("%02X " % b for b in context)
    text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in context)
    subpart = max(1, min(length, len(context) - at))
    hex_carets = " " * (3 * at) + "^" * (3 * subpart - 1)
    text_carets = " " * at + "^" * subpart
    return "%s | %s\n%s | %s" % (
        hex_part.ljust(width),
        text,
        hex_carets.ljust(width),
        text_carets,
    )


def report(data):
    """`valid UTF-8 (N bytes)`, or the error line and the hex dump."""
    err = _check(data)
    if err is None:
        return "valid UTF-8 (%d byte%s)" % (len(data), "" if len(data) == 1 else "s")
    line, char = position(data, err.offset)
    message = library().utf8_error_kind_message(err.kind).decode()
    return "invalid UTF-8 at byte %d (line %d, char %d): %s\n%s" % (
        err.offset,
        line,
        char,
        message,
        dump(data, err.offset, err.length),
    )


# --- the command and the convenience functions -------------------------------------


def _split_arguments(arg):
    """(EXPR value, LEN or None) from `EXPR [LEN]`. LEN is the last word outside
    brackets, when both it and the text before it parse as expressions; otherwise
    the whole text is EXPR. So `p n`, `p (n - 1)` and `(char *) p 10` give a LEN,
    while `p + 1` and `(const char *) p` do not (and `p -1` means LEN -1)."""
    arg = arg.strip()
    if not arg:
        raise gdb.GdbError("usage: utf8-check EXPR [LEN]  (see `help utf8-check`)")
    length_error = None
    cut = _last_top_level_space(arg)
    if cut is not None:
        try:
            value = gdb.parse_and_eval(arg[:cut])
        except gdb.error:
            pass
        else:
            try:
                length = gdb.parse_and_eval(arg[cut:])
            except gdb.error as e:
                length_error = "LEN %s: %s" % (arg[cut:].strip(), e)
            else:
                return value, _integer(length, "LEN")
    try:
        return gdb.parse_and_eval(arg), None
    except gdb.error as e:
        raise gdb.GdbError("%s (usage: utf8-check EXPR [LEN])" % (length_error or e))


def _last_top_level_space(text):
    depth = 0
    for i in range(len(text) - 1, 0, -1):
        c = text[i]
        if c in ")]":
            depth += 1
        elif c in "([":
            depth -= 1
        elif c.isspace() and depth == 0:
            return i
    return None


def _integer(value, what):
    t = value.type.strip_typedefs()
    if t.code not in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR, gdb.TYPE_CODE_BOOL, gdb.TYPE_CODE_ENUM):
        raise gdb.GdbError("%s must be an integer, not %s" % (what, value.type))
    return int(value)


class Utf8CheckCommand(gdb.Command):
    """Check whether a string or buffer of the program is well-formed UTF-8.

Usage: utf8-check EXPR [LEN]

EXPR is one of
  - a pointer to char, signed char, unsigned char or uint8_t (or char8_t): the LEN
    bytes it points to; without LEN, the bytes up to the first NUL (searched for
    in at most 1 MiB: give LEN for longer strings);
  - an array of such bytes, e.g. char name[32]: all of its bytes (its sizeof,
    NULs included), or its first LEN; use &name[0] to stop at the first NUL;
  - a C++ std::string or std::string_view (libstdc++): its size() bytes, or its
    first LEN;
  - a void pointer, with LEN.
LEN is the last word of the arguments (outside brackets) when the words before
it form an expression: write it without spaces or in parentheses, e.g.
utf8-check req->body req->len-1 or utf8-check buf (n - 1).

Prints "valid UTF-8 (N bytes)", or
  invalid UTF-8 at byte B (line L, char C): MESSAGE
followed by a hex dump of up to 8 bytes before and 8 from the error, with carets
under its maximal subpart (the bytes a decoder replaces with one U+FFFD). B is the
0-based offset of the first byte of the first ill-formed sequence; L and C are
1-based, counted as utf8check and isutf8 do: L = newlines before B + 1, C = bytes
since the last newline + 1.

The program is not called: the bytes are read from its memory (a core file works
too) and checked by libutf8validate loaded into gdb. See also the functions
$utf8_valid(EXPR [, LEN]) and $utf8_first_error(EXPR [, LEN]), e.g.
  break handle_request if !$utf8_valid(req->body, req->len)"""

    def __init__(self):
        super().__init__("utf8-check", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        value, length = _split_arguments(arg)
        gdb.write(report(bytes_of(value, length)) + "\n")


class Utf8ValidFunction(gdb.Function):
    """$utf8_valid(EXPR [, LEN]): 1 if the bytes are well-formed UTF-8, else 0.

EXPR and LEN are as for utf8-check (see `help utf8-check`): a byte pointer with LEN
or up to its NUL, a byte array, a std::string or std::string_view. The program is
not called, so it can be used in breakpoint conditions and on core files:
  break handle_request if !$utf8_valid(req->body, req->len)"""

    def __init__(self):
        super().__init__("utf8_valid")

    def invoke(self, expr, length=None):
        n = None if length is None else _integer(length, "LEN")
        return 1 if _check(bytes_of(expr, n)) is None else 0


class Utf8FirstErrorFunction(gdb.Function):
    """$utf8_first_error(EXPR [, LEN]): the 0-based offset of the first byte of the
first ill-formed sequence, or the number of bytes when they are all well-formed
(as the C function utf8_first_error). EXPR and LEN are as for utf8-check."""

    def __init__(self):
        super().__init__("utf8_first_error")

    def invoke(self, expr, length=None):
        n = None if length is None else _integer(length, "LEN")
        data = bytes_of(expr, n)
        err = _check(data)
        return len(data) if err is None else err.offset


Utf8CheckCommand()
Utf8ValidFunction()
Utf8FirstErrorFunction()
