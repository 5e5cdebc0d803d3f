# utf8validate for lldb: check whether memory of the debugged program is well-formed
# UTF-8 (RFC 3629 section 4), with the libutf8validate library.
#
# Load it with
#     (lldb) command script import /path/to/utf8validate/lldb/utf8validate.py
# (see lldb/README.md). It adds
#
#     utf8-check EXPR [LEN]    a command (see `help utf8-check`)
#     utf8-annotate [on | off | max-bytes N | type NAME DATA LEN]
#                              a summary provider adding the UTF-8 verdict to strings
#                              wherever lldb shows them, an IDE's variables view
#                              included (see `help utf8-annotate`)
#     utf8validate.stop_if_invalid
#                              a breakpoint callback that continues when the bytes
#                              are well-formed, so the breakpoint stops only on
#                              ill-formed ones:
#         breakpoint set -n handle_request
#         breakpoint command add -F utf8validate.stop_if_invalid -k args -v "req->body req->len"
#
# Nothing here calls into the debugged program: EXPR and LEN are read as variable
# paths or evaluated by lldb's expression interpreter without JIT (so a function call
# in them is refused), the bytes are read with lldb's memory API, and they are
# validated by libutf8validate loaded into lldb's own Python with ctypes. So it works
# on a stopped thread and on a core file.

import importlib.util
import os
import re
import sys

import lldb

_SCRIPT_DIR = os.path.dirname(os.path.realpath(__file__))
SHARED = "utf8validate_debugger"


def _import_shared():
    """utf8validate_debugger.py, the part shared with the gdb extension: the one
    already loaded, else the one in debugger/ beside this script's directory (the
    source tree, and PREFIX/share/utf8validate/ when installed), else one on Python's
    path."""
    if SHARED in sys.modules:
        return sys.modules[SHARED]
    directory = os.path.join(os.path.dirname(_SCRIPT_DIR), "debugger")
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
            "utf8validate: cannot find %s.py (shared with the gdb extension) in %s"
            " or on Python's path" % (SHARED, directory)
        )


shared = _import_shared()
Error = shared.Error

# lldb's one-byte character types (char8_t has no basic type in older lldb).
_BYTE_TYPES = {
    lldb.eBasicTypeChar,
    lldb.eBasicTypeSignedChar,
    lldb.eBasicTypeUnsignedChar,
}
if hasattr(lldb, "eBasicTypeChar8"):
    _BYTE_TYPES.add(lldb.eBasicTypeChar8)


# libc++'s basic_string, in its versioned inline namespace (std::__1 by default), and
# not libstdc++'s std::__cxx11::basic_string.
_LIBCXX_STRING = re.compile(r"^std::__(?!cxx11::)\w+::basic_string<")

# A decimal or hexadecimal integer literal, with an optional sign and C suffix.
_INTEGER = re.compile(r"^([+-]?(?:0[xX][0-9a-fA-F]+|[1-9][0-9]*|0))[uUlL]*$")


class _Context:
    """Where EXPR is evaluated and memory read: a frame (when there is a process or
    a core file), a target and a process (possibly invalid)."""

    def __init__(self, target, process, frame):
        self.target = target
        self.process = process
        self.frame = frame

    @classmethod
    def of_command(cls, exe_ctx):
        # lldb.frame and lldb.target are None inside a command: the execution context
        # is what `up` and `frame select` change.
        target = exe_ctx.GetTarget()
        if not target.IsValid():
            raise Error("no target: load a program or a core file first")
        return cls(target, exe_ctx.GetProcess(), exe_ctx.GetFrame())

    @classmethod
    def of_value(cls, value):
        """Where `value` lives: its frame (invalid for a global), target and process."""
        return cls(value.GetTarget(), value.GetProcess(), value.GetFrame())

    @classmethod
    def of_frame(cls, frame):
        process = frame.GetThread().GetProcess()
        return cls(process.GetTarget(), process, frame)

    # --- reading memory ---

    def read(self, address, length):
        """The `length` bytes at `address`, or None when any cannot be read: from the
        process (or the core file's memory), else from a read-only section of the
        program's files (a core file without that memory). A writable section's file
        contents are not what the program held, so they are never used."""
        if self.process.IsValid():
            error = lldb.SBError()
            data = self.process.ReadMemory(address, length, error)
            if error.Success() and data is not None and len(data) == length:
                return data
        section = self.target.ResolveLoadAddress(address).GetSection()
        if not section.IsValid() or section.GetPermissions() & lldb.ePermissionsWritable:
            return None
        error = lldb.SBError()
        data = self.target.ReadMemory(lldb.SBAddress(address, self.target), length, error)
        if error.Success() and data is not None and len(data) == length:
            return data
        return None

    def read_exact(self, address, length):
        return shared.read_exact(self.read, address, length)

    def word(self, address):
        """The pointer-sized unsigned integer at `address`."""
        size = self.target.GetAddressByteSize()
        return int.from_bytes(self.read_exact(address, size), _byte_order(self.target))

    # --- evaluating EXPR and LEN ---

    def evaluate(self, text):
        """The value of `text`: a variable path (`req->body`, `names[2]`) as `frame
        variable` reads it, an integer literal (a Python int), else an expression of
        lldb's interpreter without JIT, so that no function runs in the program. (For
        the last, lldb may still map a scratch page into a live process, as for any
        `expression` command: hence the first two.)"""
        text = text.strip()
        literal = _INTEGER.match(text)
        if literal:
            return int(literal.group(1), 0)
        if self.frame.IsValid():
            value = self.frame.GetValueForVariablePath(text)
            if value.IsValid() and value.GetError().Success():
                return value
        options = lldb.SBExpressionOptions()
        options.SetAllowJIT(False)
        options.SetIgnoreBreakpoints(True)
        options.SetTryAllThreads(False)
        options.SetFetchDynamicValue(lldb.eNoDynamicValues)
        options.SetSuppressPersistentResult(True)
        if self.frame.IsValid():
            value = self.frame.EvaluateExpression(text, options)
        else:
            value = self.target.EvaluateExpression(text, options)
        if not value.IsValid() or not value.GetError().Success():
            raise Error(_expression_error(value.GetError()))
        return value


def _byte_order(target):
    return "big" if target.GetByteOrder() == lldb.eByteOrderBig else "little"


def _expression_error(error):
    """lldb's expression error without its `error:` and `<user expression N>:L:C:`
    prefixes and without the source line and caret it quotes."""
    lines = []
    for line in str(error).splitlines():
        line = line.strip()
        while line.startswith("error:"):
            line = line[len("error:") :].strip()
        if line.startswith("<user expression"):
            line = line.split(": ", 1)[-1]
            if line.startswith("error: "):
                line = line[len("error: ") :]
        if not line or line == "expression failed to parse:":
            continue
        lines.append(line)
    return lines[0] if lines else "cannot evaluate the expression"


def _integer(value, what):
    if isinstance(value, int):
        return value
    flags = value.GetType().GetCanonicalType().GetTypeFlags()
    if not flags & (lldb.eTypeIsInteger | lldb.eTypeIsEnumeration):
        raise Error("%s must be an integer, not %s" % (what, value.GetTypeName()))
    if flags & lldb.eTypeIsSigned:
        return value.GetValueAsSigned()
    return value.GetValueAsUnsigned()


def _is_byte(t):
    """Whether the type `t` is a 1-byte character or integer type."""
    t = t.GetCanonicalType()
    return t.GetByteSize() == 1 and (t.GetBasicType() in _BYTE_TYPES or t.GetName() == "char8_t")


def _field_names(t):
    t = t.GetCanonicalType()
    return [t.GetFieldAtIndex(i).GetName() for i in range(t.GetNumberOfFields())]


def _field_offset(t, name):
    t = t.GetCanonicalType()
    for i in range(t.GetNumberOfFields()):
        field = t.GetFieldAtIndex(i)
        if field.GetName() == name:
            return field.GetOffsetInBytes()
    raise Error("%s has no field %s" % (t.GetName(), name))


def _object_bytes(value):
    """The bytes of the object `value` itself (a string's own bytes, where a short
    string keeps its characters)."""
    data = value.GetData()
    error = lldb.SBError()
    size = data.GetByteSize()
    raw = data.ReadRawData(error, 0, size) if size else b""
    if not error.Success() or raw is None or len(raw) != size:
        raise Error("cannot read the %d bytes of %s" % (size, value.GetTypeName()))
    return raw


def _is_incomplete(t):
    """Whether the type `t` is a name without a definition in the debug information
    (no fields, no size), as clang++ leaves libstdc++'s std::string."""
    t = t.GetCanonicalType()
    return t.GetByteSize() == 0 and t.GetNumberOfFields() == 0


def _type_names(t):
    """The names of `t`, of the types its typedefs stand for, and its canonical name
    last, all without qualifiers."""
    names = []
    t = t.GetUnqualifiedType()
    while t.IsTypedefType():
        names.append(t.GetName())
        t = t.GetTypedefedType().GetUnqualifiedType()
    names.append(t.GetCanonicalType().GetUnqualifiedType().GetName())
    return names


def _incomplete_string(ctx, value):
    """(data pointer, size) of a libstdc++ std::string whose type is incomplete, read
    from the object's memory (see the shared incomplete_string_abi), or None when
    `value` (or the reference `value`) is no libstdc++ string."""
    t, address = value.GetType(), value.GetLoadAddress()
    if t.IsReferenceType():  # lldb makes no value of the incomplete type it refers to
        t, address = t.GetDereferencedType(), value.GetValueAsUnsigned()
    abi = shared.incomplete_string_abi(_type_names(t))
    if abi is None:
        return None
    if address == lldb.LLDB_INVALID_ADDRESS:
        raise Error("the string is not in the program's memory")
    return shared.libstdcxx_string_span(ctx.word, address, ctx.target.GetAddressByteSize(), abi)


def _character_type_check(t, what):
    """Refuses strings of other than 1-byte characters (their first template
    argument)."""
    character = t.GetCanonicalType().GetTemplateArgumentType(0)
    if character.IsValid() and not _is_byte(character):
        raise Error(
            "%s holds %s, not bytes: only strings of 1-byte characters can be UTF-8"
            % (what, character.GetName())
        )


def _std_string(ctx, value, length):
    """The bytes of a std::string / std::string_view of libstdc++ or libc++, or None
    when `value` is neither."""
    found = _string_location(ctx, value)
    if found is None:
        return None
    what, pointer, size, inline = found
    size = shared.length_arg(length, size, what)
    if inline is not None:
        return inline[:size]
    return ctx.read_exact(pointer, size) if size else b""


def _string_location(ctx, value):
    """(what, data pointer, size, characters or None) of a std::string /
    std::string_view of libstdc++ or libc++, or None when `value` is neither; a
    libc++ short string's characters are inside the object, and given instead of a
    pointer. The layouts are read from the object's bytes, since clang's debug
    information often leaves the inner types (libstdc++'s _Alloc_hider, libc++'s
    __rep) incomplete."""
    t = value.GetType().GetCanonicalType()
    if t.IsReferenceType() and _is_incomplete(t.GetDereferencedType()):
        t = t.GetDereferencedType().GetCanonicalType()
    names = set(_field_names(t))
    order = _byte_order(ctx.target)
    word = ctx.target.GetAddressByteSize()
    inline = None  # a libc++ short string's characters, inside the object itself
    if {"_M_str", "_M_len"} <= names:  # libstdc++ std::basic_string_view
        what = "the string_view"
        pointer = value.GetChildMemberWithName("_M_str").GetValueAsUnsigned()
        size = value.GetChildMemberWithName("_M_len").GetValueAsUnsigned()
    elif "_M_dataplus" in names:  # libstdc++ std::basic_string
        what = "the string"
        # _M_dataplus is an _Alloc_hider: an empty allocator and then _M_p, the data.
        raw = _object_bytes(value)
        at = _field_offset(t, "_M_dataplus")
        pointer = int.from_bytes(raw[at : at + word], order)
        if "_M_string_length" in names:  # the C++11 ABI
            size = value.GetChildMemberWithName("_M_string_length").GetValueAsUnsigned()
        else:  # the copy-on-write string (_GLIBCXX_USE_CXX11_ABI=0)
            size = shared.cow_string_size(ctx.word, pointer, word)
    elif {"__data", "__size"} <= names or {"__data_", "__size_"} <= names:
        what = "the string_view"  # libc++ std::basic_string_view
        suffix = "" if "__data" in names else "_"
        pointer = value.GetChildMemberWithName("__data" + suffix).GetValueAsUnsigned()
        size = value.GetChildMemberWithName("__size" + suffix).GetValueAsUnsigned()
    elif "__r_" in names or _LIBCXX_STRING.match(t.GetUnqualifiedType().GetName()):
        what = "the string"  # libc++ std::basic_string
        pointer, size, inline = _libcxx_string(value, _object_bytes(value), word, order)
    elif not names and _is_incomplete(t):  # libstdc++'s std::string under clang++
        span = _incomplete_string(ctx, value)
        return None if span is None else ("the string",) + span + (None,)
    else:
        return None
    _character_type_check(t, what)
    return what, pointer, size, inline


def _libcxx_string(value, raw, word, order):
    """(data pointer, size, characters or None) of a libc++ string from its bytes
    `raw`. Little-endian layouts only. The usual one starts with the short/long flag
    (bit 0 of the first byte): a long string is {capacity | 1, size, data}, a short
    one {size << 1, characters...}. The alternate layout
    (_LIBCPP_ABI_ALTERNATE_STRING_LAYOUT, long = {data, size, capacity}) keeps the
    flag in bit 7 of its last byte, with the short size in bits 0-6."""
    if order != "little":
        raise Error("libc++ strings are read on little-endian targets only")
    if len(raw) < 3 * word:
        raise Error(
            "%s has %d bytes in the debug information, not a libc++ string's %d"
            % (value.GetTypeName(), len(raw), 3 * word)
        )

    def at(offset):
        return int.from_bytes(raw[offset : offset + word], order)

    # Its __rep is __r_.__value_ up to libc++ 18, __rep_ (in an unnamed member) since.
    long_fields = []
    for path in (("__r_", "__value_", "__l"), ("__rep_", "__l")):
        member = value
        for name in path:
            member = member.GetChildMemberWithName(name)
        if member.IsValid():
            long_fields = _field_names(member.GetType())
            break
    alternate = bool(long_fields) and long_fields[0] == "__data_"
    if alternate:
        flag = raw[3 * word - 1]
        if flag & 0x80:
            return at(0), at(word), None
        size = flag & 0x7F
        return None, size, raw[:size]
    flag = raw[0]
    if flag & 1:
        return at(2 * word), at(word), None
    size = flag >> 1
    return None, size, raw[1 : 1 + size]


def _registered_fields(value):
    """(NAME, DATA, LEN) of the struct type of `value` registered with `utf8-annotate
    type NAME DATA LEN` (under its own name or its canonical one), or None."""
    for t in (value.GetType(), value.GetType().GetCanonicalType()):
        name = t.GetUnqualifiedType().GetName()
        if name in _Annotate.types:
            return (name,) + _Annotate.types[name]
    return None


def _registered_bytes(ctx, value, registered, length):
    """The LEN bytes the field DATA of a registered struct points to, or the first
    `length` of them."""
    name, data_name, length_name = registered
    what = "the %s's %s" % (name, data_name)
    pointer = value.GetChildMemberWithName(data_name)
    size = value.GetChildMemberWithName(length_name)
    for field, field_name in ((pointer, data_name), (size, length_name)):
        if not field.IsValid():
            raise Error("%s has no field %s" % (value.GetTypeName(), field_name))
    size = shared.length_arg(length, _integer(size, "its %s" % length_name), what)
    return ctx.read_exact(pointer.GetValueAsUnsigned(), size) if size else b""


def bytes_of(ctx, value, length=None):
    """The bytes `value` designates (see `help utf8-check`): a pointer to 1-byte
    characters (`length` bytes, or up to its NUL), an array of them (its size, or
    `length`), a struct registered with `utf8-annotate type`, or a std::string /
    std::string_view (libstdc++ or libc++)."""
    if isinstance(value, int):
        raise Error(
            "utf8-check needs a char/unsigned char/uint8_t pointer or array, a std::string,"
            " a std::string_view or a type registered with utf8-annotate type, not an"
            " integer"
        )
    value = value.GetNonSyntheticValue()
    t = value.GetType().GetCanonicalType()
    while t.IsReferenceType() and not _is_incomplete(t.GetDereferencedType()):
        value = value.Dereference().GetNonSyntheticValue()
        t = value.GetType().GetCanonicalType()
    if t.IsPointerType():
        pointee = t.GetPointeeType().GetCanonicalType()
        void = pointee.GetBasicType() == lldb.eBasicTypeVoid
        if not (_is_byte(pointee) or (void and length is not None)):
            raise Error(
                "%s points to %s, not to bytes: cast it, e.g. (const char *)EXPR%s"
                % (
                    value.GetTypeName(),
                    value.GetType().GetPointeeType().GetName(),
                    "" if length is not None else ", or give LEN",
                )
            )
        address = value.GetValueAsUnsigned()
        if length is None:
            if address == 0:
                raise Error("the pointer is NULL")
            return shared.read_cstring(ctx.read, address)
        length = shared.length_arg(length)
        if length == 0:
            return b""
        if address == 0:
            raise Error("the pointer is NULL (with LEN %d)" % length)
        return ctx.read_exact(address, length)
    if t.IsArrayType():
        if not _is_byte(t.GetArrayElementType()):
            raise Error(
                "%s is not an array of bytes (char, unsigned char, uint8_t)"
                % value.GetTypeName()
            )
        size = shared.length_arg(length, t.GetByteSize(), "the array")
        address = value.GetLoadAddress()
        if address == lldb.LLDB_INVALID_ADDRESS:
            # Not in the program's memory: the result of an expression.
            return _object_bytes(value)[:size]
        return ctx.read_exact(address, size) if size else b""
    # A reference left is one to an incomplete type, of which lldb makes no value.
    if t.IsReferenceType() or t.GetTypeClass() in (lldb.eTypeClassClass, lldb.eTypeClassStruct):
        registered = _registered_fields(value)
        if registered is not None:
            return _registered_bytes(ctx, value, registered, length)
        data = _std_string(ctx, value, length)
        if data is not None:
            return data
    raise Error(
        "utf8-check needs a char/unsigned char/uint8_t pointer or array, a std::string,"
        " a std::string_view or a type registered with utf8-annotate type, not %s"
        % value.GetTypeName()
    )


def _bytes_of_arguments(ctx, arguments):
    value, length = shared.split_arguments(arguments, ctx.evaluate)
    return bytes_of(ctx, value, None if length is None else _integer(length, "LEN"))


# --- the command and the breakpoint callback -----------------------------------------


def _unexpected(e):
    """The error text of an exception that is not one of the extension's Errors: a
    bug or an lldb the extension does not know, reported without a traceback."""
    return "utf8-check failed unexpectedly (%s: %s); please report it" % (type(e).__name__, e)


def utf8_check(debugger, command, exe_ctx, result, internal_dict):
    try:
        text = shared.report(_bytes_of_arguments(_Context.of_command(exe_ctx), command))
    except Error as e:
        result.SetError(str(e))
        return
    except Exception as e:  # a traceback in lldb's output is no answer
        result.SetError(_unexpected(e))
        return
    result.AppendMessage(text)


utf8_check.__doc__ = "Check whether a string or buffer of the program is well-formed UTF-8.\n\n" + (
    shared.HELP
    % {
        "cxx_strings": "libstdc++ or libc++",
        "see_also": """The program is not called: the bytes are read from its memory (a core
file works too) and checked by libutf8validate loaded into lldb. EXPR and
LEN are variable paths (as `frame variable` takes them), integers, or
expressions of lldb's interpreter run without JIT, so that a function call
is refused.

To stop at a breakpoint only on ill-formed bytes, give it the callback
utf8validate.stop_if_invalid with EXPR [LEN] as its `args` (one line):
  breakpoint command add -F utf8validate.stop_if_invalid
    -k args -v "req->body req->len"
""",
    }
)


def stop_if_invalid(frame, bp_loc, extra_args, internal_dict):
    """Breakpoint callback: continues when the bytes that `args` (`EXPR [LEN]`, as
    for utf8-check, evaluated in the stopped frame) designates are well-formed UTF-8;
    otherwise prints utf8-check's report and stops (see `_say` for where it prints).
    When they cannot be read, it prints why and stops."""
    arguments = extra_args.GetValueForKey("args")
    try:
        if not arguments.IsValid():
            raise Error(
                'stop_if_invalid needs its EXPR [LEN]: breakpoint command add'
                ' -F utf8validate.stop_if_invalid -k args -v "EXPR [LEN]"'
            )
        text = arguments.GetStringValue(4096)
        data = _bytes_of_arguments(_Context.of_frame(frame), text)
        if shared.check(data) is None:
            return False
        _say("utf8-check %s\n%s" % (text, shared.report(data)))
    except Error as e:
        _say("error: utf8-check: %s" % e)
    except Exception as e:
        _say("error: %s" % _unexpected(e))
    return True


def _say(text):
    """Prints a line of the breakpoint callback where its user reads it: lldb's
    output (Python's sys.stdout in a callback), or, when lldb discards that output,
    the process's standard output. lldb-vscode 14 (an IDE's lldb adapter) sets lldb's
    output to the null device and forwards its own standard output to the IDE as
    `output` events; so there the report reaches the IDE's debug console."""
    if not _is_null_device(sys.stdout):
        print(text)
        return
    data = (text + "\n").encode()
    while data:
        data = data[os.write(1, data) :]


def _is_null_device(stream):
    """Whether the file `stream` writes to is the null device."""
    try:
        written, null = os.fstat(stream.fileno()), os.stat(os.devnull)
    except (AttributeError, OSError, ValueError):
        return False
    return (written.st_dev, written.st_ino) == (null.st_dev, null.st_ino)


# --- utf8-annotate: the summary provider ------------------------------------------------
#
# lldb asks the provider for a value's summary wherever it shows one (`frame
# variable`, `p`, an IDE's variables view). It returns lldb's text for the string with
# the verdict appended. lldb 14 gives a Python provider no way to ask for the summary
# it replaces (the provider's own category matches every value of the type, helper
# values included), so the text is built here as lldb's string printer builds it:
# UTF-8 characters as they are, C escapes, other bytes as \xNN, a closing `...` when
# target.max-string-summary-length cuts it. For char pointers and arrays and libc++'s
# strings, that is the text lldb shows; for libstdc++'s std::string (which lldb 14
# cuts at an embedded NUL, or fails to parse with clang's debug information) and
# std::string_view (no summary), it is the text of their size() bytes.

CATEGORY = "utf8validate"

# What the summaries match, as lldb's type-name regular expressions (POSIX ERE).
_ANNOTATED_REGEXES = [
    r"^(const )?((un)?signed )?char ?\*( const)?$",
    r"^(const )?((un)?signed )?char ?\[[0-9]+\]$",
    r"^std::(__[[:alnum:]]+::)?(string|basic_string<char, .*>)$",
    r"^std::(__[[:alnum:]]+::)?(string_view|basic_string_view<char, .*>)$",
]

# lldb's escapes of a string's bytes (StringPrinter's C++ style).
_ESCAPES = {0: "\\0", 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f",
            13: "\\r", 0x22: '\\"', 0x5C: "\\\\"}


class _Annotate:
    """utf8-annotate's settings: whether it is on, the bytes read per string, and the
    registered (pointer, length) structs, NAME -> (DATA, LEN)."""

    enabled = False
    max_bytes = shared.ANNOTATE_MAX_BYTES
    types = {}


def quoted(data):
    """`data` in double quotes as lldb 14 prints a string: well-formed printable
    characters as they are, C escapes, other characters as \\U and 8 hex digits, each
    byte of an ill-formed sequence as \\x and its hex digits. Python's decoder finds
    the ill-formed bytes; `surrogateescape` hands each as U+DC80-U+DCFF."""
    out = ['"']
    for character in data.decode("utf-8", "surrogateescape"):
        code = ord(character)
        if 0xDC80 <= code <= 0xDCFF:  # an ill-formed byte
            out.append("\\x%x" % (code - 0xDC00))
        elif code in _ESCAPES:
            out.append(_ESCAPES[code])
        elif character.isprintable():
            out.append(character)
        else:
            out.append("\\U%08x" % code)
    out.append('"')
    return "".join(out)


def _summary_length(target):
    """target.max-string-summary-length: the bytes of a string lldb shows."""
    value = lldb.SBDebugger.GetInternalVariableValue(
        "target.max-string-summary-length", target.GetDebugger().GetInstanceName()
    )
    try:
        return int(value.GetStringAtIndex(0))
    except (TypeError, ValueError):
        return 1024


def _text(target, data, size):
    """lldb's text for a string of `size` bytes (None: NUL-terminated) whose first
    bytes are `data`: at most max-string-summary-length of them, then `...` when
    there are more."""
    shown = _summary_length(target)
    more = len(data) > shown or (size is not None and size > shown)
    return quoted(data[:shown]) + ("..." if more else "")


def _pointer_summary(ctx, value):
    """A NUL-terminated string: its text and verdict; none for NULL (lldb shows just
    the address)."""
    address = value.GetValueAsUnsigned()
    if address == 0:
        return ""
    data, stop, verdict = shared.annotate_cstring(ctx.read, address, _Annotate.max_bytes)
    if stop == address:  # not one byte to show
        return verdict
    return "%s %s" % (_text(ctx.target, data, None if stop is None else len(data) + 1), verdict)


def _bytes_summary(ctx, address, size, inline=None, text_data=None):
    """The text and verdict of `size` bytes at `address` (or the characters `inline`),
    at most max-bytes of them read."""
    if inline is not None:
        data, unreadable = bytes(inline[: min(size, _Annotate.max_bytes)]), None
        verdict = shared.annotation(data, size)
    else:
        data, unreadable, verdict = shared.annotate_span(
            ctx.read, address, size, _Annotate.max_bytes
        )
    if unreadable is not None and unreadable == address:  # not one byte to show
        return verdict
    shown = data if text_data is None else text_data(data)
    return "%s %s" % (_text(ctx.target, shown, size), verdict)


def _array_summary(ctx, value, t):
    """A char array: all its bytes; lldb's text leaves out one final NUL."""
    size = t.GetByteSize()
    address = value.GetLoadAddress()
    if address == lldb.LLDB_INVALID_ADDRESS:  # not in memory: an expression's result
        inline = _object_bytes(value)
    else:
        inline = None

    def without_final_nul(data):
        return data[:-1] if len(data) == size and data.endswith(b"\0") else data

    return _bytes_summary(ctx, address, size, inline, without_final_nul)


def _struct_summary(ctx, value, fields):
    """A registered (pointer, length) struct: the LEN bytes DATA points to."""
    data_name, length_name = fields
    pointer = value.GetChildMemberWithName(data_name)
    length = value.GetChildMemberWithName(length_name)
    if not pointer.IsValid() or not length.IsValid():
        return ""
    address, size = pointer.GetValueAsUnsigned(), length.GetValueAsUnsigned()
    if address == 0:
        return "NULL [no string: %s is NULL]" % data_name if size else '"" [valid UTF-8]'
    return _bytes_summary(ctx, address, size)


def _summary(value):
    """The annotated summary of `value`, or "" for none."""
    value = value.GetNonSyntheticValue()
    ctx = _Context.of_value(value)
    t = value.GetType().GetCanonicalType()
    if t.IsPointerType():
        return _pointer_summary(ctx, value) if _is_byte(t.GetPointeeType()) else ""
    if t.IsArrayType():
        return _array_summary(ctx, value, t) if _is_byte(t.GetArrayElementType()) else ""
    registered = _registered_fields(value)
    if registered is not None:
        return _struct_summary(ctx, value, registered[1:])
    found = _string_location(ctx, value)
    if found is None:
        return ""
    _, pointer, size, inline = found
    return _bytes_summary(ctx, pointer, size, inline)


def annotate_summary(value, internal_dict):
    """The summary provider of the category utf8validate: lldb's text of a string
    followed by its verdict. It never raises (lldb would show the exception as the
    value's summary): what it cannot read shows in the verdict, and anything else
    leaves the value without a summary."""
    try:
        return _summary(value)
    except Exception:  # any failure at all: no summary rather than a traceback
        return ""


def _category(debugger):
    """The category utf8validate, created with its summaries on first use."""
    category = debugger.GetCategory(CATEGORY)
    if category.IsValid():
        return category
    category = debugger.CreateCategory(CATEGORY)
    summary = _provider()
    for regex in _ANNOTATED_REGEXES:
        category.AddTypeSummary(lldb.SBTypeNameSpecifier(regex, True), summary)
    return category


def _provider(options=lldb.eTypeOptionHideChildren | lldb.eTypeOptionCascade):
    """The summary of annotate_summary; its children hidden by default, as lldb's own
    string summaries hide them."""
    return lldb.SBTypeSummary.CreateWithFunctionName(__name__ + ".annotate_summary", options)


def _set_enabled(debugger, enabled):
    """Enables the category ahead of every other (so it replaces lldb's own string
    summaries), or disables it."""
    category = _category(debugger)
    if enabled:
        # `type category enable` puts it right after `default` (the user's own
        # summaries), ahead of lldb's; SBTypeCategory.SetEnabled gives no position.
        debugger.HandleCommand("type category disable " + CATEGORY)
        debugger.HandleCommand("type category enable " + CATEGORY)
    else:
        category.SetEnabled(False)
    _Annotate.enabled = enabled


def utf8_annotate(debugger, command, exe_ctx, result, internal_dict):
    try:
        action = shared.parse_annotate(command)
    except Error as e:
        result.SetError(str(e))
        return
    if action[0] in ("on", "off"):
        _set_enabled(debugger, action[0] == "on")
    elif action[0] == "max-bytes":
        _Annotate.max_bytes = action[1]
    elif action[0] == "type":
        name, data, length = action[1:]
        _Annotate.types[name] = (data, length)
        # A project's struct keeps its fields for expanding.
        _category(debugger).AddTypeSummary(
            lldb.SBTypeNameSpecifier(name, False), _provider(lldb.eTypeOptionCascade)
        )
    result.AppendMessage(
        shared.annotate_settings(_Annotate.enabled, _Annotate.max_bytes, _Annotate.types)
    )


utf8_annotate.__doc__ = "Annotate strings with whether they are well-formed UTF-8.\n\n" + (
    shared.ANNOTATE_HELP
    % {
        "where": "lldb shows it (frame variable,\nan IDE's variables view)",
        "types": "std::string and std::string_view\n                          (libstdc++, libc++)",
        "max": shared.ANNOTATE_MAX_BYTES,
        "wrapped": "lldb's text of the string,\n"
        "up to target.max-string-summary-length; for libstdc++'s std::string and\n"
        "std::string_view, which lldb 14 cuts at a NUL or does not show, the text of\n"
        "their size() bytes",
    }
)


def __lldb_init_module(debugger, internal_dict):
    # The module's name is the imported file's stem.
    debugger.HandleCommand("command script add -f %s.utf8_check utf8-check" % __name__)
    debugger.HandleCommand("command script add -f %s.utf8_annotate utf8-annotate" % __name__)
