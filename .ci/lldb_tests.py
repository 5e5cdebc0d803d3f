#!/usr/bin/env python3
"""The lldb extension lldb/utf8validate.py in a real lldb, in batch mode, on
c-tests/gdb/requests.c and c-tests/gdb/strings.cpp built with clang -g -O0.

- live: `utf8-check` on a `char *` plus length, arrays, C strings, a prefix, from the
  caller's frame (and not from the callee's: `up` and `frame select` are honoured);
- the breakpoint callback utf8validate.stop_if_invalid stops exactly on the requests
  with ill-formed bodies, and its report is utf8check's;
- the same checks on the core file (`process save-core`) written at the first stop,
  and the heap (not in such a core) reported as unreadable;
- std::string and std::string_view of libstdc++ (both string ABIs, std::string's type
  complete, and incomplete as clang++ leaves it in most programs) and, when clang++
  can build with it, libc++: live and on a core file, utf8-check and utf8-annotate's
  verdicts; structs registered with `utf8-annotate type`;
- a core file without the writable data the program changed: reported as
  unreadable, not read from the program's file;
- error messages, a function call in EXPR refused without calling it, a callback
  whose bytes cannot be read, the library missing, the installed layout
  (share/utf8validate/{lldb,debugger}, lib/);
- the lldb sessions of docs/debugging.md, run as written, print what it shows;
- buffers larger than any chunk utf8-check reads at once (c-tests/gdb/pages.c): C
  strings of many pages with an ill-formed sequence of every kind at the ends of each
  page-sized read and across page boundaries, around the 1 MiB limit, LENs of several
  MiB, LENs into unmapped memory, arrays; live and on a core file, against Python's
  bytes.decode (`test_pages`);
- in an IDE's adapter, lldb-vscode 14 over the Debug Adapter Protocol, with the
  launch.json of lldb/README.md (`test_dap`): utf8-annotate's verdicts in the
  variables view of c-tests/gdb/annotate.cpp (libstdc++ and libc++, live and on a
  core file; and strings.cpp with std::string incomplete) against Python's
  bytes.decode, utf8-check on a registered struct, lldb's own text kept, the 500-string
  view timed with annotation on and off; stop_if_invalid's report as an output
  event; the debug console's quirks the README documents.

Every report is compared with `utf8check -v` run on the same bytes: the bytes of the C
sources, repeated below (pages.c's, written by this test, with bytes.decode). Run by
.ci/lldb-tests.sh, which builds the library first.
"""

import glob
import json
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release")
LIBRARY = os.path.join(RELEASE, "libutf8validate.so")
UTF8CHECK = os.path.join(RELEASE, "utf8check")
EXTENSION = os.path.join(ROOT, "lldb", "utf8validate.py")
SHARED = os.path.join(ROOT, "debugger", "utf8validate_debugger.py")
TMP = os.path.join(ROOT, "target", "lldb-tests")
IN_CI = os.environ.get("CI") == "true"
TIMEOUT = 120  # seconds for one lldb session; each takes about one
LLDB_VSCODE = None  # lldb-vscode, found by main()

# The buffers of c-tests/gdb/requests.c.
GREETING = b"Gr\xC3\xBC\xC3\x9Fe, Z\xC3\xBCrich\n\xE2\x82\xAC 5"
SURROGATE = b"ok\ncaf\xC3\xA9 \xED\xA0\x80 end"
TRUNCATED = b"emoji: \xF0\x9F\x98"
NAME = b"na\xC3\xAFve" + b"\0" * 10
CSTR = b"path\xC0\xAFetc"
WORD = b"\xCE\xBA\xCF\x8C\xCF\x83\xCE\xBC\xCE\xB5"
# The requests handed to handle_request(), in order: (id, body).
REQUESTS = [(1, GREETING), (2, SURROGATE), (3, WORD), (4, TRUNCATED)]

# The strings of c-tests/gdb/strings.cpp.
SHORT_OK = b"Gr\xC3\xBC\xC3\x9Fe"
LONG_BAD = b"a" * 40 + b"\x80tail"
WITH_NUL = b"ab\0cd\n\xED\xA0\x80"
VIEW = b"aa\x80tai"

passed = 0
failed = 0


def check(condition, what, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s\n%s" % (what, detail))


def equal(got, want, what):
    check(got == want, what, "--- expected\n%s\n--- got\n%s" % (want, got))


# --- tools -----------------------------------------------------------------------


def skip_or_fail(message):
    if IN_CI:
        print("lldb tests: FAIL: %s (CI=true)" % message)
        sys.exit(1)
    print("lldb tests: skipped: %s" % message)
    sys.exit(0)


def lldb_python_path():
    """The directory holding lldb's Python package. Debian 12's lldb 14 names one
    that does not exist (`lldb -P`); its package is in the llvm directory instead."""
    named = subprocess.run(["lldb", "-P"], capture_output=True, text=True).stdout.strip()
    llvm = os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("lldb"))))
    candidates = [named] + sorted(glob.glob(os.path.join(llvm, "lib", "python3*", "*-packages")))
    for candidate in candidates:
        if candidate and os.path.exists(os.path.join(candidate, "lldb", "embedded_interpreter.py")):
            return candidate
    return None


def path_without_own_python():
    """PATH without the directories of the Python running this script when it is not
    the system's (pyenv puts its version's bin/ first): lldb's embedded Python finds
    its prefix through the first `python3` on PATH, and another installation's
    prefix lacks the system's packages that lldb's own package imports (six)."""
    own = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)} - {"/usr", "/"}
    return os.pathsep.join(
        d for d in os.environ.get("PATH", "").split(os.pathsep)
        if not any(os.path.realpath(d) == p or os.path.realpath(d).startswith(p + os.sep) for p in own)
    )


def run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, **kwargs)


def compile_program(compiler, source, exe, flags, libraries=()):
    result = run(
        [compiler, "-g", "-O0", "-Wall", "-Wextra", "-Werror"]
        + flags
        + ["-I", os.path.join(ROOT, "include"), os.path.join(ROOT, "c-tests", "gdb", source)]
        + list(libraries)
        + ["-o", exe]
    )
    if result.returncode != 0:
        print("FAIL: %s %s:\n%s" % (compiler, source, result.stderr))
        sys.exit(1)
    return exe


# --- the oracle ------------------------------------------------------------------

_oracle_files = 0


def expected(data):
    """What utf8-check must print for `data`, from `utf8check -v` on the same bytes:
    `valid UTF-8 (N bytes)`, or its verdict (`FILE: line L, char C, byte B: MESSAGE`)
    in utf8-check's words, and its hex dump."""
    global _oracle_files
    _oracle_files += 1
    path = os.path.join(TMP, "bytes-%d" % _oracle_files)
    with open(path, "wb") as f:
        f.write(data)
    result = subprocess.run([UTF8CHECK, "-v", path], capture_output=True)
    out = result.stdout.decode()
    if result.returncode == 0:
        return "valid UTF-8 (%d byte%s)" % (len(data), "" if len(data) == 1 else "s")
    verdict, dump = out.split("\n", 1)
    match = re.fullmatch(re.escape(path) + r": line (\d+), char (\d+), byte (\d+): (.*)", verdict)
    if result.returncode != 1 or not match:
        print("FAIL: utf8check -v %s: exit %d, %r" % (path, result.returncode, out))
        sys.exit(1)
    line, char, byte, message = match.groups()
    lines = ["invalid UTF-8 at byte %s (line %s, char %s): %s" % (byte, line, char, message)]
    lines += [l.rstrip() for l in dump.strip("\n").split("\n")]
    return "\n".join(lines)


# --- lldb sessions ---------------------------------------------------------------


def lldb_environment(env=None):
    """The environment of an lldb process: lldb's Python package on PYTHONPATH, the
    system's python3 first on PATH, UTF8VALIDATE_LIB naming the built library, then
    `env` (a value of None removes the variable)."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (PYTHONPATH, os.environ.get("PYTHONPATH")) if p
    )
    environment["PATH"] = path_without_own_python()
    environment["UTF8VALIDATE_LIB"] = LIBRARY
    for key, value in (env or {}).items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    return environment


def lldb(name, commands, args, env=None, cwd=None):
    """Runs `lldb -b` with `commands` sourced from a file, going on after a failing
    command (batch mode otherwise ends at the first), and returns stdout and stderr
    as lldb wrote them. UTF8VALIDATE_LIB names the built library unless `env` says
    otherwise (a value of None removes the variable)."""
    script = os.path.join(TMP, name + ".lldb")
    with open(script, "w") as f:
        f.write("\n".join(commands) + "\n")
    environment = lldb_environment(env)
    argv = ["lldb", "-b", "--no-lldbinit", "-o", 'command source -e false "%s"' % script] + args
    started = time.time()
    result = subprocess.run(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=environment,
        cwd=cwd,
        timeout=TIMEOUT,
    )
    # Lossy: the programs print some of their ill-formed strings.
    out = result.stdout.decode("utf-8", "replace")
    with open(os.path.join(TMP, name + ".log"), "w") as f:
        f.write(out)
    print("  %s: lldb session of %.1f s" % (name, time.time() - started))
    return out


def marked(label, command):
    """lldb commands that print `@@label` and then run `command`."""
    return ['script print("@@%s")' % label, command]


def section(out, label):
    """The output of the command after the marker `@@label`: the lines after its
    echoed command line, up to the next command line or marker."""
    lines = out.split("\n")
    try:
        at = lines.index("@@" + label) + 1
    except ValueError:
        return "<no output for %s>" % label
    while at < len(lines) and not lines[at].startswith("(lldb) "):
        at += 1
    got = []
    for line in lines[at + 1 :]:
        if line.startswith("(lldb) ") or line.startswith("@@"):
            break
        got.append(line.rstrip())
    return "\n".join(got).strip("\n")


def run_checks(out, checks, context):
    for label, command, want in checks:
        got = section(out, label)
        if isinstance(want, bytes):
            equal(got, expected(want), "%s: `%s`" % (context, command))
        else:  # the start of an error message
            check(got.startswith(want), "%s: `%s`" % (context, command),
                  "expected a line starting %r, got:\n%s" % (want, got))


def check_commands(checks):
    commands = []
    for label, command, _ in checks:
        commands += marked(label, command)
    return commands


# --- the tests -------------------------------------------------------------------

IMPORT = "command script import " + EXTENSION

# utf8-check on requests.c's buffers from main()'s frame, with the bytes each reads.
C_CHECKS = [
    ("valid", "utf8-check requests[0].body requests[0].len", GREETING),
    # const char[23]: all of it, its NUL included.
    ("array-with-nul", "utf8-check greeting", GREETING + b"\0"),
    # unsigned char[17] and an expression for LEN (without its NUL).
    ("invalid-len", "utf8-check surrogate sizeof(surrogate)-1", SURROGATE),
    ("pointer-len", "utf8-check requests[1].body requests[1].len", SURROGATE),
    # uint8_t[10]: its size.
    ("truncated", "utf8-check truncated", TRUNCATED),
    # char[16]: all 16 bytes, NULs included; decayed to char *: up to the NUL.
    ("array", "utf8-check name", NAME),
    ("array-to-nul", "utf8-check &name[0]", b"na\xC3\xAFve"),
    ("cstring", "utf8-check cstr", CSTR),
    ("cstring-valid", "utf8-check word", WORD),
    # A prefix cut inside a character.
    ("prefix", "utf8-check word 3", WORD[:3]),
]


def test_live(requests):
    """At checkpoint(): main()'s variables are not visible from checkpoint()'s frame,
    and are after `up` or `frame select 1`."""
    commands = [IMPORT, "breakpoint set -n checkpoint", "run"]
    commands += marked("callee", "utf8-check cstr")
    commands += ["up"] + check_commands(C_CHECKS)
    commands += ["frame select 0"] + marked("selected-0", "utf8-check cstr")
    commands += ["frame select 1"] + marked("selected-1", "utf8-check cstr")
    out = lldb("live", commands, [requests])
    run_checks(out, C_CHECKS, "live process")
    run_checks(
        out,
        [
            ("callee", "utf8-check cstr in checkpoint()", "error: use of undeclared identifier 'cstr'"),
            ("selected-0", "utf8-check cstr after frame select 0", "error: use of undeclared identifier 'cstr'"),
            ("selected-1", "utf8-check cstr after frame select 1", CSTR),
        ],
        "live process",
    )


CALLBACK = 'breakpoint command add -F utf8validate.stop_if_invalid -k args -v "req->body req->len"'
# The line the callback prints before its report.
CALLBACK_LINE = "utf8-check req->body req->len"
STOP = (
    'script print("@@stop id=%d handled-before=%d" % ('
    'lldb.frame.GetValueForVariablePath("req->id").GetValueAsSigned(), '
    'lldb.frame.GetValueForVariablePath("handled").GetValueAsSigned()))'
)


def test_callback(requests, core):
    """The callback stops exactly on the requests with ill-formed bodies (one
    `continue` per expected stop: a stop too many leaves the program unfinished, one
    too few makes the last `continue` fail), printing utf8check's report. A core file
    is saved at the first stop."""
    invalid = [
        (i, rid, body) for i, (rid, body) in enumerate(REQUESTS) if expected(body).startswith("invalid")
    ]
    commands = [IMPORT, "breakpoint set -n handle_request", CALLBACK, "run"]
    for n, _ in enumerate(invalid):
        commands.append(STOP)
        if n == 0:
            commands.append('process save-core -s stack "%s"' % core)
        commands.append("continue")
    commands.append("breakpoint list")
    out = lldb("callback", commands, [requests])
    stops = [line[len("@@stop ") :] for line in out.split("\n") if line.startswith("@@stop ")]
    equal(stops, ["id=%d handled-before=%d" % (rid, i) for i, rid, _ in invalid], "callback stops")
    reports = re.findall(
        r"^utf8-check req->body req->len\n((?:invalid|valid) UTF-8.*\n(?:.*\|.*\n)*)", out, re.M
    )
    equal(
        ["\n".join(l.rstrip() for l in r.strip("\n").split("\n")) for r in reports],
        [expected(body) for _, _, body in invalid],
        "the callback's reports",
    )
    check("hit count = %d" % len(REQUESTS) in out, "the breakpoint was hit on every request", out)
    check("handled 4 requests, rejected 2" in out, "the program ran to its end", out)
    check("exited with status = 0" in out, "the program exited", out)


def test_core(requests, core):
    """On the core file saved at the first invalid request: the callee's argument,
    then main()'s buffers (its stack and read-only data); the heap is not in it."""
    check(os.path.exists(core), "process save-core wrote %s" % core)
    commands = [IMPORT] + marked("request", "utf8-check req->body req->len")
    commands += ["up"] + check_commands(C_CHECKS)
    commands += marked("heap", "utf8-check big")
    out = lldb("core", commands, [requests, "-c", core])
    check("Core file" in out and "was loaded" in out, "a core-file session", out)
    run_checks(
        out,
        C_CHECKS
        + [
            ("request", "utf8-check req->body req->len", SURROGATE),
            ("heap", "utf8-check big", "error: cannot read memory at 0x"),
        ],
        "core file",
    )


STRING_CHECKS = [
    ("short", "utf8-check short_ok", SHORT_OK),
    ("long", "utf8-check long_bad", LONG_BAD),
    # Its size counts, not its first NUL.
    ("nul", "utf8-check with_nul", WITH_NUL),
    ("view", "utf8-check view", VIEW),
    ("ref", "utf8-check ref", SHORT_OK),
    ("prefix", "utf8-check long_bad 40", LONG_BAD[:40]),
    ("too-long", "utf8-check long_bad 46", "error: LEN 46 exceeds the 45 bytes of the string"),
]
# strings.cpp's (pointer, length) structs, registered with `utf8-annotate type
# span ptr len`: body is with_nul's first 5 bytes, bad is view's bytes.
REGISTERED_CHECKS = [
    ("span-body", "utf8-check body", WITH_NUL[:5]),
    ("span-bad", "utf8-check bad", VIEW),
    ("span-prefix", "utf8-check bad 2", VIEW[:2]),
    ("span-too-long", "utf8-check bad 7", "error: LEN 7 exceeds the 6 bytes of the span's ptr"),
]
# The strings utf8-annotate annotates in strings.cpp, as `frame variable` shows them.
STRING_LOCALS = {"short_ok": SHORT_OK, "long_bad": LONG_BAD, "with_nul": WITH_NUL, "view": VIEW}


def test_strings(name, exe, short_in_object, incomplete):
    """std::string and std::string_view, live and on a core file (where only a
    string short enough to be kept inside the object, on the stack, is readable);
    structs registered with utf8-annotate type; the annotated strings' verdicts.
    `incomplete`: the build leaves std::string an incomplete type (checked first)."""
    core = os.path.join(TMP, name + ".dmp")
    if os.path.exists(core):
        os.remove(core)
    commands = [IMPORT, "breakpoint set -n checkpoint", "run", "up"]
    commands += marked("complete", "script t = lldb.frame.FindVariable('with_nul').GetType();"
                       " print(t.GetByteSize(), t.GetNumberOfFields())")
    commands += check_commands(STRING_CHECKS)
    commands += ["utf8-annotate type span ptr len"] + check_commands(REGISTERED_CHECKS)
    commands += ["utf8-annotate on"] + marked("annotated", "frame variable " + " ".join(STRING_LOCALS))
    commands += ['process save-core -s stack "%s"' % core]
    out = lldb(name, commands, [exe])
    check((section(out, "complete") == "0 0") == incomplete,
          "%s: std::string is %s" % (name, "incomplete" if incomplete else "complete"),
          section(out, "complete"))
    run_checks(out, STRING_CHECKS + REGISTERED_CHECKS, name)
    shown = dict(re.findall(r"^\([^)]*\) (\w+) = (.*)$", section(out, "annotated"), re.M))
    for local, data in STRING_LOCALS.items():
        equal(split_value(shown.get(local, "<missing>"))[1], string_verdict(data),
              "%s: utf8-annotate's verdict on %s" % (name, local))
    commands = [IMPORT, "up"]
    commands += marked("short", "utf8-check short_ok") + marked("long", "utf8-check long_bad")
    out = lldb(name + "-core", commands, [exe, "-c", core])
    unreadable = "error: cannot read memory at 0x"
    if not short_in_object:  # the copy-on-write string's length is on the heap too
        unreadable = "error: cannot read the length stored before the string's data: " + unreadable[7:]
    run_checks(
        out,
        [
            ("short", "utf8-check short_ok", SHORT_OK if short_in_object else unreadable),
            ("long", "utf8-check long_bad", unreadable),
        ],
        name + " core file",
    )


def test_errors(requests):
    """Error messages; the edge of a mapping (checked before any expression, for
    which lldb may map a page into the process); a function call refused and not
    made; the help."""
    edge_cases = [
        ("edge", "utf8-check edge"),
        ("edge-len", "utf8-check edge 17"),
        ("edge-readable", "utf8-check edge 16"),
        ("big", "utf8-check big"),
        ("big-len", "utf8-check big 2097151"),
    ]
    cases = [
        ("(char *)0", "error: the pointer is NULL"),
        ("(char *)8 4", "error: cannot read memory at 0x8: byte 0 of the 4 bytes at 0x8"),
        ("requests", "error: request[4] is not an array of bytes (char, unsigned char, uint8_t)"),
        ("name 17", "error: LEN 17 exceeds the 16 bytes of the array"),
        ("word -1", "error: LEN is negative: -1"),
        ("word nosuch", "error: LEN nosuch: use of undeclared identifier 'nosuch'"),
        ("&handled", "error: int * points to int, not to bytes"),
        ("", "error: usage: utf8-check EXPR [LEN]"),
        ("5", "error: utf8-check needs a char/unsigned char/uint8_t pointer"),
        ("word handle_request(&requests[0])", "error: LEN handle_request(&requests[0]): "),
    ]
    address = 'script print("@@%s=%%d" %% lldb.frame.GetValueForVariablePath("%s").GetValueAsUnsigned())'
    commands = [IMPORT, "breakpoint set -n checkpoint", "run", "up"]
    commands += [address % ("edge", "edge"), address % ("big", "big")]
    for label, command in edge_cases:
        commands += marked(label, command)
    for i, (arguments, _) in enumerate(cases):
        commands += marked("case%d" % i, ("utf8-check " + arguments).strip())
    commands += [address % ("handled", "handled")]
    commands += marked("help", "help utf8-check")
    # A callback whose bytes cannot be read stops at the first hit and says why.
    commands += ["breakpoint set -n handle_request",
                 'breakpoint command add -F utf8validate.stop_if_invalid -k args -v "req->body nosuch"',
                 "continue", STOP]
    out = lldb("errors", commands, [requests])
    edge = int(re.search(r"^@@edge=(\d+)$", out, re.M).group(1))
    big = int(re.search(r"^@@big=(\d+)$", out, re.M).group(1))
    page = edge + 16
    run_checks(
        out,
        [
            ("edge", "utf8-check edge",
             "error: cannot read memory at %#x (byte 16 of the string at %#x) before finding its"
             " NUL; give the length: utf8-check EXPR LEN" % (page, edge)),
            ("edge-len", "utf8-check edge 17",
             "error: cannot read memory at %#x: byte 16 of the 17 bytes at %#x" % (page, edge)),
            ("edge-readable", "utf8-check edge 16", b"a" * 16),
            ("big", "utf8-check big",
             "error: no NUL in the first 1048576 bytes of the string at %#x; give the length:"
             " utf8-check EXPR LEN" % big),
            ("big-len", "utf8-check big 2097151", b"a" * 2097151),
        ]
        + [("case%d" % i, "utf8-check " + a, m) for i, (a, m) in enumerate(cases)],
        "errors",
    )
    equal(re.search(r"^@@handled=(\d+)$", out, re.M).group(1), "0",
          "handle_request() was not called by utf8-check")
    check("error: utf8-check: LEN nosuch: use of undeclared identifier 'nosuch'" in out
          and "@@stop id=1 handled-before=0" in out,
          "a callback that cannot read its bytes stops at the first hit with the error", out)
    help_text = section(out, "help")
    for part in ("Check whether a string or buffer", "Usage: utf8-check EXPR [LEN]",
                 "utf8validate.stop_if_invalid", '-k args -v "req->body req->len"'):
        check(part in help_text, "help utf8-check shows %r" % part, help_text)


# Writable data that the program changed: its file still holds the first contents.
WRITABLE_C = r"""
char status[8] = "idle";
__attribute__((noinline)) void stop(void) {}
int main(void) {
  status[0] = (char)0xC0; /* an overlong C0 AF: "idle" is gone */
  status[1] = (char)0xAF;
  stop();
  return status[0];
}
"""


def test_core_writable_data():
    """A core file without the program's writable data: utf8-check says it cannot
    read it, rather than check the program file's stale first contents."""
    source = os.path.join(TMP, "writable.c")
    with open(source, "w") as f:
        f.write(WRITABLE_C)
    exe = os.path.join(TMP, "writable")
    result = run(["clang", "-g", "-O0", source, "-o", exe])
    check(result.returncode == 0, "clang writable.c", result.stderr)
    core = os.path.join(TMP, "writable.dmp")
    if os.path.exists(core):
        os.remove(core)
    commands = [IMPORT, "breakpoint set -n stop", "run", "up"]
    commands += marked("live", "utf8-check status")
    commands += ['process save-core -s stack "%s"' % core]
    out = lldb("writable", commands, [exe])
    run_checks(out, [("live", "utf8-check status", b"\xC0\xAFle\0\0\0\0")], "writable data")
    out = lldb("writable-core", [IMPORT, "up"] + marked("core", "utf8-check status"), [exe, "-c", core])
    run_checks(out, [("core", "utf8-check status", "error: cannot read memory at 0x")],
               "writable data, core file")


def test_no_process_and_missing_library(requests):
    """Without a process, read-only data is read from the program's file; a library
    that cannot be loaded is reported with the paths tried."""
    out = lldb("no-process", [IMPORT] + marked("static", "utf8-check surrogate"), [requests])
    run_checks(out, [("static", "utf8-check surrogate", SURROGATE + b"\0")], "no process")
    missing = os.path.join(TMP, "nowhere", "libutf8validate.so")
    out = lldb("missing", [IMPORT] + marked("load", "utf8-check surrogate"), [requests],
               env={"UTF8VALIDATE_LIB": missing})
    want = ("error: utf8validate: cannot load libutf8validate; tried:\n  %s: no such file\n"
            "Set UTF8VALIDATE_LIB to the library's path" % missing)
    got = section(out, "load")
    check(got.startswith(want), "missing library", "expected %r, got:\n%s" % (want, got))


def test_installed_layout(requests):
    """PREFIX/share/utf8validate/lldb/utf8validate.py finds its shared module in
    PREFIX/share/utf8validate/debugger and the library in PREFIX/lib."""
    prefix = os.path.join(TMP, "prefix")
    shutil.rmtree(prefix, ignore_errors=True)
    libdir = os.path.join(prefix, "lib")
    os.makedirs(libdir)
    real = "libutf8validate.so.0.0.0"
    shutil.copy(LIBRARY, os.path.join(libdir, real))
    os.symlink(real, os.path.join(libdir, "libutf8validate.so"))
    for directory, source in (("lldb", EXTENSION), ("debugger", SHARED)):
        os.makedirs(os.path.join(prefix, "share", "utf8validate", directory))
        shutil.copy(source, os.path.join(prefix, "share", "utf8validate", directory))
    commands = ["command script import " + os.path.join(prefix, "share/utf8validate/lldb/utf8validate.py")]
    commands += marked("check", "utf8-check surrogate")
    commands += ['script import sys; print("@@library=" + sys.modules["utf8validate_debugger"].library().utf8validate_path)']
    out = lldb("installed", commands, [requests], env={"UTF8VALIDATE_LIB": None, "LD_LIBRARY_PATH": None, "CARGO_TARGET_DIR": None})
    run_checks(out, [("check", "utf8-check surrogate", SURROGATE + b"\0")], "installed layout")
    found = re.search(r"^@@library=(.*)$", out, re.M)
    check(found is not None and found.group(1).startswith(libdir + os.sep),
          "the library is taken from PREFIX/lib", out)


# --- Input larger than any chunk utf8-check reads at once: c-tests/gdb/pages.c ------
#
# The extension (debugger/utf8validate_debugger.py) reads a C string in blocks that
# never cross a PAGE boundary, looking for its NUL in at most MAX_CSTRING bytes; an
# explicit LEN (at most MAX_LENGTH) at once, and when that fails page by page to name
# the first unreadable byte. pages.c places buffers that this test describes at known
# offsets from page boundaries (each on the heap before an unmapped page, or on the
# stack); every answer is checked against Python's bytes.decode on the bytes the test
# wrote, with the kind from the bytes at the error (`classify`). The same cases as
# c-tests/tests/gdb.rs (`page_cases`).

# The extension's block size and limits.
PAGE = 4096
MAX_CSTRING = 1 << 20
MAX_LENGTH = 256 << 20
MIB = 1 << 20
# pages.c's filler: "aé€😀", characters of 1 to 4 bytes in 10 bytes, so that page
# boundaries (4096 apart) cut them at every place in turn.
PATTERN = b"a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"
# Where PATTERN's characters start (positions modulo 10).
PATTERN_STARTS = (0, 1, 3, 6)
# An ill-formed sequence of every kind. The last two are truncated where they end the
# input, and miss a continuation byte elsewhere.
ILL_FORMED = [
    b"\x80",  # a continuation byte without a lead
    b"\xC0",  # invalid leads: overlong 2-byte forms,
    b"\xC1",
    b"\xF5",  # above U+10FFFF,
    b"\xFF",  # never used
    b"\xE0\x80\xAF",  # overlong 3-byte form of U+002F
    b"\xF0\x80\x80\xAF",  # overlong 4-byte form of U+002F
    b"\xED\xA0\x80",  # the surrogate U+D800
    b"\xF4\x90\x80\x80",  # U+110000
    b"\xE2\x82\x41",  # a missing continuation byte (E2 82 AC is U+20AC)
    b"\xE2\x82",  # truncated U+20AC
    b"\xF0\x9F\x98",  # truncated U+1F600
]

# The messages of the error kinds (include/utf8validate.h, utf8_error_kind_message).
KIND_MESSAGES = {
    "unexpected_continuation": "A continuation byte (80-BF) appears where a lead byte was expected.",
    "missing_continuation": "A lead byte is not followed by enough continuation bytes.",
    "truncated": "The input ends in the middle of a multi-byte sequence.",
    "overlong": "An overlong (non-shortest) form encodes a code point with more bytes than needed.",
    "surrogate": "A UTF-16 surrogate (U+D800-U+DFFF) is encoded, which is not a scalar value.",
    "too_large": "A sequence encodes a value above U+10FFFF.",
    "invalid_byte": "A byte that never appears in UTF-8 (F8-FF) is present.",
}


class Buffer:
    """A buffer of pages.c (see its comment for the record's fields)."""

    def __init__(self, offset, length, nul=True, ascii=False, on_stack=False, split=False):
        self.offset, self.length, self.nul, self.ascii, self.on_stack = offset, length, nul, ascii, on_stack
        # Its pages from the first page boundary after its middle are read-only.
        self.split = split
        self.patches = []

    def split_at(self):
        """Where its read-only pages start, with pages of PAGE bytes."""
        return -(-(self.offset + self.length // 2) // PAGE) * PAGE - self.offset

    def starts_character(self, at):
        return self.ascii or at % len(PATTERN) in PATTERN_STARTS

    def with_(self, at, data):
        """With `data` at `at`, and 'x' over the filler's characters it cuts, so that
        everything else is whole characters."""
        start, end = at, at + len(data)
        while not self.starts_character(start):
            start -= 1
        while end < self.length and not self.starts_character(end):
            end += 1
        assert end <= self.length, "a patch beyond the buffer's end"
        self.patches.append((start, b"x" * (at - start) + data + b"x" * (end - at - len(data))))
        return self

    def bytes(self):
        """Its `length` bytes, as pages.c writes them."""
        if self.ascii:
            data = bytearray(b"a" * self.length)
        else:
            data = bytearray((PATTERN * (self.length // len(PATTERN) + 1))[: self.length])
        for at, patch in self.patches:
            data[at : at + len(patch)] = patch
        assert 0 not in data, "a NUL inside a buffer"
        return bytes(data)

    def record(self):
        """Its record in pages.c's cases file."""
        flags = (0 if self.nul else 1) | (2 if self.ascii else 0) | (4 if self.split else 0)
        out = struct.pack("=5Q", int(self.on_stack), self.offset, self.length, flags, len(self.patches))
        for at, patch in self.patches:
            out += struct.pack("=2Q", at, len(patch)) + patch
        return out

    def readable(self, page_size):
        """The bytes readable from its start: on the heap, up to the unmapped page
        after its bytes and NUL."""
        if self.on_stack:
            return float("inf")
        span = self.offset + self.length + (1 if self.nul else 0)
        return -(-span // page_size) * page_size - self.offset


def classify(data, at, ends):
    """The kind of the ill-formed sequence at `at`, from its first two bytes as RFC
    3629's table defines them (not from the library); `ends`: the input ends inside
    it."""
    first, second = data[at], data[at + 1] if at + 1 < len(data) else None
    if 0x80 <= first <= 0xBF:
        return "unexpected_continuation"
    if first in (0xC0, 0xC1) or (first == 0xE0 and second is not None and 0x80 <= second <= 0x9F) \
            or (first == 0xF0 and second is not None and 0x80 <= second <= 0x8F):
        return "overlong"
    if first == 0xED and second is not None and 0xA0 <= second <= 0xBF:
        return "surrogate"
    if 0xF5 <= first <= 0xF7 or (first == 0xF4 and second is not None and 0x90 <= second <= 0xBF):
        return "too_large"
    if first >= 0xF8:
        return "invalid_byte"
    return "truncated" if ends else "missing_continuation"


def oracle(data):
    """What utf8-check must print for `data`, from Python's UTF-8 decoder: its first
    error and maximal subpart (e.start, e.end), the line and byte column, and the
    hex dump of 8 bytes before and 8 from the error."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        at, end, ends = e.start, e.end, e.reason == "unexpected end of data"
    else:
        return "valid UTF-8 (%d byte%s)" % (len(data), "" if len(data) == 1 else "s")
    line = data.count(b"\n", 0, at) + 1
    char = at - (data.rfind(b"\n", 0, at) + 1) + 1
    start = max(0, at - 8)
    context = data[start : at + 8]
    text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in context)
    hex_part = "".join("%02X " % b for b in context)
    carets = " " * (3 * (at - start)) + "^" * (3 * (end - at) - 1)
    text_carets = " " * (at - start) + "^" * (end - at)
    return "\n".join(
        [
            "invalid UTF-8 at byte %d (line %d, char %d): %s"
            % (at, line, char, KIND_MESSAGES[classify(data, at, ends)]),
            ("%-48s | %s" % (hex_part, text)).rstrip(),
            ("%-48s | %s" % (carets, text_carets)).rstrip(),
        ]
    )


def page_expected(buffer, data, array, length, address, page_size):
    """What `utf8-check bufs[i] [length]` (with `array`, `utf8-check *(unsigned char
    (*)[array])bufs[i] [length]`) must print, from the bytes of the buffer (`data`),
    where it is (`address`) and what follows it."""
    readable = buffer.readable(page_size)
    if array is not None:  # its `array` bytes, or its first `length`
        if length is not None and length > array:
            return "error: LEN %d exceeds the %d bytes of the array" % (length, array)
        length = array if length is None else length
    if length is None:
        # Up to the NUL, looked for in the first MAX_CSTRING bytes.
        if buffer.nul and buffer.length < MAX_CSTRING:
            return oracle(data)
        if readable < MAX_CSTRING:
            return ("error: cannot read memory at %#x (byte %d of the string at %#x) before finding"
                    " its NUL; give the length: utf8-check EXPR LEN" % (address + readable, readable, address))
        return ("error: no NUL in the first %d bytes of the string at %#x; give the length:"
                " utf8-check EXPR LEN" % (MAX_CSTRING, address))
    if length > MAX_LENGTH:
        return "error: LEN %d is larger than the %d bytes utf8-check accepts" % (length, MAX_LENGTH)
    if length > readable:
        return "error: cannot read memory at %#x: byte %d of the %d bytes at %#x" % (
            address + readable, readable, length, address)
    assert not buffer.on_stack or length <= buffer.length + 1, "LEN beyond a stack buffer's NUL"
    # Its NUL, and the zeros of its mapping after it.
    return oracle(data[:length] + bytes(max(0, length - len(data))))


def page_cases(big, max_length=False):
    """pages.c's buffers and the checks on them: (buffer index, N, LEN, what) for
    `utf8-check bufs[i] [LEN]` (N None, LEN None as a C string) or `utf8-check
    *(unsigned char (*)[N])bufs[i] [LEN]`. `big`: also those of several MiB (for an
    explicit LEN); `max_length`: and the one of MAX_LENGTH bytes (else a LEN of
    MAX_LENGTH + 1 is refused without it)."""
    buffers, checks = [], []

    def add(buffer, lengths, what):
        """The buffer, its checks by LEN (None: as a C string); returns its index."""
        checks.extend((len(buffers), None, length, what) for length in lengths)
        buffers.append(buffer)
        return len(buffers) - 1

    arrays = []  # checked last: lldb evaluates them as expressions (see check_pages)

    def add_array(index, n, length=None):
        what = next(c[3] for c in checks if c[0] == index)
        arrays.append((index, n, length, "%s, as an array of %d bytes" % (what, n)))

    def hex_(data):
        return " ".join("%02X" % b for b in data)

    # C strings of five pages and more, starting 3 bytes before a page boundary (the
    # first block read is 3 bytes) or on one: an ill-formed sequence starting at each
    # of the last 4 bytes before a boundary (inside the block or straddling it) and at
    # each of the first 4 after it, at the first boundaries and at a later one.
    for offset, boundaries in ((PAGE - 3, (3, 3 + PAGE, 3 + 4 * PAGE)), (0, (PAGE, 4 * PAGE))):
        for boundary in boundaries:
            for seq in ILL_FORMED:
                for at in range(max(0, boundary - 4), boundary + 4):
                    buffer = Buffer(offset, 5 * PAGE + 1000)
                    if at > 2100:
                        buffer.with_(2000, b"\n")  # a second line: its char is counted from here
                    add(buffer.with_(at, seq), [None],
                        "C string at page offset %d, %s at byte %d (page boundary at byte %d)"
                        % (offset, hex_(seq), at, boundary))

    # C strings whose NUL is 2 bytes before to 3 bytes after the page boundary after
    # four pages (right after it at n = boundary), valid or ending in an ill-formed
    # sequence; valid ones also with a LEN, with and without the NUL.
    for offset, boundary in ((PAGE - 3, 3 + 4 * PAGE), (0, 4 * PAGE)):
        for n in range(boundary - 2, boundary + 4):
            where = "page offset %d, NUL at byte %d (page boundary at byte %d)" % (offset, n, boundary)
            add(Buffer(offset, n).with_(n, b""), [None, n, n + 1], "valid C string at " + where)
            for seq in ILL_FORMED:
                add(Buffer(offset, n).with_(n - len(seq), seq), [None],
                    "C string ending in %s at %s" % (hex_(seq), where))

    # Around MAX_CSTRING: a NUL at byte MAX_CSTRING - 1 is found, in the last block
    # read, and the bytes before it checked to the last; one at MAX_CSTRING is not.
    for offset in (PAGE - 3, 0):
        n = MAX_CSTRING - 1
        index = add(Buffer(offset, n).with_(n, b""), [None, n + 1],
                    "valid C string of MAX_CSTRING - 1 bytes at page offset %d" % offset)
        add_array(index, n + 1)
        endings = [b"\x80", b"\xE2\x82", b"\xF0\x9F\x98"] if offset == 0 else ILL_FORMED
        for seq in endings:
            add(Buffer(offset, n).with_(n - len(seq), seq), [None],
                "C string of MAX_CSTRING - 1 bytes ending in %s at page offset %d" % (hex_(seq), offset))
        boundary = (offset + n) // PAGE * PAGE - offset  # the last page boundary inside it
        for at, seq in ((boundary - 2, ILL_FORMED[8]), (boundary - 1, ILL_FORMED[7])):
            add(Buffer(offset, n).with_(at, seq), [None],
                "C string of MAX_CSTRING - 1 bytes, %s at byte %d at page offset %d" % (hex_(seq), at, offset))
        for n in (MAX_CSTRING, MAX_CSTRING + 1):
            add(Buffer(offset, n), [None], "C string of %d bytes at page offset %d" % (n, offset))
        add(Buffer(offset, MAX_CSTRING).with_(MAX_CSTRING - 2, b"\xE2\x82"), [None, MAX_CSTRING],
            "MAX_CSTRING bytes ending in E2 82 at page offset %d" % offset)

    # No NUL before an unmapped page: after several pages, and ending with the last
    # byte searched (MAX_CSTRING - 1) or right after it.
    for offset, length in ((PAGE - 3, 3 * PAGE + 3), (0, 5 * PAGE), (1, MAX_CSTRING - 1), (0, MAX_CSTRING)):
        add(Buffer(offset, length, nul=False), [None],
            "%d bytes without a NUL before an unmapped page, at page offset %d" % (length, offset))

    # An explicit LEN that reaches into the unmapped page, and through it into the
    # next mapping.
    add(Buffer(PAGE - 3, 2, ascii=True), [3, 4, PAGE + 10], "2 bytes before an unmapped page")

    # Across two mappings (of different permissions; two sections of a core file): an
    # ill-formed sequence straddling or ending the first, in a C string and with a LEN.
    for seq in ILL_FORMED:
        for back in (1, 2):
            buffer = Buffer(PAGE - 3, 4 * PAGE + 100, split=True)
            at = buffer.split_at() - back
            add(buffer.with_(at, seq), [None, 4 * PAGE + 100],
                "%s at byte %d before a read-only mapping" % (hex_(seq), at))

    # On the stack (in lldb's core files too): an ill-formed sequence straddling a
    # page boundary, and ending a string whose NUL is right after one.
    boundary = 3 + PAGE
    for seq in ILL_FORMED:
        add(Buffer(PAGE - 3, boundary + 100, on_stack=True).with_(boundary - 1, seq), [None],
            "stack C string, %s at byte %d (page boundary at byte %d)" % (hex_(seq), boundary - 1, boundary))
        index = add(Buffer(PAGE - 3, boundary, on_stack=True).with_(boundary - len(seq), seq), [None, boundary + 1],
                    "stack C string ending in %s before a NUL right after a page boundary" % hex_(seq))
        add_array(index, boundary + 1)
    add(Buffer(PAGE - 3, boundary, on_stack=True).with_(boundary, b""), [None, boundary],
        "valid stack C string, NUL right after a page boundary")

    if not big:
        return buffers, checks + arrays

    # An explicit LEN of about 3 MiB (read at once), on 'a's with an ill-formed
    # sequence straddling or ending a page (boundary - 1 to - 3): LEN ending just
    # before it (valid), inside it, right after it, 1 and 3 bytes after it, and
    # taking the NUL after the buffer (4 bytes after it).
    for i, seq in enumerate(ILL_FORMED):
        offset = (PAGE - 3, 0, 1, PAGE - 1)[i % 4]
        boundary = (PAGE - offset) % PAGE + 767 * PAGE
        at = boundary - 1 - i % 3
        length = at + len(seq) + 3
        lengths = list(range(at, at + len(seq) + 1)) + [at + len(seq) + 1, length, length + 1]
        index = add(Buffer(offset, length, ascii=True).with_(at, seq), lengths,
                    "%d bytes at page offset %d, %s at byte %d (page boundary at byte %d)"
                    % (length, offset, hex_(seq), at, boundary))
        # An array that the sequence ends; a LEN beyond an array is refused.
        add_array(index, at + len(seq))
        if i == 0:
            add_array(index, at + len(seq), at + len(seq) + 1)
    # The same in the middle of 3 MiB (at 2 MiB).
    for i, seq in enumerate(ILL_FORMED):
        offset = (0, PAGE - 3, PAGE - 1, 1)[i % 4]
        boundary = (PAGE - offset) % PAGE + 512 * PAGE
        at = boundary - 1 - i % 3
        length = 3 * MIB + i
        add(Buffer(offset, length, ascii=True).with_(at, seq), [length],
            "%d bytes at page offset %d, %s at byte %d (page boundary at byte %d)"
            % (length, offset, hex_(seq), at, boundary))
    # PATTERN alone, cut at its last 4 bytes (some cuts truncate a character).
    length = 5 * MIB + 3
    add(Buffer(PAGE - 3, length), [length - 3, length - 2, length - 1, length, length + 1],
        "%d bytes of PATTERN" % length)
    # LEN into the unmapped page after 3 MiB, through it, and far beyond.
    buffer = Buffer(PAGE - 3, 3 * MIB + 5, ascii=True)
    readable = buffer.readable(PAGE)
    lengths = [readable, readable + 1, readable + PAGE + 10, 8 * MIB] + ([] if max_length else [MAX_LENGTH + 1])
    index = add(buffer, lengths, "3 MiB before an unmapped page")
    add_array(index, readable + 1)
    if max_length:
        # MAX_LENGTH bytes ending in a truncated sequence; one more is refused.
        add(Buffer(0, MAX_LENGTH, ascii=True).with_(MAX_LENGTH - 3, b"\xF0\x9F\x98"),
            [MAX_LENGTH, MAX_LENGTH + 1], "MAX_LENGTH bytes ending in F0 9F 98")
    return buffers, checks + arrays


STACK_AREA = MIB


def stack_area_checks(buffers):
    """Checks of pages.c's stack_area itself, an array of 1 MiB read at once:
    (command, expected output). It holds zeros and the buffers on the stack, each at
    the next page boundary after the previous one plus its offset. All of it, up to
    its first error and to just after it, and a LEN beyond it."""
    area, used = bytearray(STACK_AREA), 0
    for buffer in buffers:
        if buffer.on_stack:
            at = -(-used // PAGE) * PAGE + buffer.offset
            area[at : at + buffer.length] = buffer.bytes()
            used = at + buffer.length + (1 if buffer.nul else 0)
    area = bytes(area)
    try:
        area.decode("utf-8")
        error = len(area)
    except UnicodeDecodeError as e:
        error = e.start
    return [
        ("utf8-check stack_area", oracle(area)),
        ("utf8-check stack_area %d" % error, oracle(area[:error])),
        ("utf8-check stack_area %d" % (error + 1), oracle(area[: error + 1])),
        ("utf8-check stack_area %d" % (STACK_AREA + 1),
         "error: LEN %d exceeds the %d bytes of the array" % (STACK_AREA + 1, STACK_AREA)),
    ]


def page_command(index, array, length):
    expr = "bufs[%d]" % index if array is None else "*(unsigned char (*)[%d])bufs[%d]" % (array, index)
    return "utf8-check " + expr + ("" if length is None else " %d" % length)


PAGE_SIZE = 'script print("@@page_size %d" % lldb.target.FindFirstGlobalVariable("page_size").GetValueAsSigned())'
ADDRESSES = ('script print("@@addresses " + " ".join(str(lldb.frame.GetValueForVariablePath("bufs[%%d]" %% i)'
             '.GetValueAsUnsigned()) for i in range(%d)))')


def check_pages(out, buffers, checks, more, context, unreadable=()):
    """Every check's output (after its echoed command) against its expectation; the
    buffers in `unreadable` (heap buffers on a stack-only core file) are expected to
    be unreadable from their first byte. `more`: (command, expected output).

    An array, `*(unsigned char (*)[N])bufs[i]`, is an expression for lldb's
    interpreter, which reads its N bytes itself and fails when it cannot, with an
    error of its own: then any error will do. (It also maps a page into the process
    for its results, which may fill the unmapped page after a buffer: hence the
    arrays are checked last.)"""
    page_size = int(re.search(r"^@@page_size (\d+)$", out, re.M).group(1))
    addresses = [int(a) for a in re.search(r"^@@addresses (.*)$", out, re.M).group(1).split()]
    equal(len(addresses), len(buffers), "%s: the buffers' addresses" % context)
    outputs = echo_sections(out, [page_command(i, a, n) for i, a, n, _ in checks] + [c for c, _ in more])
    failures, current = [], (None, None)
    for (index, array, length, what), got in zip(checks, outputs):
        buffer, address = buffers[index], addresses[index]
        if array is not None and (index in unreadable or array > buffer.readable(page_size)):
            want = "error: "
            got = "\n".join(got)
            if not got.startswith(want):
                failures.append("`%s` (%s):\n--- expected an error\n--- got\n%s"
                                % (page_command(index, array, length), what, got))
            continue
        if index in unreadable:
            if length is None:
                want = ("error: cannot read memory at %#x (byte 0 of the string at %#x) before finding its"
                        " NUL; give the length: utf8-check EXPR LEN" % (address, address))
            else:
                want = "error: cannot read memory at %#x: byte 0 of the %d bytes at %#x" % (address, length, address)
        else:
            if current[0] != index:
                current = (index, buffer.bytes())
            want = page_expected(buffer, current[1], array, length, address, page_size)
        got = "\n".join(got)
        if got != want:
            failures.append("`%s` (%s):\n--- expected\n%s\n--- got\n%s"
                            % (page_command(index, array, length), what, want, got))
    for (command, want), got in zip(more, outputs[len(checks) :]):
        got = "\n".join(got)
        if got != want:
            failures.append("`%s`:\n--- expected\n%s\n--- got\n%s" % (command, want, got))
    total = len(checks) + len(more)
    check(not failures, "%s: %d checks on %d buffers" % (context, total, len(buffers)),
          "%d failed; the first:\n%s" % (len(failures), "\n".join(failures[:10])))
    print("  %s: %d checks on %d buffers" % (context, total, len(buffers)))


def test_pages():
    """utf8-check on pages.c's buffers, live, then on the stack-only core file saved
    there: the buffers on the stack give the same answers, those on the heap are not
    in it. Without the read of MAX_LENGTH bytes, which c-tests/tests/gdb.rs makes:
    lldb reads memory from lldb-server at about 30 MB/s, so 256 MiB take some 8-10 s,
    as long as all the other checks together."""
    exe = compile_program("clang", "pages.c", os.path.join(TMP, "pages"), ["-std=c99", "-pedantic"])
    buffers, checks = page_cases(True)
    cases = os.path.join(TMP, "pages.cases")
    with open(cases, "wb") as f:
        for buffer in buffers:
            f.write(buffer.record())
    core = os.path.join(TMP, "pages.dmp")
    if os.path.exists(core):
        os.remove(core)
    commands = [IMPORT, "breakpoint set -n checkpoint", "run", "up", PAGE_SIZE, ADDRESSES % len(buffers)]
    more = stack_area_checks(buffers)
    commands += [page_command(i, a, n) for i, a, n, _ in checks] + [c for c, _ in more]
    commands += ['process save-core -s stack "%s"' % core]
    out = lldb("pages", commands, [exe, cases])
    check_pages(out, buffers, checks, more, "pages, live")
    page_size = int(re.search(r"^@@page_size (\d+)$", out, re.M).group(1))

    # On the core file: the stack buffers, and the heap ones before and after them.
    stack = [i for i, b in enumerate(buffers) if b.on_stack]
    heap = [stack[0] - 1, stack[-1] + 1]
    core_checks = [c for c in checks if c[0] in stack or c[0] in heap]
    commands = [IMPORT, "up", ADDRESSES % len(buffers)]
    commands += [page_command(i, a, n) for i, a, n, _ in core_checks] + [c for c, _ in more]
    # pages.c's page_size, a global, is not in a stack-only core.
    out = "@@page_size %d\n" % page_size + lldb("pages-core", commands, [exe, "-c", core])
    check("Core file" in out and "was loaded" in out, "a core-file session", out)
    check_pages(out, buffers, core_checks, more, "pages, core file", unreadable=heap)
    os.remove(core)


def doc_sessions():
    """The lldb sessions of docs/debugging.md: its shell commands and, for each
    `$ lldb ...`, the lldb commands with what the document shows after each."""
    text = open(os.path.join(ROOT, "docs", "debugging.md"), encoding="utf-8").read()
    part = text[text.index("## In lldb") :]
    part = part[: part.index("\n## ", 1)]
    shell, sessions = [], []
    for block in re.findall(r"```console\n(.*?)```", part, re.S):
        for line in block.split("\n"):
            if line.startswith("$ lldb "):
                sessions.append((line[2:], []))
            elif line.startswith("$ "):
                shell.append(line[2:])
            elif line.startswith("(lldb) target create "):
                continue  # lldb's echo of its own command line
            elif line.startswith("(lldb) "):
                sessions[-1][1].append((line[len("(lldb) ") :], []))
            elif sessions and sessions[-1][1]:
                sessions[-1][1][-1][1].append(line.rstrip())
    return shell, sessions


def test_doc_sessions():
    """The sessions of docs/debugging.md, run as written from a directory holding
    their program, its core file and links to lldb/ and debugger/: every utf8-check
    prints what the document shows (addresses aside), and that is utf8check's
    verdict."""
    shell, sessions = doc_sessions()
    check(len(sessions) == 2, "docs/debugging.md has a live and a core-file lldb session", sessions)
    work = os.path.join(TMP, "doc-sessions")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for name in ("lldb", "debugger", "include", "c-tests"):
        os.symlink(os.path.join(ROOT, name), os.path.join(work, name))
    os.symlink(os.path.dirname(RELEASE), os.path.join(work, "target"))
    for command in shell:
        if command.startswith("cargo "):
            continue  # .ci/lldb-tests.sh has built the library
        match = re.fullmatch(r"export PYTHONPATH=(\S+)", command)
        if match:
            check(os.path.realpath(match.group(1)) == os.path.realpath(PYTHONPATH),
                  "the document's PYTHONPATH is lldb's Python directory here", command)
            continue
        result = subprocess.run(command, shell=True, cwd=work, capture_output=True, text=True)
        check(result.returncode == 0, "docs/debugging.md: %s" % command, result.stderr)
    # What the document's outputs must be: the callback's report on each stop, and each
    # utf8-check, by the bytes it reads.
    by_command = {
        "utf8-check req->body req->len": None,  # the stopped request's body
        "utf8-check name": NAME,
        "utf8-check cstr": CSTR,
        "utf8-check word 3": WORD[:3],
    }
    stops = iter([body for _, body in REQUESTS if expected(body).startswith("invalid")])
    core_request = None
    for index, (start, commands) in enumerate(sessions):
        out = lldb("doc-session-%d" % index, [c for c, _ in commands], start.split()[1:], cwd=work,
                   env={"UTF8VALIDATE_LIB": None})
        outputs = echo_sections(out, [c for c, _ in commands])
        shown_all, got_all = [], []
        for (command, shown), got in zip(commands, outputs):
            while shown and not shown[-1]:
                shown = shown[:-1]
            if command in ("run", "continue"):
                body = next(stops, None)
                if body is not None:
                    if core_request is None:
                        core_request = body
                    want = expected(body).split("\n")
                    at = shown.index(CALLBACK_LINE) + 1 if CALLBACK_LINE in shown else 0
                    equal(shown[at : at + len(want)], want, "docs/debugging.md: the report after `%s`" % command)
            if command.startswith("utf8-check "):
                body = by_command.get(command)
                if command == "utf8-check req->body req->len":
                    body = core_request
                if body is not None:
                    equal("\n".join(shown), expected(body), "docs/debugging.md: what `%s` shows" % command)
                shown_all.append([re.sub(r"0x[0-9a-f]+", "0x…", l) for l in shown])
                got_all.append([re.sub(r"0x[0-9a-f]+", "0x…", l) for l in got])
        equal(got_all, shown_all, "docs/debugging.md session %d: utf8-check prints what it shows" % index)


def echo_sections(out, commands):
    """For each of `commands` in turn, the lines lldb printed after its echo, up to
    the next echo."""
    lines = out.split("\n")
    echoes = [i for i, line in enumerate(lines) if line.startswith("(lldb) ")]
    sections, at = [], 0
    for command in commands:
        while at < len(echoes) and lines[echoes[at]] != "(lldb) " + command:
            at += 1
        if at == len(echoes):
            sections.append(["<`%s` did not run>" % command])
            continue
        end = echoes[at + 1] if at + 1 < len(echoes) else len(lines)
        got = [line.rstrip() for line in lines[echoes[at] + 1 : end]]
        while got and not got[-1]:
            got.pop()
        sections.append(got)
        at += 1
    return sections


# --- IDEs: lldb-vscode over the Debug Adapter Protocol --------------------------------
#
# lldb-vscode-14 runs as an IDE runs it: DAP messages over its stdin and stdout, the
# `initCommands` of lldb/README.md's launch.json, a breakpoint on annotate.cpp's
# "break here" line, and the variables view's requests. Every summary's verdict is
# compared with one computed from Python's UTF-8 decoder (`annotation_oracle`).

README = os.path.join(ROOT, "lldb", "README.md")
ANNOTATE_SOURCE = os.path.join(ROOT, "c-tests", "gdb", "annotate.cpp")
REQUESTS_SOURCE = os.path.join(ROOT, "c-tests", "gdb", "requests.c")
DOC_ROOT = "/path/to/utf8validate"  # the README's placeholder for the source tree
ANNOTATE_MAX_BYTES = 4096
ANNOTATE_TIMINGS = 3  # variables views of `many` timed with annotation on, and off


def doc_block(marker):
    """The fenced block of lldb/README.md after the line `<!-- marker -->`."""
    with open(README) as f:
        text = f.read()
    match = re.search(r"<!-- %s -->\n```[a-z]*\n(.*?)\n```" % re.escape(marker), text, re.S)
    if not match:
        print("FAIL: lldb/README.md has no block after <!-- %s -->" % marker)
        sys.exit(1)
    return match.group(1)


def for_this_tree(configuration):
    """A launch.json configuration of the README with its initCommands' paths made
    this tree's."""
    configuration["initCommands"] = [c.replace(DOC_ROOT, ROOT) for c in configuration["initCommands"]]
    return configuration


def doc_configurations():
    """(launch, attach) of the README's launch.json, for this tree."""
    configurations = json.loads(doc_block("launch.json (read by .ci/lldb_tests.py)"))["configurations"]
    return for_this_tree(configurations[0]), for_this_tree(configurations[1])


def doc_stop_configuration():
    """The README's launch.json configuration that installs stop_if_invalid."""
    return for_this_tree(json.loads(doc_block("stop_if_invalid configuration (read by .ci/lldb_tests.py)")))


def lldb_vscode():
    for name in ("lldb-vscode-14", "lldb-vscode"):
        if shutil.which(name):
            return shutil.which(name)
    return None


class Adapter:
    """A DAP client of lldb-vscode over its stdin and stdout (Content-Length
    framing). Events that arrive while waiting for something else are kept in
    `events`."""

    def __init__(self, name, env=None):
        self.log = open(os.path.join(TMP, name + ".dap.log"), "w")
        self.process = subprocess.Popen(
            [LLDB_VSCODE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log, env=lldb_environment(env),
        )
        self.seq = 0
        self.buffer = b""
        self.events = []

    def _message(self):
        deadline = time.time() + TIMEOUT
        while True:
            head, sep, rest = self.buffer.partition(b"\r\n\r\n")
            length = re.search(rb"Content-Length: *(\d+)", head) if sep else None
            if length and len(rest) >= int(length.group(1)):
                size = int(length.group(1))
                self.buffer = rest[size:]
                message = json.loads(rest[:size])
                self.log.write(json.dumps(message) + "\n")
                return message
            left = deadline - time.time()
            if left <= 0 or not select.select([self.process.stdout], [], [], left)[0]:
                raise TimeoutError("lldb-vscode sent nothing for %d s" % TIMEOUT)
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("lldb-vscode exited")
            self.buffer += chunk

    def request(self, command, arguments=None):
        """The response to the request."""
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command,
                           "arguments": arguments or {}}).encode()
        self.log.write(body.decode() + "\n")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.process.stdin.flush()
        while True:
            message = self._message()
            if message["type"] == "response" and message["request_seq"] == self.seq:
                return message
            self.events.append(message)

    def event(self, name):
        """The first event `name` not yet taken, waiting for it."""
        while True:
            for i, message in enumerate(self.events):
                if message.get("event") == name:
                    return self.events.pop(i)
            self.events.append(self._message())

    def outputs(self):
        return "".join(m["body"]["output"] for m in self.events if m.get("event") == "output")

    def wait_output(self, text, seconds=10):
        """The output events' text once it contains `text`, or after `seconds`: the
        adapter forwards its standard output from another thread."""
        deadline = time.time() + seconds
        while text not in self.outputs() and time.time() < deadline:
            if select.select([self.process.stdout], [], [], deadline - time.time())[0] or self.buffer:
                self.events.append(self._message())
        return self.outputs()

    def command(self, line, frame_id=None):
        """A debug-console command (lldb-vscode 14 wants a leading backtick)."""
        arguments = {"expression": "`" + line, "context": "repl"}
        if frame_id is not None:
            arguments["frameId"] = frame_id
        return self.request("evaluate", arguments)

    def start(self, request, arguments):
        """initialize, then `request` (launch or attach) with `arguments`."""
        self.request("initialize", {"adapterID": "lldb-vscode", "pathFormat": "path",
                                    "linesStartAt1": True, "columnsStartAt1": True})
        response = self.request(request, arguments)
        check(response["success"], "DAP %s" % request, json.dumps(response))
        self.event("initialized")

    def frames(self, thread_id):
        return self.request("stackTrace", {"threadId": thread_id})["body"]["stackFrames"]

    def variables(self, reference):
        return self.request("variables", {"variablesReference": reference})["body"]["variables"]

    def locals(self, frame_id):
        """The frame's Locals scope (which also makes it lldb's selected frame)."""
        scopes = self.request("scopes", {"frameId": frame_id})["body"]["scopes"]
        return self.variables(scopes[0]["variablesReference"])

    def close(self):
        try:
            self.request("disconnect", {"terminateDebuggee": True})
        except (EOFError, OSError, TimeoutError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def annotation_oracle(data, complete, unreadable=None):
    """The verdict for a string whose readable first bytes are `data` (all of it
    when `complete`; else cut by the cap or, at `unreadable`, by memory), from
    Python's UTF-8 decoder and `classify`."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        ends = e.reason == "unexpected end of data"
        if not (ends and not complete):
            kind = classify(data, e.start, ends).replace("_", " ")
            subpart = " ".join("%02X" % b for b in data[e.start : e.end])
            return "[invalid UTF-8 at byte %d: %s (%s)]" % (e.start, kind, subpart)
        data = data[: e.start]  # a sequence cut by the end of what was read
    if complete:
        return "[valid UTF-8]"
    verdict = "[first %d byte%s valid UTF-8" % (len(data), "" if len(data) == 1 else "s")
    if unreadable is not None:
        verdict += "; cannot read memory at 0x%x" % unreadable
    return verdict + "]"


def string_verdict(data, cap=ANNOTATE_MAX_BYTES):
    """The verdict for the whole string `data` read up to `cap` bytes."""
    return annotation_oracle(data[:cap], len(data) <= cap)


# annotate.cpp's strings: name -> (bytes, lldb's text is right without annotation,
# a heap string: not in a stack-only core file). The text's right for char pointers and
# arrays; for std::string and std::string_view only with libc++.
ANNOTATED = {
    "c_ok": (b"caf\xC3\xA9", "always", False),
    "c_bad": (b"path\xC0\xAFetc", "always", False),
    "u_bad": (b"\xED\xA0\x80 surrogate", "always", False),
    "c_long": (b"x" * 5000, "always", True),
    "arr_ok": (b"h\xC3\xA9llo\0\0", "always", False),
    "arr_bad": (b"id\0\xFFok\0\0", "always", False),
    "s_short": (b"Gr\xC3\xBC\xC3\x9Fe", "libc++", False),
    "s_long_bad": (b"a" * 40 + b"\x80tail", "libc++", True),
    "s_nul": (b"ab\0cd\n\xED\xA0\x80", "libc++", False),
    "s_huge": (b"y" * 9000 + b"\xFF" + b"y" * 999, "libc++", True),
    "long_text": (b"x" * 5000, "libc++", True),
    "v_bad": (b"aa\x80tai", "libc++", True),
    "v_ok": (b"Gr\xC3\xBC\xC3\x9Fe", "libc++", False),
    "b_ok": (b"\xE2\x82\xAC5", "never", False),
    "b_bad": (b"ok\xF4\x90\x80\x80", "never", False),
}
# lldb's text of s_nul, all 9 bytes: lldb 14's libstdc++ summary stops at the NUL.
S_NUL_TEXT = '"ab\\0cd\\n\\xed\\xa0\\x80"'
# The many[] strings: even ones valid, odd ones ill-formed at byte 1.
MANY = [b"a\xFE" if i % 2 else b"a\xC3\xA9" for i in range(500)]


def split_value(value):
    """(text, verdict) of an annotated value: the verdict is its last [...]."""
    match = re.fullmatch(r"(.*?) ?(\[[^\[\]]*\])", value.strip(), re.S)
    return (match.group(1), match.group(2)) if match else (value, None)


def check_locals(values, context, libcxx, core=False, heap_addresses=None):
    """Each annotated local's verdict (the core file: heap strings unreadable at
    their data's address)."""
    for name, (data, _, heap) in ANNOTATED.items():
        value = values.get(name, "<missing>")
        text, verdict = split_value(value)
        if core and heap:  # no text: at most a pointer's address
            want = annotation_oracle(b"", False, heap_addresses.get(name))
            equal((verdict, '"' in text), (want, False), "%s: %s (%s)" % (context, name, value))
        else:
            equal(verdict, string_verdict(data), "%s: %s (%s)" % (context, name, value[:200]))
    check(values.get("c_null") == "0x0000000000000000", "%s: c_null has no annotation" % context,
          values.get("c_null"))
    if not libcxx:
        check(split_value(values.get("s_nul", ""))[0] == S_NUL_TEXT,
              "%s: s_nul's text has its 9 bytes" % context, values.get("s_nul"))


def check_wrapping(on, off, context, libcxx):
    """With annotation on, lldb's own text (annotation off) and the verdict, where
    lldb 14 shows the string right."""
    for name, (_, right, _) in ANNOTATED.items():
        if right == "always" or (right == "libc++" and libcxx):
            equal(split_value(on.get(name, ""))[0], off.get(name, "").strip(),
                  "%s: %s is lldb's text and the verdict" % (context, name))


def c_unreadable_verdict(values):
    """c_unreadable's verdict (its "ab" C3 runs into an unmapped page)."""
    return split_value(values.get("c_unreadable", ""))[1]


def time_many(adapter, reference):
    """Median seconds of the 500-string variables view with annotation on and off,
    each timing after the other setting (which clears lldb's cached summaries)."""
    timings = {"on": [], "off": []}
    children = None
    for _ in range(ANNOTATE_TIMINGS):
        for setting in ("on", "off"):
            adapter.command("utf8-annotate " + setting)
            started = time.perf_counter()
            shown = adapter.variables(reference)
            timings[setting].append(time.perf_counter() - started)
            if setting == "on":
                children = shown
    adapter.command("utf8-annotate on")
    return {k: sorted(v)[len(v) // 2] for k, v in timings.items()}, children


def address_of(adapter, frame_id, expression):
    """The integer value of `expression` in the frame, through DAP `evaluate`."""
    result = adapter.request("evaluate", {"expression": expression, "context": "watch",
                                          "frameId": frame_id})["body"]["result"]
    return int(result.split()[0], 0)


# The expression of each heap string's data pointer, per library: read from the
# object's words (libstdc++: the first; libc++'s long string: the third), since
# clang's debug information leaves the inner types incomplete.
HEAP_DATA = {
    "libstdc++": {"c_long": "c_long", "s_long_bad": "*(char **)&s_long_bad",
                  "s_huge": "*(char **)&s_huge", "long_text": "*(char **)&long_text",
                  "v_bad": "v_bad._M_str"},
    "libc++": {"c_long": "c_long", "s_long_bad": "((char **)&s_long_bad)[2]",
               "s_huge": "((char **)&s_huge)[2]", "long_text": "((char **)&long_text)[2]",
               "v_bad": "v_bad.__data"},
}


def test_dap_annotate(name, exe, libcxx):
    """A variables view of annotate.cpp, live and on a core file saved there."""
    launch, attach = doc_configurations()
    line = next(i for i, l in enumerate(open(ANNOTATE_SOURCE), 1) if "// break here" in l)
    core = os.path.join(TMP, "annotate-%s.dmp" % name)
    if os.path.exists(core):
        os.remove(core)
    context = "DAP %s live" % name
    started = time.time()
    adapter = Adapter("annotate-" + name)
    try:
        adapter.start("launch", dict(launch, program=exe))
        breakpoints = adapter.request("setBreakpoints", {"source": {"path": ANNOTATE_SOURCE},
                                                         "breakpoints": [{"line": line}]})
        check(breakpoints["body"]["breakpoints"][0]["verified"], "%s: breakpoint" % context,
              json.dumps(breakpoints))
        adapter.request("configurationDone")
        thread = adapter.event("stopped")["body"]["threadId"]
        frame = adapter.frames(thread)[0]["id"]
        registered = adapter.command("utf8-annotate type my_buf data len", frame)
        check("type my_buf: data, len bytes" in registered["body"]["result"],
              "%s: utf8-annotate type in the console" % context, json.dumps(registered))
        checked = adapter.command("utf8-check b_bad", frame)
        equal(checked["body"]["result"].split("\n", 1)[-1].rstrip(), oracle(ANNOTATED["b_bad"][0]),
              "%s: utf8-check on the registered my_buf" % context)
        shown = adapter.locals(frame)
        on = {v["name"]: v["value"] for v in shown}
        check_locals(on, context, libcxx)
        page_end = address_of(adapter, frame, "c_unreadable") + 3
        equal(c_unreadable_verdict(on), annotation_oracle(b"ab\xC3", False, page_end),
              "%s: c_unreadable" % context)
        many = next(v for v in shown if v["name"] == "many")
        medians, children = time_many(adapter, many["variablesReference"])
        equal([split_value(c["value"])[1] for c in children], [string_verdict(d) for d in MANY],
              "%s: the 500 strings of many" % context)
        print("  %s: variables view of 500 strings: %.0f ms annotated, %.0f ms not (median of %d)"
              % (name, 1000 * medians["on"], 1000 * medians["off"], ANNOTATE_TIMINGS))
        check(medians["on"] < 10, "%s: the annotated view of 500 strings takes < 10 s" % context,
              str(medians))
        adapter.command("utf8-annotate off")
        off = {v["name"]: v["value"] for v in adapter.locals(frame)}
        adapter.command("utf8-annotate on")
        check_wrapping(on, off, context, libcxx)
        check_console(adapter, frame, context)
        heap = {n: address_of(adapter, frame, e) for n, e in HEAP_DATA[name.split("-")[0]].items()}
        heap["c_unreadable"] = address_of(adapter, frame, "c_unreadable")
        saved = adapter.command('process save-core -s stack "%s"' % core)
        check(os.path.exists(core), "%s: process save-core" % context, json.dumps(saved))
        if name == "libstdc++":
            check_transcript(shown)
    finally:
        adapter.close()
    test_dap_core(name, exe, attach, core, heap, libcxx)
    print("  DAP %s: %.1f s" % (name, time.time() - started))


def check_console(adapter, frame, context):
    """Commands typed in the debug console: max-bytes, an error's success: true, a
    line without the backtick, and a watch expression's summary."""
    adapter.command("utf8-annotate max-bytes 16")
    watched = adapter.request("evaluate", {"expression": "c_long", "context": "watch", "frameId": frame})
    equal(split_value(watched["body"]["result"])[1], string_verdict(b"x" * 5000, 16),
          "%s: max-bytes 16" % context)
    adapter.command("utf8-annotate max-bytes %d" % ANNOTATE_MAX_BYTES)
    failed = adapter.command("utf8-annotate bogus", frame)
    check(failed["success"] and "error: usage: utf8-annotate" in failed["body"]["result"],
          "%s: a failing command answers success: true with its error" % context, json.dumps(failed))
    check(failed["body"]["result"].startswith("(lldb) utf8-annotate bogus\n"),
          "%s: a command's result starts with the command echoed" % context, json.dumps(failed))
    bare = adapter.request("evaluate", {"expression": "utf8-annotate", "context": "repl", "frameId": frame})
    check(not bare["success"] and not bare.get("body"),
          "%s: without the backtick, a command is an expression: success: false, no body" % context,
          json.dumps(bare))
    unreadable = adapter.request("evaluate", {"expression": "(const char *)8", "context": "watch",
                                              "frameId": frame})
    equal(split_value(unreadable["body"]["result"])[1], annotation_oracle(b"", False, 8),
          "%s: a pointer to unreadable memory" % context)


def test_dap_core(name, exe, attach, core, heap, libcxx):
    """The README's attach configuration on the core file: the stack's strings and
    read-only data, and heap strings unreadable at their data's address."""
    context = "DAP %s core file" % name
    adapter = Adapter("annotate-%s-core" % name)
    try:
        adapter.start("attach", dict(attach, program=exe, coreFile=core))
        adapter.request("configurationDone")
        stopped = adapter.event("stopped")["body"]
        equal(stopped.get("reason"), "exception", "%s: the stopped event's reason" % context)
        thread = stopped["threadId"]
        frame = adapter.frames(thread)[0]["id"]
        adapter.command("utf8-annotate type my_buf data len", frame)
        values = {v["name"]: v["value"] for v in adapter.locals(frame)}
        check_locals(values, context, libcxx, core=True, heap_addresses=heap)
        equal(split_value(values.get("c_unreadable", ""))[1],
              annotation_oracle(b"", False, heap["c_unreadable"]), "%s: c_unreadable" % context)
    finally:
        adapter.close()


def check_transcript(variables):
    """The README's excerpt of a `variables` response is what the adapter sends,
    addresses aside; the excerpt is written to target/lldb-tests to paste when it
    changes."""
    documented = json.loads(doc_block("variables transcript"))
    names = [v["name"] for v in documented]
    excerpt = [{k: v[k] for k in ("name", "type", "value")} for v in variables if v["name"] in names]
    with open(os.path.join(TMP, "variables-transcript.json"), "w") as f:
        json.dump(excerpt, f, indent=2, ensure_ascii=False)

    def without_addresses(entries):
        return [dict(e, value=re.sub(r"0x[0-9a-f]+", "0x?", e["value"])) for e in entries]

    equal(without_addresses(excerpt), without_addresses(documented), "README's variables transcript")


def test_dap_callback(requests):
    """stop_if_invalid under lldb-vscode, installed by the README's configuration:
    its report is an output event (which may come after the stop); a console
    command runs in the frame whose scopes were asked for last, not in the
    request's frameId."""
    context = "DAP callback"
    adapter = Adapter("callback")
    try:
        adapter.start("launch", dict(doc_stop_configuration(), program=requests))
        adapter.request("configurationDone")
        thread = adapter.event("stopped")["body"]["threadId"]
        reports = [r.rstrip() for r in adapter.wait_output(CALLBACK_LINE).split(CALLBACK_LINE + "\n")[1:]]
        first_invalid = next(body for _, body in REQUESTS if oracle(body).startswith("invalid"))
        equal("\n".join(l.rstrip() for l in reports[0].split("\n")) if reports else None,
              oracle(first_invalid), "%s: the report as an output event" % context)
        callee, caller = [f["id"] for f in adapter.frames(thread)[:2]]
        adapter.locals(caller)
        in_caller = adapter.command("utf8-check cstr", callee)
        equal(in_caller["body"]["result"].split("\n", 1)[1].rstrip(), oracle(CSTR),
              "%s: the command ran in the frame last shown (main), not frameId" % context)
        adapter.locals(callee)
        in_callee = adapter.command("utf8-check cstr", caller)
        check(in_callee["success"] and "error: use of undeclared identifier 'cstr'"
              in in_callee["body"]["result"], "%s: ... and in handle_request once shown" % context,
              json.dumps(in_callee))
    finally:
        adapter.close()


def test_dap_docs():
    """The README's .lldbinit (CLion, Qt Creator) is launch.json's initCommands."""
    launch, attach = doc_configurations()
    lldbinit = [l.replace(DOC_ROOT, ROOT) for l in doc_block(".lldbinit (read by .ci/lldb_tests.py)").split("\n")]
    equal(lldbinit, launch["initCommands"], "README: .lldbinit = launch.json's initCommands")
    equal(attach["initCommands"], launch["initCommands"], "README: attach's initCommands")


def test_dap_environment(requests):
    """lldb-vscode 14 loads the script only with PYTHONPATH naming lldb's Python
    package and, when another python3 comes first on PATH, the system's first."""
    launch, _ = doc_configurations()
    cases = [("no-pythonpath", {"PYTHONPATH": None})]
    if path_without_own_python() != os.environ.get("PATH"):
        cases.append(("own-python-first", {"PATH": os.environ.get("PATH")}))
    for name, env in cases:
        adapter = Adapter("environment-" + name, env)
        try:
            adapter.start("launch", dict(launch, program=requests))
            out = adapter.outputs()
        finally:
            adapter.close()
        check("error:" in out and "utf8-annotate is on" not in out,
              "DAP, %s: the script does not load" % name, out)


def test_dap_incomplete(exe):
    """strings.cpp with std::string incomplete, under lldb-vscode: main's variables
    view and utf8-check in the debug console."""
    launch, _ = doc_configurations()
    context = "DAP incomplete std::string"
    adapter = Adapter("strings-incomplete")
    try:
        adapter.start("launch", dict(launch, program=exe))
        adapter.request("setFunctionBreakpoints", {"breakpoints": [{"name": "checkpoint"}]})
        adapter.request("configurationDone")
        thread = adapter.event("stopped")["body"]["threadId"]
        caller = adapter.frames(thread)[1]["id"]
        values = {v["name"]: v["value"] for v in adapter.locals(caller)}
        for local, data in STRING_LOCALS.items():
            equal(split_value(values.get(local, "<missing>"))[1], string_verdict(data),
                  "%s: %s in the variables view" % (context, local))
        checked = adapter.command("utf8-check with_nul", caller)
        # The result starts with the echoed command.
        equal(checked["body"]["result"].split("\n", 1)[-1].rstrip(), oracle(WITH_NUL),
              "%s: utf8-check in the debug console" % context)
    finally:
        adapter.close()


def test_dap(requests):
    """lldb-vscode sessions: the callback, then annotate.cpp with libstdc++ and, when
    clang++ builds with it, libc++."""
    if LLDB_VSCODE is None:
        check(not IN_CI, "lldb-vscode (CI=true needs it)")
        print("  DAP: skipped, lldb-vscode is not installed (Debian: lldb-14)")
        return
    test_dap_docs()
    test_dap_environment(requests)
    test_dap_callback(requests)
    for name, flags in (("libstdc++", []), ("libc++", ["-stdlib=libc++"])):
        exe = os.path.join(TMP, "annotate-" + name)
        # One build, which is also the probe for libc++ (.ci/run installs it).
        built = run(["clang++", "-std=c++17", "-g", "-O0", "-Wall", "-Wextra", "-Werror", *flags,
                     "-o", exe, ANNOTATE_SOURCE])
        if built.returncode != 0:
            reason = "clang++ %s cannot build annotate.cpp: %s" % (
                " ".join(flags), built.stderr.strip().split("\n")[0])
            if IN_CI or not flags:
                check(False, "DAP %s (%s)" % (name, reason))
            else:
                print("  DAP %s: skipped, %s" % (name, reason))
            continue
        test_dap_annotate(name, exe, name == "libc++")


def main():
    global PYTHONPATH, LLDB_VSCODE
    started = time.time()
    for tool in ("lldb", "clang", "clang++"):
        if shutil.which(tool) is None:
            skip_or_fail("%s is not installed (Debian: lldb python3-lldb-14 clang)" % tool)
    for built in (LIBRARY, UTF8CHECK):
        if not os.path.exists(built):
            skip_or_fail("%s is not built (cargo build --release)" % built)
    PYTHONPATH = lldb_python_path()
    if PYTHONPATH is None:
        skip_or_fail("lldb's Python package is not installed (Debian: python3-lldb-14)")
    os.makedirs(TMP, exist_ok=True)

    static = os.path.join(RELEASE, "libutf8validate.a")
    requests = compile_program("clang", "requests.c", os.path.join(TMP, "requests"),
                               ["-std=c99", "-pedantic"], [static])
    core = os.path.join(TMP, "requests.dmp")
    if os.path.exists(core):
        os.remove(core)
    test_live(requests)
    test_callback(requests, core)
    test_core(requests, core)
    test_errors(requests)
    test_core_writable_data()
    test_no_process_and_missing_library(requests)
    test_installed_layout(requests)
    test_doc_sessions()
    test_pages()
    LLDB_VSCODE = lldb_vscode()
    dap_started = time.time()
    test_dap(requests)
    print("  DAP tests: %.1f s" % (time.time() - dap_started))
    for name, flags, short_in_object in (
        ("libstdc++", ["-D_GLIBCXX_USE_CXX11_ABI=1"], True),
        ("libstdc++-cow", ["-D_GLIBCXX_USE_CXX11_ABI=0"], False),
        # std::string as clang++ leaves it in most programs: an incomplete type.
        ("libstdc++-incomplete", ["-D_GLIBCXX_USE_CXX11_ABI=1", "-DINCOMPLETE_STRING"], True),
        ("libstdc++-cow-incomplete", ["-D_GLIBCXX_USE_CXX11_ABI=0", "-DINCOMPLETE_STRING"], False),
        ("libc++", ["-stdlib=libc++"], True),
    ):
        exe = os.path.join(TMP, "strings-" + name)
        probe = run(["clang++", "-std=c++17", *flags, "-o", exe,
                     os.path.join(ROOT, "c-tests", "gdb", "strings.cpp")])
        if probe.returncode != 0:
            # .ci/run installs libc++ (libc++-14-dev): under CI=true a failed build
            # is a failed check, elsewhere that string library is skipped.
            reason = "clang++ %s cannot build strings.cpp: %s" % (
                " ".join(flags), probe.stderr.strip().split("\n")[0])
            if IN_CI:
                check(False, "%s strings (CI=true needs them)" % name, reason)
            else:
                print("  %s: skipped, %s" % (name, reason))
            continue
        incomplete = "-DINCOMPLETE_STRING" in flags
        test_strings(name, compile_program("clang++", "strings.cpp", exe, ["-std=c++17"] + flags),
                     short_in_object, incomplete)
        if incomplete and short_in_object and LLDB_VSCODE is not None:
            test_dap_incomplete(exe)
    print("lldb tests: %.1f s" % (time.time() - started))
    print("lldb: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
