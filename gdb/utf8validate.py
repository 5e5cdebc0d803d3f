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

import importlib.util
import os
import sys

import gdb


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

SHARED = "utf8validate_debugger"


def _shared_module_dirs():
    """Where utf8validate_debugger.py, the part shared with the lldb extension, may
    be: debugger/ beside this script's directory (the source tree, and
    PREFIX/share/utf8validate/ when installed), and, for the copy gdb auto-loads from
    DATADIR/gdb/auto-load/<library's directory>/, DATADIR/utf8validate/debugger."""
    if _SCRIPT_DIR is None:
        return []
    dirs = [os.path.join(os.path.dirname(_SCRIPT_DIR), "debugger")]
    marker = os.sep + os.path.join("gdb", "auto-load") + os.sep
    at = (_SCRIPT_DIR + os.sep).find(marker)
    if at >= 0:
        dirs.append(os.path.join(_SCRIPT_DIR[:at], "utf8validate", "debugger"))
    return dirs


def _import_shared():
    """The shared module: the one already loaded, else the first found beside this
    script, else one on Python's path."""
    if SHARED in sys.modules:
        return sys.modules[SHARED]
    dirs = _shared_module_dirs()
    for directory in dirs:
        path = os.path.join(directory, SHARED + ".py")
        if os.path.exists(path):
            spec = importlib.util.spec_from_file_location(SHARED, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[SHARED] = module
            spec.loader.exec_module(module)
            return module
    try:
        return importlib.import_module(SHARED)
    except ImportError:
        raise ImportError(
            "utf8validate: cannot find %s.py (shared with the lldb extension) in %s"
            " or on Python's path" % (SHARED, ", ".join(dirs) or "no directory")
        )


shared = _import_shared()


def _preferred_libraries():
    """Auto-loaded as `libutf8validate.so.X-gdb.py` for the library itself: that
    library comes first."""
    if _AUTOLOADED_FOR and os.path.basename(_AUTOLOADED_FOR).startswith("libutf8validate.so"):
        return [_AUTOLOADED_FOR]
    return []


def library():
    """libutf8validate as loaded by the shared module (see gdb/README.md)."""
    return _gdb_errors(shared.library, _preferred_libraries())


def _gdb_errors(function, *args):
    """`function(*args)`, with the shared module's errors turned into gdb's."""
    try:
        return function(*args)
    except shared.Error as e:
        raise gdb.GdbError(str(e))


def _check(data):
    """`utf8_check` of the bytes: None when valid, else the error."""
    return _gdb_errors(shared.check, data, _preferred_libraries())


# --- reading the program's memory ------------------------------------------------


def _read_block(address, length):
    """`length` bytes at `address` of the selected inferior (process or core), or
    None when any cannot be read."""
    try:
        return gdb.selected_inferior().read_memory(address, length).tobytes()
    except gdb.MemoryError:
        return None


def _read(address, length):
    return _gdb_errors(shared.read_exact, _read_block, address, length)


def _read_cstring(address):
    return _gdb_errors(shared.read_cstring, _read_block, address)


def _byte_sized(t):
    """Whether `t` (typedefs stripped) is a 1-byte character or integer type."""
    return t.sizeof == 1 and t.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR)


def _is_byte_array(t):
    return t.code == gdb.TYPE_CODE_ARRAY and _byte_sized(t.target().strip_typedefs())


def _field_names(t):
    try:
        return {f.name for f in t.fields()}
    except TypeError:
        return set()


def _length_arg(length, available=None, what=None):
    return _gdb_errors(shared.length_arg, length, available, what)


def _size_t():
    """The type of libstdc++'s sizes and of the words read from its strings."""
    return gdb.lookup_type("unsigned long")


def _word_at(address):
    """The unsigned long at `address` in the program's memory, or shared.Error."""
    try:
        return int(gdb.Value(address).cast(_size_t().pointer()).dereference())
    except (gdb.MemoryError, gdb.error, OverflowError):
        raise shared.Error("cannot read memory at 0x%x" % (address % (1 << 64)))


def _type_names(t):
    """The names of `t`, of the types its typedefs stand for, and its canonical name
    (typedefs stripped) last."""
    names = []
    while t.code == gdb.TYPE_CODE_TYPEDEF:
        names.append(str(t.unqualified()))
        t = t.target()
    stripped = t.strip_typedefs().unqualified()
    names.append(stripped.tag or stripped.name or str(stripped))
    return names


def _is_incomplete(t):
    """Whether the struct `t` (typedefs stripped) is a name without a definition in
    the debug information, as clang++ leaves libstdc++'s std::string."""
    return t.code == gdb.TYPE_CODE_STRUCT and t.sizeof == 0 and not _field_names(t)


def _incomplete_string_span(value):
    """(address of the data, size, what) of a libstdc++ std::string whose type is
    incomplete, read from the object's memory (see the shared
    incomplete_string_abi), or None when `value` is no libstdc++ string."""
    abi = _gdb_errors(shared.incomplete_string_abi, _type_names(value.type))
    if abi is None:
        return None
    if value.address is None:
        raise gdb.GdbError("the string is not in the program's memory")
    pointer, size = _gdb_errors(
        shared.libstdcxx_string_span, _word_at, int(value.address), _size_t().sizeof, abi
    )
    return pointer, size, "the string"


def _bytes_pointer(pointer, what):
    """The address `pointer` holds, or gdb.GdbError when it points to other than
    1-byte characters."""
    if not _points_to_bytes(pointer):
        raise gdb.GdbError(
            "%s holds %s, not bytes: only strings of 1-byte characters can be UTF-8"
            % (what, pointer.type.target())
        )
    return int(pointer)


def _std_string_span(value, t):
    """(address of the data, size, what) of a libstdc++ std::string /
    std::string_view (either string ABI, its type complete or not), or None when
    `value` is neither. Reads the size from the program's memory (gdb.MemoryError or
    gdb.GdbError when it cannot); refuses strings of other than 1-byte characters."""
    names = _field_names(t)
    if "_M_str" in names and "_M_len" in names:  # std::basic_string_view
        what = "the string_view"
        return _bytes_pointer(value["_M_str"], what), int(value["_M_len"]), what
    if "_M_dataplus" in names:
        pointer = _bytes_pointer(value["_M_dataplus"]["_M_p"], "the string")
        if "_M_string_length" in names:  # C++11 ABI
            return pointer, int(value["_M_string_length"]), "the string"
        # The old copy-on-write string (_GLIBCXX_USE_CXX11_ABI=0).
        size = _gdb_errors(shared.cow_string_size, _word_at, pointer, _size_t().sizeof)
        return pointer, size, "the string"
    if _is_incomplete(t):
        return _incomplete_string_span(value)
    return None


def _points_to_bytes(pointer):
    """Whether `pointer` (a gdb.Value) points to 1-byte characters."""
    return _byte_sized(pointer.type.strip_typedefs().target().strip_typedefs())


def _span_bytes(address, size, what, length):
    """The `size` bytes at `address` of `what`, or its first `length`."""
    size = _length_arg(length, size, what)
    return _read(address, size) if size else b""


def _std_string(value, t, length):
    """The bytes of a libstdc++ std::string / std::string_view, or None when `value`
    is neither."""
    span = _std_string_span(value, t)
    return None if span is None else _span_bytes(*span, length=length)


def _registered_span(value):
    """(address, size, what) of a struct registered with `utf8-annotate type NAME
    DATA LEN`: the LEN bytes its field DATA points to; None when `value`'s type is
    not registered."""
    name = _registered_name(value.type)
    if name is None:
        return None
    data, length = _annotate.types[name]
    return int(value[data]), int(value[length]), "the %s's %s" % (name, data)


def bytes_of(value, length=None):
    """The bytes `value` designates (see `help utf8-check`): a pointer to 1-byte
    characters (`length` bytes, or up to its NUL), an array of them (its size, or
    `length`), a struct registered with `utf8-annotate type`, or a libstdc++
    std::string / std::string_view."""
    t = value.type.strip_typedefs()
    while t.code in (gdb.TYPE_CODE_REF, gdb.TYPE_CODE_RVALUE_REF):
        value = value.referenced_value()
        t = value.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_PTR and _is_byte_array(t.target().strip_typedefs()):
        # A pointer to an array (`&a`, of type `char (*)[N]`): that array, all N bytes.
        # It is how a convenience function gets a whole array variable, which gdb hands
        # to it decayed to a pointer to its first element (see Utf8ValidFunction).
        if int(value) == 0:
            raise gdb.GdbError("the pointer is NULL")
        value = value.dereference()
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
        if size == 0:
            return b""
        # The address of its first element, not value.address: for an array outside the
        # program's memory (a literal such as "caf\xc3\xa9" typed in gdb) the latter
        # copies it into the program, calling the program's malloc.
        address = value[0].address
        if address is None:
            # Not in the program's memory: read the elements gdb holds.
            return bytes(int(value[i]) & 0xFF for i in range(size))
        return _read(int(address), size)
    if t.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        span = _registered_span(value)
        if span is not None:
            return _span_bytes(*span, length=length)
        data = _std_string(value, t, length)
        if data is not None:
            return data
    raise gdb.GdbError(
        "utf8-check needs a char/unsigned char/uint8_t pointer or array, a std::string,"
        " a std::string_view or a type registered with utf8-annotate type, not %s"
        % value.type
    )


# --- the command and the convenience functions -------------------------------------


def _evaluate(text):
    try:
        return gdb.parse_and_eval(text)
    except gdb.error as e:
        raise shared.Error(str(e))


def _split_arguments(arg):
    """(EXPR value, LEN or None) from `EXPR [LEN]` (see the shared split_arguments)."""
    value, length = _gdb_errors(shared.split_arguments, arg, _evaluate)
    return value, None if length is None else _integer(length, "LEN")


def _integer(value, what):
    t = value.type.strip_typedefs()
    if t.code not in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR, gdb.TYPE_CODE_BOOL, gdb.TYPE_CODE_ENUM):
        raise gdb.GdbError("%s must be an integer, not %s" % (what, value.type))
    return int(value)


class Utf8CheckCommand(gdb.Command):
    __doc__ = "Check whether a string or buffer of the program is well-formed UTF-8.\n\n" + (
        shared.HELP
        % {
            "cxx_strings": "libstdc++",
            "see_also": """The program is not called: the bytes are read from its memory (a core
file works too) and checked by libutf8validate loaded into gdb. See also
the functions $utf8_valid(EXPR [, LEN]) and $utf8_first_error(EXPR [, LEN]),
e.g.
  break handle_request if !$utf8_valid(req->body, req->len)
gdb hands an array variable to a function as a pointer to its first byte, so
$utf8_valid(name) stops at name's first NUL: write $utf8_valid(&name) for all
of its bytes (a pointer to an array, e.g. char (*)[32], is that array, here
too).""",
        }
    )

    def __init__(self):
        super().__init__("utf8-check", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        value, length = _split_arguments(arg)
        report = _gdb_errors(shared.report, bytes_of(value, length), _preferred_libraries())
        # A write per line: over GDB/MI (IDEs) each write is one console stream record,
        # and a record per line is what consoles that handle records one by one expect.
        for line in report.split("\n"):
            gdb.write(line + "\n")


class Utf8ValidFunction(gdb.Function):
    """$utf8_valid(EXPR [, LEN]): 1 if the bytes are well-formed UTF-8, else 0.

EXPR and LEN are as for utf8-check (see `help utf8-check`): a byte pointer with LEN
or up to its NUL, a byte array, a std::string or std::string_view. The program is
not called, so it can be used in breakpoint conditions and on core files:
  break handle_request if !$utf8_valid(req->body, req->len)

An array variable reaches a function as a pointer to its first byte (gdb decays a
variable's name; `s.buf` and `*p` stay arrays), so $utf8_valid(name) stops at the
first NUL of `char name[N]`. For all N bytes, pass the array's address: a pointer
to a byte array designates the array.
  break handle_request if !$utf8_valid(&name)"""

    def __init__(self):
        super().__init__("utf8_valid")

    def invoke(self, expr, length=None):
        n = None if length is None else _integer(length, "LEN")
        return 1 if _check(bytes_of(expr, n)) is None else 0


class Utf8FirstErrorFunction(gdb.Function):
    """$utf8_first_error(EXPR [, LEN]): the 0-based offset of the first byte of the
first ill-formed sequence, or the number of bytes when they are all well-formed
(as the C function utf8_first_error). EXPR and LEN are as for utf8-check and
$utf8_valid: $utf8_first_error(&name) for all the bytes of an array variable."""

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


# --- the annotating printers (utf8-annotate) ----------------------------------------
#
# When on, a lookup function consulted before every other pretty-printer (libstdc++'s
# included) matches the strings it annotates. Its printer shows the text the printer
# otherwise chosen shows (formatted with the lookup held off), then the verdict of
# the shared `annotation`. The bytes are read with gdb's memory API, at most
# `max_bytes` of them, and nothing is called in the program.


class _AnnotateSettings:
    """What `utf8-annotate` set: on or off, the cap on the bytes read per string, and
    the (pointer, length) struct types (NAME -> (DATA, LEN))."""

    def __init__(self):
        self.enabled = False
        self.max_bytes = shared.ANNOTATE_MAX_BYTES
        self.types = {}
        # How many wrapped texts are being formatted: the lookup matches nothing
        # meanwhile, so they are what gdb shows without utf8-annotate.
        self.formatting = 0


_annotate = _AnnotateSettings()


def _read_quietly(address, length):
    """`_read_block`, with an address outside the target's range unreadable too."""
    try:
        return _read_block(address, length)
    except (gdb.error, OverflowError, ValueError):
        return None


def _cstring_verdict(pointer):
    """The verdict on the NUL-terminated string at `pointer`, or None when NULL."""
    address = int(pointer)
    if address == 0:
        return None
    return shared.annotate_cstring(
        _read_quietly, address, _annotate.max_bytes, _preferred_libraries()
    )[2]


def _span_verdict(address, size):
    """The verdict on the `size` bytes at `address`, of which at most max-bytes are
    read; None for a negative size (a garbage length)."""
    if size < 0:
        return None
    return shared.annotate_span(
        _read_quietly, address, size, _annotate.max_bytes, _preferred_libraries()
    )[2]


def _array_verdict(value):
    """The verdict on all the bytes of a byte array."""
    size = value.type.strip_typedefs().sizeof
    address = value[0].address if size else None
    if address is None:
        # Not in the program's memory (a value gdb made): the bytes gdb holds.
        cap = min(size, _annotate.max_bytes)
        return _verdict(bytes(int(value[i]) & 0xFF for i in range(cap)), size=size)
    return _span_verdict(int(address), size)


def _std_string_verdict(value):
    """The verdict on a libstdc++ std::string / std::string_view's size() bytes."""
    span = _std_string_span(value, value.type.strip_typedefs())
    return None if span is None else _span_verdict(int(span[0]), span[1])


def _registered_verdict(value):
    """The verdict on the LEN bytes the DATA field of a registered type points to."""
    return _span_verdict(*_registered_span(value)[:2])


def _verdict(data, size=None, unreadable=None):
    """The shared `annotation` of what was read, with the library gdb prefers."""
    return shared.annotation(data, size, unreadable, _preferred_libraries())


def _registered_name(t):
    """The name `t` was registered under with `utf8-annotate type`, or None: its own
    name (a typedef's included) or, typedefs stripped, its tag."""
    for name in (t.name, t.strip_typedefs().tag, t.strip_typedefs().name):
        if name is not None and name in _annotate.types:
            return name
    return None


def _is_std_string(t):
    """Whether `t` (typedefs stripped) is a libstdc++ string or string_view of 1-byte
    characters, by its name and character type."""
    tag = t.tag or ""
    if not (tag.startswith("std::") and "basic_string" in tag):
        return False
    try:
        return _byte_sized(t.template_argument(0).strip_typedefs())
    except (gdb.error, RuntimeError):
        return False


def _verdict_function(value):
    """How to judge `value`: a function of the value giving its verdict (None: no
    verdict), or None when `value` is not a string utf8-annotate annotates."""
    t = value.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_PTR and _byte_sized(t.target().strip_typedefs()):
        return _cstring_verdict
    if _is_byte_array(t):
        return _array_verdict
    if t.code == gdb.TYPE_CODE_STRUCT:
        if _registered_name(value.type) is not None:
            return _registered_verdict
        if _is_std_string(t):
            return _std_string_verdict
    return None


def _wrapped_text(value):
    """The text of `value` as gdb shows it without utf8-annotate: by the printer
    already there (libstdc++'s for a std::string), else gdb's own formatting."""
    _annotate.formatting += 1
    try:
        # An incomplete type (libstdc++'s std::string under clang++) is gdb's own
        # `<incomplete type>` (`@ADDRESS: <incomplete type>` for a reference to
        # one): libstdc++'s printer fails on it.
        t = value.type.strip_typedefs()
        while t.code in (gdb.TYPE_CODE_REF, gdb.TYPE_CODE_RVALUE_REF):
            t = t.target().strip_typedefs()
        incomplete = _is_incomplete(t)
        return value.format_string(raw=incomplete, deref_refs=incomplete)
    except gdb.error as e:
        return "<error: %s>" % e
    finally:
        _annotate.formatting -= 1


def _safe_verdict(function, value):
    """`function(value)`, or None when the value's bytes cannot be found (memory
    that cannot be read before any byte of the string, e.g. a std::string's size)."""
    try:
        return function(value)
    except (gdb.error, gdb.GdbError, shared.Error, OverflowError, ValueError):
        return None


class _AnnotatingPrinter:
    """A string's usual text followed by its verdict. It has no children: an IDE
    shows its text, the verdict included (a struct registered with `utf8-annotate
    type` too: `{data = 0x... "..", len = 2} [valid UTF-8]`), where gdb would show
    `{...}` for a printer with children."""

    def __init__(self, value, verdict, judged):
        """`verdict(judged)` is the verdict on `value` (`judged` is the value a
        reference refers to, else `value`)."""
        self.value = value
        self.verdict = verdict
        self.judged = judged

    def to_string(self):
        text = _wrapped_text(self.value)
        verdict = _safe_verdict(self.verdict, self.judged)
        return text if verdict is None else "%s %s" % (text, verdict)


class _AnnotateLookup:
    """The pretty-printer lookup function of utf8-annotate; `info pretty-printer`
    lists it as utf8-annotate, and `disable pretty-printer` can turn it off."""

    name = "utf8-annotate"
    enabled = True

    def __call__(self, value):
        if not _annotate.enabled or _annotate.formatting:
            return None
        try:
            judged = value
            if value.type.strip_typedefs().code in (gdb.TYPE_CODE_REF, gdb.TYPE_CODE_RVALUE_REF):
                judged = value.referenced_value()
            function = _verdict_function(judged)
        except gdb.error:
            return None
        return None if function is None else _AnnotatingPrinter(value, function, judged)


_lookup = _AnnotateLookup()


def _put_first(printers):
    """Puts the lookup first in a list of pretty-printers, in place of any copy a
    previous load of this script put there."""
    printers[:] = [_lookup] + [
        p for p in printers if getattr(p, "name", None) != _AnnotateLookup.name
    ]


def _put_first_everywhere(event=None):
    """The lookup first in every object file's list and the program space's: gdb
    consults object files' printers (libstdc++'s are libstdc++.so's) before the
    program space's and the global ones, in the order of the object files, the
    program first."""
    for objfile in gdb.objfiles():
        _put_first(objfile.pretty_printers)
    for progspace in gdb.progspaces():
        _put_first(progspace.pretty_printers)
    _put_first(gdb.pretty_printers)


class Utf8AnnotateCommand(gdb.Command):
    __doc__ = "Show, where gdb prints a string, whether it is well-formed UTF-8.\n\n" + (
        shared.ANNOTATE_HELP
        % {
            "where": "gdb prints it (print, info locals,\nbacktraces, an IDE's variables and watch views over GDB/MI)",
            "types": "libstdc++'s std::string\n                          (both ABIs) and std::string_view",
            "max": shared.ANNOTATE_MAX_BYTES,
            "wrapped": "gdb's own formatting,\nlibstdc++'s printer for a std::string; a NULL pointer shows as 0x0,\nwithout verdict",
        }
    )

    def __init__(self):
        super().__init__("utf8-annotate", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        action = _gdb_errors(shared.parse_annotate, arg)
        if action[0] == "show":
            gdb.write(
                shared.annotate_settings(_annotate.enabled, _annotate.max_bytes, _annotate.types)
                + "\n"
            )
        elif action[0] == "on":
            library()  # fails here, not in every printer, when it cannot be loaded
            _put_first_everywhere()
            _annotate.enabled = True
        elif action[0] == "off":
            _annotate.enabled = False
        elif action[0] == "max-bytes":
            _annotate.max_bytes = action[1]
        else:
            _, name, data, length = action
            _check_fields(name, (data, length))
            _annotate.types[name] = (data, length)


def _check_fields(name, fields):
    """Raises gdb.GdbError when the type NAME is known and lacks one of `fields`; a
    type gdb does not know yet (no program loaded) is taken as it is."""
    try:
        t = gdb.lookup_type(name).strip_typedefs()
    except gdb.error:
        return
    missing = [f for f in fields if f not in _field_names(t)]
    if missing:
        raise gdb.GdbError(
            "the type %s has no field %s" % (name, " and no field ".join(missing))
        )


Utf8AnnotateCommand()
_put_first_everywhere()
gdb.events.new_objfile.connect(_put_first_everywhere)
