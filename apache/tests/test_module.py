#!/usr/bin/env python3
"""Functional tests of mod_utf8_check in a real Apache httpd on 127.0.0.1.

Starts its own Apache (own ServerRoot, configuration, pid and log files, free
loopback ports) with the module, under each MPM asked for (event and prefork by
default), and a small HTTP backend for mod_proxy. Sends requests through raw sockets
so that ill-formed bytes go out as they are, and checks each answer, error-log line
and access-log line against nginx/tests/utf8_oracle.py (the RFC 3629 grammar,
cross-checked with Python's decoder), never against the module itself. Also checks
that `apache2 -t` refuses bad directive values.

Usage: test_module.py --module .libs/mod_utf8_check.so
                      [--apache /usr/sbin/apache2] [--mpm event,prefork]
                      [--workdir DIR] [--only TEST,...]
"""

import argparse
import hashlib
import http.server
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "nginx", "tests"))
from apache_process import ApacheProcess, base_config, config_test, free_port  # noqa: E402
from utf8_oracle import check_against_python, decode_rendering  # noqa: E402

# One ill-formed sequence per row of Tang's tables ("bytes never used", "two-byte
# pairs never used"), plus a stray continuation byte and a sequence cut short by the
# end of the part. Each is put after 60 bytes of valid text (the log line shows 32
# bytes before the error, from a character boundary) and, unless it is cut short,
# before more text.
CASES = [
    ("stray continuation 80", b"\x80"),
    ("stray continuation BF after C3 A9", b"\xc3\xa9\xbf"),
    ("pair C2-DF + 00-7F", b"\xc3\x41"),
    ("pair E1-EF + 00-7F after one tail", b"\xe2\x82\x41"),
    ("pair F0-F4 + 00-7F after two tails", b"\xf0\x9f\x98\x41"),
    ("lead C0 (2-byte overlong /)", b"\xc0\xaf"),
    ("lead C1", b"\xc1\xbf"),
    ("pair E0 80-9F (3-byte overlong)", b"\xe0\x80\xaf"),
    ("pair F0 80-8F (4-byte overlong)", b"\xf0\x80\x80\xaf"),
    ("pair ED A0-BF (surrogate U+D800)", b"\xed\xa0\x80"),
    ("pair ED A0-BF (surrogate U+DFFF)", b"\xed\xbf\xbf"),
    ("pair F4 90-BF (above U+10FFFF)", b"\xf4\x90\x80\x80"),
    ("lead F5-F7", b"\xf5\x80\x80\x80"),
    ("byte F8-FB (5-byte lead)", b"\xf8\x88\x80\x80\x80"),
    ("byte FC-FD (6-byte lead)", b"\xfc\x84\x80\x80\x80\x80"),
    ("byte FE", b"\xfe"),
    ("byte FF", b"\xff"),
    ("truncated E2 82 at the end", b"\xe2\x82"),
    ("truncated F0 9F 98 at the end", b"\xf0\x9f\x98"),
]

PREFIX = "xé".encode() * 20
SUFFIX = "zé".encode() * 20
VALID_TEXT = "héllo wörld € 𝄞 日本語"  # 1- to 4-byte characters


def sample(seq):
    """The sequence after valid text, and before more text unless it is cut short
    (which it must stay, at the end of the part)."""
    cut_short = check_against_python(seq)[2] == "truncated"
    return PREFIX + seq + (b"" if cut_short else SUFFIX)


def pct(data):
    """Every byte percent-encoded, upper-case hex."""
    return b"".join(b"%%%02X" % b for b in data)


def pct_decode(data):
    """The module's documented rule: %XX with two hex digits is a byte; "+" and any
    other "%" stay as they are."""
    return re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), data)


# --- the backend ------------------------------------------------------------------------

class Backend(http.server.ThreadingHTTPServer):
    """The server behind /proxy/: records what reaches it and echoes the body."""

    daemon_threads = True

    def __init__(self, port):
        self.seen = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", port), BackendHandler)


class BackendHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_any(self):
        try:
            body = self.read_body()
        except ValueError:  # a chunked body cut off: Apache dropped the connection
            with self.server.lock:
                self.server.seen.append((self.path, "cut off", -1))
            return
        with self.server.lock:
            self.server.seen.append((self.path, hashlib.sha256(body).hexdigest(), len(body)))
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_any

    def log_message(self, *args):
        pass


# --- Apache -------------------------------------------------------------------------------

# Every location but /proxy/ and /errors/ answers with ok.txt (the default handler,
# which reads and discards a request body, so that the body filter sees it).
SITE = """
ErrorLogFormat "[%l] %M"
LogFormat "%>s %{UTF8_CHECK_RESULT}e" result
CustomLog {work}/access.log result
DocumentRoot {work}/htdocs
<Directory />
    AllowOverride None
</Directory>
<Directory {work}/htdocs>
    Require all granted
</Directory>
<Directory {work}/dirtest>
    Require all granted
    UTF8CheckParts uri
</Directory>
KeepAliveTimeout 5
Timeout 30

# Every part, every directive.
<VirtualHost 127.0.0.1:{port_all}>
    UTF8Check On
    UTF8CheckParts uri args headers body
    HttpProtocolOptions Unsafe
    LimitRequestBody 0
    <IfModule http2_module>
        Protocols h2c http/1.1
        H2Direct on
    </IfModule>
    Alias /errors/ {work}/htdocs/errors/
    Alias /dir/ {work}/dirtest/
    AliasMatch "^/(?!proxy/|errors/|dir/)" {work}/htdocs/ok.txt
    ProxyPass /proxy/ http://127.0.0.1:{port_backend}/proxy/
    <Location /only-uri/>
        UTF8CheckParts uri
    </Location>
    <Location /only-args/>
        UTF8CheckParts args
    </Location>
    <Location /only-headers/>
        UTF8CheckParts headers
    </Location>
    <Location /only-body/>
        UTF8CheckParts body
    </Location>
    <Location /status/>
        UTF8CheckStatus 422
        UTF8CheckLogLevel warn
    </Location>
    <Location /quiet/>
        UTF8CheckLogLevel info
    </Location>
    <Location /info/>
        UTF8CheckLogLevel info
        LogLevel warn utf8_check:info
    </Location>
    <Location /off/>
        UTF8Check Off
    </Location>
    <Location /error-page/>
        ErrorDocument 400 /errors/rejected.txt
    </Location>
</VirtualHost>

# The README's configuration: UTF8Check On, every other directive at its default.
<VirtualHost 127.0.0.1:{port_default}>
    UTF8Check On
    HttpProtocolOptions Unsafe
    AliasMatch "^/" {work}/htdocs/ok.txt
</VirtualHost>

# The module loaded, UTF8Check not set (off) in the server, on in one location.
<VirtualHost 127.0.0.1:{port_unset}>
    HttpProtocolOptions Unsafe
    AliasMatch "^/" {work}/htdocs/ok.txt
    <Location /on/>
        UTF8Check On
    </Location>
</VirtualHost>
"""

MPM_TUNING = {
    # one child that stays: no child is stopped for being idle while it holds a
    # connection
    "event": "StartServers 1\nServerLimit 1\nThreadsPerChild 32\nMaxRequestWorkers 32\n"
             "MinSpareThreads 1\nMaxSpareThreads 32\n",
    "prefork": "StartServers 2\nMinSpareServers 2\nMaxSpareServers 4\nMaxRequestWorkers 16\n",
}


def apache_config(work, mpm, module, ports):
    # mod_http2 (h2c, prior knowledge) under event; Apache does not offer HTTP/2
    # under prefork
    conf = base_config(work, mpm, [ports["all"], ports["default"], ports["unset"]],
                       ["alias", "proxy", "proxy_http"]
                       + (["http2"] if mpm == "event" else [])
                       + [("utf8_check_module", module)])
    conf += MPM_TUNING[mpm]
    site = SITE
    for key, value in (("{work}", work), ("{port_all}", str(ports["all"])),
                       ("{port_default}", str(ports["default"])),
                       ("{port_unset}", str(ports["unset"])),
                       ("{port_backend}", str(ports["backend"]))):
        site = site.replace(key, value)
    return conf + site


class Apache(ApacheProcess):
    """The Apache under test, with the log readers the checks need."""

    def __init__(self, binary, module, work, mpm, ports):
        self.ports = ports
        for d in ("htdocs/errors", "dirtest"):
            os.makedirs(os.path.join(work, d), exist_ok=True)
        with open(os.path.join(work, "htdocs", "ok.txt"), "w") as f:
            f.write("ok\n")
        with open(os.path.join(work, "htdocs", "errors", "rejected.txt"), "w") as f:
            f.write("rejected by utf8_check\n")
        with open(os.path.join(work, "dirtest", "x"), "w") as f:
            f.write("ok\n")
        self.access_log = os.path.join(work, "access.log")
        open(self.access_log, "wb").close()
        open(os.path.join(work, "error.log"), "wb").close()
        super().__init__(binary, work, apache_config(work, mpm, module, ports), ports["all"])
        self.error_pos = 0
        self.access_lines = 0

    def new_error_lines(self):
        """The error-log lines written since the last call (as bytes)."""
        with open(self.error_log, "rb") as f:
            f.seek(self.error_pos)
            data = f.read()
        self.error_pos += len(data)
        return [line for line in data.split(b"\n") if line]

    def next_access_line(self):
        """The access-log line of the request just answered (Apache writes it after
        the response, so wait for it)."""
        deadline = time.time() + 5
        while True:
            with open(self.access_log, "rb") as f:
                lines = f.read().split(b"\n")
            if len(lines) - 1 > self.access_lines:
                self.access_lines += 1
                return lines[self.access_lines - 1].decode()
            if time.time() > deadline:
                return None
            time.sleep(0.001)


# --- requests -------------------------------------------------------------------------

def build(path, headers=(), body=None, chunked=False, method=None, host=b"test",
          close=True):
    """The head of a request, and its body as the list of pieces to send."""
    method = method or (b"POST" if body is not None else b"GET")
    head = [method + b" " + path + b" HTTP/1.1", b"Host: " + host]
    head += [name + b": " + value for name, value in headers]
    pieces = []
    if body is not None and chunked:
        head.append(b"Transfer-Encoding: chunked")
        for chunk in body:
            pieces.append(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        pieces.append(b"0\r\n\r\n")
    elif body is not None:
        data = b"".join(body)
        head.append(b"Content-Length: %d" % len(data))
        pieces = list(body)
    if close:
        head.append(b"Connection: close")
    return b"\r\n".join(head) + b"\r\n\r\n", pieces


def exchange(port, path, pause=0.0, together=0, **kw):
    """Sends one request (each body piece in its own send, TCP_NODELAY, `pause`
    seconds after each send, so that Apache reads it on its own; `together` pieces
    go with the head, True: all) and returns (status, headers, body) of the answer."""
    head, pieces = build(path, **kw)
    n = len(pieces) if together is True else together
    sends = [head + b"".join(pieces[:n])] + pieces[n:]
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        for data in sends:
            s.sendall(data)
            if pause:
                time.sleep(pause)
    except (BrokenPipeError, ConnectionResetError):
        pass  # rejected before the whole body was sent; the answer is still there
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
        if kw.get("close") is False and b"\r\n\r\n" in data:
            hdr, _, rest = data.partition(b"\r\n\r\n")
            m = re.search(rb"(?i)content-length: *(\d+)", hdr)
            if m and len(rest) >= int(m.group(1)):
                break
    s.close()
    hdr, _, body = data.partition(b"\r\n\r\n")
    lines = hdr.split(b"\r\n")
    status = int(lines[0].split()[1]) if lines and lines[0] else 0
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode()] = value.strip().decode("latin-1")
    return status, headers, body


# The module's line, as ErrorLogFormat "[%l] %M" writes it. Apache escapes every
# error-log message: a backslash becomes "\\", a byte outside printable ASCII "\xhh".
QUOTED = r'(?:[^"\\]|\\.)*'
LINE_RE = re.compile(
    r'^\[(?P<level>\w+)\] '
    r'utf8_check: rejected, part=(?P<part>[a-z-]+)'
    r'(?: argument=(?P<argument>\d+)| header=(?P<position>\d+)'
    r'| header="(?P<header>' + QUOTED + r')"(?P<header_cut>\.\.\.)?)?'
    r' offset=(?P<offset>\d+) length=(?P<length>\d+) kind=(?P<kind>[a-z_]+)'
    r' message="(?P<message>[^"]+)" bytes=(?P<lo>\d+)\.\.(?P<hi>\d+)'
    r' value="(?P<value>' + QUOTED + r')", client: 127\.0\.0\.1, server: "' + QUOTED + '",'
    r' request: "(?P<request>' + QUOTED + r')"(?:\.\.\.)?$')


def apache_unescape(text):
    """Undoes Apache's escaping of error-log messages: "\\\\" is a backslash, "\\xhh"
    the byte hh, "\\n" and the like their control characters."""
    out = bytearray()
    i = 0
    controls = {"n": 10, "r": 13, "t": 9, "b": 8, "v": 11}
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "x":
                out.append(int(text[i + 2:i + 4], 16))
                i += 4
                continue
            out.append(controls.get(nxt, ord(nxt)))
            i += 2
            continue
        out += c.encode("utf-8")
        i += 1
    return bytes(out)


def decode_value(text):
    """The bytes a value in Apache's error log stands for: Apache's escaping undone,
    then the module's rendering (utf8_oracle.decode_rendering)."""
    return decode_rendering(apache_unescape(text).decode("utf-8"))


# --- the checks -----------------------------------------------------------------------

class Run:
    def __init__(self, apache, backend):
        self.apache = apache
        self.backend = backend
        self.count = 0
        self.failures = []

    def fail(self, what, detail):
        self.failures.append("%s: %s" % (what, detail))
        print("FAIL: %s: %s" % (what, detail))

    def expect(self, what, port, path, status, part=None, data=None, where=None,
               result=None, level="error", logged=True, **kw):
        """One request: its status; with `part`, exactly one rejection line (none
        when not `logged`) whose part, argument/header, offset, length and kind are
        the oracle's for `data` (the bytes of that part) and whose value is
        data[lo:hi] around the error; without `part`, no line. `result`: what
        %{UTF8_CHECK_RESULT}e must be in the access log ("-" when nothing was
        checked)."""
        self.count += 1
        send = kw.pop("send", exchange)
        got_status, headers, body = send(port, path, **kw)
        lines = self.apache.new_error_lines()
        access = self.apache.next_access_line()
        if got_status != status:
            self.fail(what, "status %d, want %d: %r" % (got_status, status, body[:200]))
        ours = [line for line in lines if b"utf8_check:" in line]
        # mod_proxy_http's own lines when the body it reads is refused: AH01095
        # "prefetch request body failed", AH02608 "read request body failed",
        # AH01097 "pass request body failed"
        others = [line for line in lines if b"utf8_check:" not in line
                  and re.search(rb"^\[(error|crit|alert|emerg)\]", line)
                  and not (part == "body" and re.search(rb"AH0(1095|2608|1097):", line))]
        if others:
            self.fail(what, "Apache logged %r" % others)
        if part is None:
            if ours:
                self.fail(what, "unexpected rejection line %r" % ours)
            want_result = result or "ok"
        else:
            want = check_against_python(data)
            if want is None:
                raise AssertionError("%s: test data is valid: %r" % (what, data))
            want_result = result or want[2]
            if not logged:
                if ours:
                    self.fail(what, "a line at a level the log does not let through: %r" % ours)
            elif len(ours) != 1:
                self.fail(what, "%d rejection lines, want 1: %r" % (len(ours), lines))
            else:
                self.check_line(what, ours[0], part, data, want, where, level)
        if access is None:
            self.fail(what, "no access-log line")
        elif access != "%d %s" % (status, want_result):
            self.fail(what, "access log %r, want %r" % (access, "%d %s" % (status, want_result)))
        return got_status, headers, body

    def check_line(self, what, raw, part, data, want, where, level):
        try:
            line = raw.decode("ascii")
        except UnicodeDecodeError:
            self.fail(what, "the log line is not ASCII (Apache's escaping): %r" % raw)
            return
        m = LINE_RE.match(line)
        if not m:
            self.fail(what, "log line not in the documented format: %s" % line)
            return
        offset, length, kind = want
        got = (m["level"], m["part"], int(m["offset"]), int(m["length"]), m["kind"])
        if got != (level, part, offset, length, kind):
            self.fail(what, "logged %r, want %r" % (got, (level, part, offset, length, kind)))
        if where is not None:
            key, value = where
            got_where = m[key]
            if key == "header" and got_where is not None:
                got_where = decode_value(got_where).decode("utf-8", "replace")
            if got_where != str(value):
                self.fail(what, "%s=%r, want %r" % (key, got_where, value))
        lo, hi = int(m["lo"]), int(m["hi"])
        if not (lo <= offset and offset + length <= hi <= len(data) and hi - lo <= 67
                and lo >= offset - 32 and hi <= offset + length + 32):
            self.fail(what, "bytes=%d..%d do not frame %d+%d within 32 bytes each side"
                      % (lo, hi, offset, length))
            return
        try:
            value = decode_value(m["value"])
        except (ValueError, UnicodeDecodeError) as e:
            self.fail(what, "value %r does not decode: %s" % (m["value"], e))
            return
        if value != data[lo:hi]:
            self.fail(what, "value %r is not bytes %d..%d of %r" % (m["value"], lo, hi, data))
        # the window starts and ends on character boundaries, or at the part's ends
        if lo > 0 and 0x80 <= data[lo] <= 0xBF and lo != offset:
            self.fail(what, "the window starts inside a character: %d" % lo)
        try:
            data[lo:offset].decode("utf-8")
        except UnicodeDecodeError:
            self.fail(what, "the bytes before the error in the window are not whole characters")


def test_valid(run, ports):
    """Well-formed UTF-8 in every part passes; the body reaches the backend intact."""
    text = VALID_TEXT.encode()
    path = b"/valid/" + text.replace(b" ", b"_") + b"/" + pct(text) + b"?a=" + text.replace(
        b" ", b"+") + b"&b=" + pct(text) + b"&c=%e2%82%ac+%zz%4&d=%"
    headers = [(b"X-Text", text), (b"X-" + text.replace(b" ", b"-"), b"v"), (b"X-Empty", b"")]
    body = [text[:5], text[5:6], text[6:]]  # split inside a character
    run.expect("valid: every part", ports["all"], path, 200, headers=headers, body=body,
               pause=0.01)
    run.expect("valid: chunked body", ports["all"], path, 200, headers=headers, body=body,
               chunked=True, pause=0.01)
    run.expect("valid: no body, no arguments", ports["all"], b"/", 200)
    run.expect("valid: empty body", ports["all"], b"/", 200, body=[b""])
    run.expect("valid: empty chunked body", ports["all"], b"/", 200, body=[], chunked=True)
    for chunked in (False, True):
        seen = len(run.backend.seen)
        what = "valid: proxied, %s" % ("chunked" if chunked else "with a length")
        # (not the header name that is not ASCII: Python's http.server stops reading
        # the header lines there)
        _, _, echoed = run.expect(what, ports["all"], b"/proxy/" + pct(text), 200,
                                  headers=headers[:1] + headers[2:], body=body,
                                  chunked=chunked, pause=0.01)
        got = run.backend.seen[seen:]
        if (len(got) != 1 or urllib.parse.unquote_to_bytes(got[0][0]) != b"/proxy/" + text
                or got[0][1:] != (hashlib.sha256(text).hexdigest(), len(text))):
            run.fail(what, "backend saw %r" % got)
        if echoed != text:
            run.fail(what, "echoed %r" % echoed)


def placements(seq):
    """(name, part, where, request, the part's bytes) for one ill-formed sequence in
    each part, for the location prefix given later."""
    s = sample(seq)
    return [
        ("URI, raw", "uri", None,
         lambda p: (p + s, {}), lambda p: p + s),
        ("URI, percent-encoded", "uri", None,
         lambda p: (p + pct(s), {}), lambda p: p + s),
        ("argument, raw", "args", ("argument", 2),
         lambda p: (p + b"?a=1&b=" + s + b"&c=3", {}), lambda p: b"b=" + s),
        ("argument, percent-encoded", "args", ("argument", 2),
         lambda p: (p + b"?a=1&b=" + pct(s) + b"&c=3", {}), lambda p: b"b=" + s),
        ("header value", "header", ("header", "X-Test"),
         lambda p: (p, {"headers": [(b"X-Test", s)]}), lambda p: s),
        ("header name", "header-name", ("position", 3),
         lambda p: (p, {"headers": [(b"X-Ok", b"1"), (b"X-" + s, b"v")]}),
         lambda p: b"X-" + s),
        ("body", "body", None,
         lambda p: (p, {"body": [s]}), lambda p: s),
        ("body, chunked, 1-byte chunks", "body", None,
         lambda p: (p, {"body": [s[i:i + 1] for i in range(len(s))], "chunked": True}),
         lambda p: s),
    ]


OTHER_LOCATION = {"uri": b"/only-args/", "args": b"/only-headers/",
                  "header": b"/only-body/", "header-name": b"/only-body/",
                  "body": b"/only-uri/"}


def test_cases(run, ports):
    """Each error kind in each part: rejected with one exact log line; let through
    where the part is not listed, where the module is off and where it is unset."""
    for name, seq in CASES:
        for where_name, part, where, request, part_bytes in placements(seq):
            what = "%s in the %s" % (name, where_name)
            path, kw = request(b"/t/")
            run.expect(what, ports["all"], path, 400, part=part, data=part_bytes(b"/t/"),
                       where=where, **kw)
            other = OTHER_LOCATION[part]
            path, kw = request(other)
            run.expect(what + ", %s not listed (%s)" % (part, other.decode()), ports["all"],
                       path, 200, **kw)
            path, kw = request(b"/off/")
            run.expect(what + ", UTF8Check Off", ports["all"], path, 200, result="-", **kw)
            path, kw = request(b"/unset/")
            run.expect(what + ", UTF8Check not set", ports["unset"], path, 200, result="-",
                       **kw)


def test_percent_rules(run, ports):
    """Arguments: only %XX is decoded, "+" is not a space, other "%" stay, and the
    split at "&" comes before decoding."""
    cases = [
        (b"a=%%C0%AF", 1),               # "%" then %C0 %AF
        (b"a=%zz%C0%AF", 1),             # "%zz" stays
        (b"a=%4%C0%AF", 1),              # "%4" stays
        (b"a=%1g%C0%AF", 1),             # "%1g" stays
        (b"a=%4%FF", 1),                 # "%4" stays, %FF is decoded
        (b"a=%4\xFF", 1),                # "%4" stays, the raw FF is checked
        (b"a=+%c0%af", 1),               # lower-case hex; "+" stays
        (b"a=1&b=x%26%ED%A0%80", 2),     # %26 is data, not a separator
        (b"a=1&&b=%F4%90%80%80", 3),     # an empty argument counts
        (b"q=%E2%82", 1),                # truncated at the end of the query
        (b"q=%E2%82&r=1", 1),            # truncated at the end of the argument
    ]
    for query, position in cases:
        raw_arg = query.split(b"&")[position - 1]
        run.expect("arguments %r" % query, ports["all"], b"/t/?" + query, 400, part="args",
                   data=pct_decode(raw_arg), where=("argument", position))


def random_query(rng):
    """Arguments of raw text, %XX escapes (of characters, of bytes, in either case),
    stray "%" and "+", raw UTF-8 and, now and then, a raw or escaped ill-formed byte."""
    pieces = []
    for _ in range(rng.randint(1, 6)):
        arg = b""
        for _ in range(rng.randint(0, 12)):
            kind = rng.random()
            if kind < 0.35:
                arg += bytes(rng.choice(b"abcXYZ019-_.~=+*:/") for _ in range(rng.randint(1, 17)))
            elif kind < 0.65:
                ch = rng.choice("aé€𝄞日").encode()
                arg += b"".join((b"%%%02x" if rng.random() < 0.3 else b"%%%02X") % b for b in ch)
            elif kind < 0.75:
                arg += rng.choice([b"%", b"%g", b"%4", b"%%", b"%4g", b"%%41"])
            elif kind < 0.9:
                arg += rng.choice("é€𝄞").encode()
            elif kind < 0.95:
                arg += rng.choice([b"%80", b"%C0", b"%ed%a0", b"%F4%90", b"\xff", b"\xc3"])
            else:
                arg += rng.choice([b"%E2%82", b"\xe2\x82"])  # cut short if last
        pieces.append(arg)
    return b"&".join(pieces)


def test_random_arguments(run, ports):
    """Random queries: status, argument and offset as the oracle finds them in the
    arguments decoded by the documented rule."""
    rng = random.Random(3986)
    for i in range(200):
        query = random_query(rng)
        for position, raw in enumerate(query.split(b"&"), 1):
            data = pct_decode(raw)
            if check_against_python(data):
                run.expect("random arguments %d: %r" % (i, query), ports["all"],
                           b"/t/?" + query, 400, part="args", data=data,
                           where=("argument", position))
                break
        else:
            run.expect("random arguments %d: %r" % (i, query), ports["all"], b"/t/?" + query, 200)


def test_directives(run, ports):
    """UTF8CheckStatus, UTF8CheckLogLevel, the defaults, merging per <Location> and
    <Directory>, ErrorDocument, and that the backend sees no rejected request."""
    s = sample(b"\xc0\xaf")
    run.expect("UTF8CheckStatus 422, UTF8CheckLogLevel warn", ports["all"],
               b"/status/" + pct(s), 422, part="uri", data=b"/status/" + s, level="warn")
    _, headers, _ = run.expect(
        "body rejected with 422 (parts inherited): the connection is closed", ports["all"],
        b"/status/", 422, part="body", data=s, level="warn", body=[s], close=False)
    if headers.get("connection") != "close":
        run.fail("body rejected with 422", "Connection: %r, want close" % headers.get("connection"))
    run.expect("UTF8CheckLogLevel info, LogLevel warn: no line", ports["all"],
               b"/quiet/" + pct(s), 400, part="uri", data=b"/quiet/" + s, logged=False)
    run.expect("UTF8CheckLogLevel info, LogLevel utf8_check:info", ports["all"],
               b"/info/" + pct(s), 400, part="uri", data=b"/info/" + s, level="info")
    _, _, body = run.expect("ErrorDocument: the result survives the redirect",
                            ports["all"], b"/error-page/" + pct(s), 400, part="uri",
                            data=b"/error-page/" + s)
    if body != b"rejected by utf8_check\n":
        run.fail("ErrorDocument", "body %r" % body)
    _, _, body = run.expect("ErrorDocument after a body rejection", ports["all"],
                            b"/error-page/", 400, part="body", data=s, body=[s])
    if body != b"rejected by utf8_check\n":
        run.fail("ErrorDocument after a body rejection", "body %r" % body)
    # <Directory> with UTF8CheckParts uri: the arguments and headers are not checked.
    run.expect("<Directory> parts uri: argument passes", ports["all"],
               b"/dir/x?b=" + pct(s), 200, headers=[(b"X-Test", s)])
    run.expect("<Directory> parts uri: URI rejected", ports["all"],
               b"/dir/" + pct(s), 400, part="uri", data=b"/dir/" + s)
    # Defaults: status 400, level error, parts uri args headers (not the body).
    run.expect("defaults: URI", ports["default"], b"/d/" + pct(s), 400, part="uri",
               data=b"/d/" + s)
    run.expect("defaults: argument", ports["default"], b"/d/?a=" + pct(s), 400, part="args",
               data=b"a=" + s, where=("argument", 1))
    run.expect("defaults: header", ports["default"], b"/d/", 400, part="header",
               data=s, headers=[(b"X-Test", s)])
    run.expect("defaults: body not checked", ports["default"], b"/d/", 200, body=[s])
    # A <Location> turning it on in a server where it is not set.
    run.expect("<Location> on in an unset server", ports["unset"], b"/on/" + pct(s), 400,
               part="uri", data=b"/on/" + s)
    # No rejected request reaches the backend (bodies smaller than mod_proxy's
    # 16 kB prefetch are read whole before it connects).
    seen = len(run.backend.seen)
    for where_name, part, where, request, part_bytes in placements(b"\xed\xa0\x80"):
        path, kw = request(b"/proxy/")
        run.expect("proxied: %s" % where_name, ports["all"], path, 400, part=part,
                   data=part_bytes(b"/proxy/"), where=where, **kw)
    if run.backend.seen[seen:]:
        run.fail("proxied", "the backend saw rejected requests: %r" % run.backend.seen[seen:])


def test_configtest(run, ports, args, work):
    """`apache2 -t` refuses bad values of each directive, and accepts good ones."""
    bad = ["UTF8Check maybe", "UTF8CheckParts uri cookies", "UTF8CheckParts",
           "UTF8CheckStatus 200", "UTF8CheckStatus 600", "UTF8CheckStatus 4OO",
           "UTF8CheckStatus", "UTF8CheckLogLevel debug", "UTF8CheckLogLevel emerg",
           "UTF8CheckStatus 400 401"]
    good = ["UTF8Check On", "UTF8Check off", "UTF8CheckParts body URI",
            "UTF8CheckStatus 599", "UTF8CheckLogLevel notice",
            "<Location /x>\nUTF8CheckParts args\n</Location>",
            "<Directory /tmp>\nUTF8Check On\n</Directory>"]
    path = os.path.join(work, "configtest.conf")
    for line, want_ok in [(b, False) for b in bad] + [(g, True) for g in good]:
        run.count += 1
        with open(path, "w") as f:
            f.write(base_config(work, args.mpms[0], [free_port()],
                                [("utf8_check_module", os.path.abspath(args.module))]))
            f.write(line + "\n")
        rc, out = config_test(args.apache, path)
        directive = line.split()[0] if not line.startswith("<") else "UTF8Check"
        if want_ok and rc != 0:
            run.fail("configtest %r" % line, "refused: %s" % out.strip())
        if not want_ok and (rc == 0 or directive.split("\n")[0] not in out):
            run.fail("configtest %r" % line, "rc %d, output %s" % (rc, out.strip()))


def big_text(rng, size):
    """Well-formed text of `size` bytes or a few more: 1- to 4-byte characters."""
    chars = ["a", "é", "€", "𝄞", "日", " ", "\n"]
    out = []
    n = 0
    while n < size:
        c = rng.choice(chars).encode()
        out.append(c)
        n += len(c)
    return b"".join(out)


def segments(rng, data, biggest):
    out = []
    i = 0
    while i < len(data):
        n = rng.randint(1, biggest)
        out.append(data[i:i + n])
        i += n
    return out


def test_big_bodies(run, ports):
    """2 MB bodies in random TCP segments and chunks (splitting characters): the
    well-formed one reaches the backend byte-exact, the one with an error at its end
    is rejected at the right offset (and, through the proxy, never reaches the
    backend whole); the children's memory does not grow."""
    rng = random.Random(3629)
    text = big_text(rng, 2 << 20)
    rss_before = {pid: run.apache.rss_kb([pid]) for pid in run.apache.child_pids()}
    for chunked in (False, True):
        how = "chunked" if chunked else "with a length"
        seen = len(run.backend.seen)
        _, _, echoed = run.expect("2 MB well-formed, %s, proxied" % how, ports["all"],
                                  b"/proxy/big", 200, body=segments(rng, text, 70000),
                                  chunked=chunked)
        got = run.backend.seen[seen:]
        if got != [("/proxy/big", hashlib.sha256(text).hexdigest(), len(text))] \
                or echoed != text:
            run.fail("2 MB well-formed, %s" % how, "backend saw %r" % got)
        for seq in (b"\xed\xa0\x80", b"\xe2\x82"):
            body = text + seq
            run.expect("2 MB with %r at the end, %s" % (seq, how), ports["all"], b"/t/big",
                       400, part="body", data=body, body=segments(rng, body, 70000),
                       chunked=chunked)
        # Through the proxy, which streams what comes after its first 16 kB: the
        # backend may get the beginning of the body, never all of it.
        body = text + b"\xf4\x90\x80\x80"
        seen = len(run.backend.seen)
        run.expect("2 MB with F4 90 80 80 at the end, %s, proxied" % how, ports["all"],
                   b"/proxy/big", 400, part="body", data=body,
                   body=segments(rng, body, 70000), chunked=chunked)
        time.sleep(0.2)
        whole = hashlib.sha256(body).hexdigest()
        if any(sha == whole or n >= len(body) for _, sha, n in run.backend.seen[seen:]):
            run.fail("2 MB rejected at its end, proxied", "the backend got all of it")
    # each child that was there before and after (prefork starts and stops some)
    for pid, before in rss_before.items():
        after = run.apache.rss_kb([pid])
        if after and after - before > 4096:
            run.fail("big bodies", "child %d's memory grew by %d kB" % (pid, after - before))


def test_body_pieces(run, ports):
    """Each ill-formed sequence cut every way between TCP segments and between
    chunks (a pause after each, so that Apache reads it on its own); well-formed
    2-, 3- and 4-byte characters cut every way reach the backend byte-exact."""
    for name, seq in CASES:
        s = sample(seq)
        start = len(PREFIX)
        for cut in range(start - 1, start + len(seq) + 1):
            for chunked in (False, True):
                what = "%s, cut at %d of the body%s" % (name, cut, ", chunked" if chunked else "")
                run.expect(what, ports["all"], b"/t/", 400, part="body", data=s,
                           body=[s[:cut], s[cut:]], chunked=chunked, pause=0.005)
    for ch in ("é", "€", "𝄞"):
        c = ch.encode()
        body = PREFIX + c + SUFFIX
        for cut in range(len(PREFIX) + 1, len(PREFIX) + len(c)):
            for chunked in (False, True):
                what = "%r cut at %d%s" % (ch, cut, ", chunked" if chunked else "")
                seen = len(run.backend.seen)
                _, _, echoed = run.expect(what, ports["all"], b"/proxy/p", 200,
                                          body=[body[:cut], body[cut:]], chunked=chunked,
                                          pause=0.005)
                if run.backend.seen[seen:] != [("/proxy/p", hashlib.sha256(body).hexdigest(),
                                                len(body))] or echoed != body:
                    run.fail(what, "backend saw %r" % run.backend.seen[seen:])
    rng = random.Random(2279)
    for biggest in (1, 2, 5, 16, 100):
        for name, seq in CASES[::3]:
            s = sample(seq)
            run.expect("%s, in pieces of up to %d bytes" % (name, biggest), ports["all"],
                       b"/t/", 400, part="body", data=s, body=segments(rng, s, biggest),
                       chunked=biggest % 2 == 1)


def curl_h2(port, path, headers=(), body=None, content_length=True):
    """One HTTP/2 request (h2c with prior knowledge) with curl: (status, {}, body)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        argv = [b"curl", b"-sS", b"--http2-prior-knowledge", b"--path-as-is", b"-o",
                out.encode(), b"-w", b"%{http_code} %{http_version}"]
        for name, value in headers:
            argv += [b"-H", name + b": " + value]
        if body is not None:
            data = os.path.join(tmp, "body")
            with open(data, "wb") as f:
                f.write(body)
            argv += [b"--data-binary", b"@" + data.encode()]
            if not content_length:
                argv += [b"-H", b"Content-Length:"]
        argv.append(b"http://127.0.0.1:%d" % port + path)
        run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        code, _, version = run.stdout.decode().partition(" ")
        if version != "2":
            return 0, {}, run.stderr
        with open(out, "rb") as f:
            return int(code), {}, f.read()


def test_http2(run, ports):
    """HTTP/2 (mod_http2, h2c): each part; bodies with and without a length, read by
    mod_proxy (the default handler does not read a body under HTTP/2: see README)."""
    if "mod_http2.so" not in run.apache.conf_text:  # event only
        return
    s = sample(b"\xf4\x90\x80\x80")
    h2 = {"send": curl_h2}
    run.expect("HTTP/2: URI", ports["all"], b"/t/" + pct(s), 400, part="uri",
               data=b"/t/" + s, **h2)
    run.expect("HTTP/2: argument", ports["all"], b"/t/?a=1&b=" + pct(s), 400, part="args",
               data=b"b=" + s, where=("argument", 2), **h2)
    run.expect("HTTP/2: header", ports["all"], b"/t/", 400, part="header", data=s,
               where=("header", "X-Test"), headers=[(b"X-Test", s)], **h2)
    rng = random.Random(7540)
    text = big_text(rng, 1 << 20)
    for content_length in (True, False):
        how = "with" if content_length else "without"
        for body in (s, text + b"\xed\xa0\x80", text + b"\xf0\x9f\x98"):
            run.expect("HTTP/2: body of %d bytes %s a length" % (len(body), how), ports["all"],
                       b"/proxy/h2", 400, part="body", data=body, body=body,
                       content_length=content_length, **h2)
        seen = len(run.backend.seen)
        _, _, echoed = run.expect("HTTP/2: 1 MB well-formed, %s a length, proxied" % how,
                                  ports["all"], b"/proxy/h2", 200, body=text,
                                  content_length=content_length, **h2)
        if run.backend.seen[seen:] != [("/proxy/h2", hashlib.sha256(text).hexdigest(),
                                        len(text))] or echoed != text:
            run.fail("HTTP/2: 1 MB well-formed, %s a length" % how,
                     "backend saw %r" % run.backend.seen[seen:])


TESTS = ["valid", "cases", "percent_rules", "random_arguments", "directives",
         "configtest", "big_bodies", "body_pieces", "http2"]


def run_mpm(args, mpm, work):
    start = time.time()
    ports = {k: free_port() for k in ("all", "default", "unset", "backend")}
    backend = Backend(ports["backend"])
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    apache = None
    try:
        apache = Apache(args.apache, os.path.abspath(args.module), work, mpm, ports)
        run = Run(apache, backend)
        children = apache.child_pids()
        for name in args.tests:
            t = time.time()
            before = run.count
            test = globals()["test_" + name]
            if name == "configtest":
                test(run, ports, args, work)
            else:
                test(run, ports)
            print("%-8s %-17s %4d requests, %.1f s" % (mpm, name, run.count - before,
                                                       time.time() - t))
        if mpm == "prefork":
            # prefork may have started and stopped children on its own; none may die
            pass
        elif set(apache.child_pids()) - set(children) and b"exit signal" in open(
                apache.error_log, "rb").read():
            run.fail("children", "a child was replaced after a crash")
    finally:
        if apache:
            apache.stop()
        backend.shutdown()
    with open(os.path.join(work, "error.log"), "rb") as f:
        log = f.read()
    try:
        log.decode("ascii")
    except UnicodeDecodeError as e:
        run.fail("error log", "not ASCII (Apache escapes its messages) at byte %d" % e.start)
    for bad in (b"exit signal", b"[alert]", b"[crit]", b"[emerg]", b"Segmentation"):
        if bad in log:
            run.fail("error log", "contains %r" % bad)
    print("%-8s %d checks in %.1f s; %d failures" % (mpm, run.count, time.time() - start,
                                                    len(run.failures)))
    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", required=True)
    ap.add_argument("--apache", default="/usr/sbin/apache2")
    ap.add_argument("--mpm", default="event,prefork", help="the MPMs to run under, in turn")
    ap.add_argument("--workdir")
    ap.add_argument("--only", metavar="TEST,...",
                    help="run only these tests: " + ", ".join(TESTS))
    args = ap.parse_args()
    args.mpms = args.mpm.split(",")
    args.tests = TESTS
    if args.only:
        names = args.only.split(",")
        unknown = set(names) - set(TESTS)
        if unknown:
            ap.error("no such test: %s" % ", ".join(sorted(unknown)))
        args.tests = [t for t in TESTS if t in names]
    top = args.workdir or tempfile.mkdtemp(prefix="utf8-check-apache.")
    os.chmod(top, 0o755)  # Apache's children (User nobody) read the files below
    failures = []
    total = 0
    start = time.time()
    for mpm in args.mpms:
        run = run_mpm(args, mpm, os.path.join(top, mpm))
        failures += ["%s: %s" % (mpm, f) for f in run.failures]
        total += run.count
    print("%d checks in %.1f s under %s; %d failures"
          % (total, time.time() - start, " and ".join(args.mpms), len(failures)))
    if failures:
        print("work directory kept: %s" % top)
        return 1
    if not args.workdir:
        shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
