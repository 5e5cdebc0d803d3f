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
import json
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "nginx", "tests"))
from apache_process import ApacheProcess, base_config, config_test, free_port  # noqa: E402
from server_cases import (  # noqa: E402,F401  (the tests run by name: see TESTS)
    CASES, PREFIX, SUFFIX, VALID_TEXT, Backend, LogReaders, RunBase, curl_h2, pct,
    placements, sample, segments, test_cases, test_percent_rules, test_random_arguments)
from utf8_oracle import decode_rendering  # noqa: E402


# --- Apache -------------------------------------------------------------------------------

# Every location but /proxy/, /errors/ and /cgi/ answers with ok.txt (the default
# handler, which reads and discards a request body, so that the body filter sees it).
# /cgi/ runs the CGI script below (mod_cgid under event, mod_cgi under prefork).
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
<Directory {work}/cgi-bin>
    Require all granted
</Directory>
<IfModule cgid_module>
    ScriptSock {work}/cgid.sock
</IfModule>
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
    AliasMatch "^/(?!proxy/|errors/|dir/|cgi/)" {work}/htdocs/ok.txt
    ScriptAlias /cgi/ {work}/cgi-bin/
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
    <Location /error-cgi/>
        ErrorDocument 400 /cgi/seen?error-document
    </Location>
</VirtualHost>

# The README's configuration: UTF8Check On, every other directive at its default.
<VirtualHost 127.0.0.1:{port_default}>
    UTF8Check On
    HttpProtocolOptions Unsafe
    AliasMatch "^/(?!cgi/)" {work}/htdocs/ok.txt
    ScriptAlias /cgi/ {work}/cgi-bin/
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
                       + (["http2", "cgid"] if mpm == "event" else ["cgi"])
                       + [("utf8_check_module", module)])
    conf += MPM_TUNING[mpm]
    site = SITE
    for key, value in (("{work}", work), ("{port_all}", str(ports["all"])),
                       ("{port_default}", str(ports["default"])),
                       ("{port_unset}", str(ports["unset"])),
                       ("{port_backend}", str(ports["backend"]))):
        site = site.replace(key, value)
    return conf + site


# The CGI script: what it sees of the request, written to cgi-seen/<QUERY_STRING> as
# JSON once its standard input ends, or when Apache stops it (SIGTERM) before that.
CGI_SCRIPT = r"""#!/usr/bin/python3
import json, os, signal, sys
seen = {"result": os.environ.get("UTF8_CHECK_RESULT"),
        "redirect_result": os.environ.get("REDIRECT_UTF8_CHECK_RESULT"),
        "read": 0, "end": None}
def record(end):
    seen["end"] = end
    path = os.path.join("%s", os.environ["QUERY_STRING"])
    with open(path + ".tmp", "w") as f:
        json.dump(seen, f)
    os.rename(path + ".tmp", path)
def terminated(signum, frame):
    record("SIGTERM")
    os._exit(0)
signal.signal(signal.SIGTERM, terminated)
body = b""
try:
    while True:
        data = os.read(0, 65536)
        if not data:
            break
        body += data
        seen["read"] = len(body)
    end = "eof"
except OSError as e:
    end = "error %%d" %% e.errno
seen["body"] = body.decode("latin-1")
record(end)
sys.stdout.write("Content-Type: text/plain\r\n\r\ncgi\n")
"""


class Apache(LogReaders, ApacheProcess):
    """The Apache under test, with the log readers the checks need."""

    def __init__(self, binary, module, work, mpm, ports):
        self.ports = ports
        for d in ("htdocs/errors", "dirtest", "cgi-bin", "cgi-seen"):
            os.makedirs(os.path.join(work, d), exist_ok=True)
        self.cgi_seen = os.path.join(work, "cgi-seen")
        os.chmod(self.cgi_seen, 0o777)  # the script runs as Apache's User
        script = os.path.join(work, "cgi-bin", "seen")
        with open(script, "w") as f:
            f.write(CGI_SCRIPT % self.cgi_seen)
        os.chmod(script, 0o755)
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
        self.start_log_readers()


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

class Run(RunBase):
    SERVER = "Apache"
    OFF = "UTF8Check Off"
    UNSET = "UTF8Check not set"
    RANDOM_QUERIES = 200
    ENCODING = ("ascii", "ASCII (Apache's escaping)")
    LINE_RE = LINE_RE

    def __init__(self, apache, backend):
        super().__init__(apache)
        self.apache = apache
        self.backend = backend

    def other_line(self, line, part):
        # mod_proxy_http's own lines when the body it reads is refused: AH01095
        # "prefetch request body failed", AH02608 "read request body failed",
        # AH01097 "pass request body failed"; mod_cgi's and mod_cgid's: AH01225 and
        # AH01270 "Error reading request entity data"
        return (re.search(rb"^\[(error|crit|alert|emerg)\]", line) is not None
                and not (part == "body"
                         and re.search(rb"AH0(1095|2608|1097|1225|1270):", line)))

    def status_detail(self, got, want, body):
        return "status %d, want %d: %r" % (got, want, body[:200])

    def where_value(self, key, logged):
        if key == "header" and logged is not None:
            return decode_value(logged).decode("utf-8", "replace")
        return logged

    def check_window(self, what, m, data, offset, length):
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


def cgi_seen(run, name):
    """What the CGI script recorded for the request with query `name` (it may finish
    after the answer), or None when it recorded nothing within 10 s."""
    path = os.path.join(run.apache.cgi_seen, name)
    deadline = time.time() + 10
    while not os.path.exists(path):
        if time.time() > deadline:
            return None
        time.sleep(0.01)
    with open(path) as f:
        return json.load(f)


def test_cgi(run, ports):
    """What a CGI script (mod_cgid under event, mod_cgi under prefork) sees of the
    result and of the body (README, "UTF8_CHECK_RESULT"). Its environment is made
    before the body is read: UTF8_CHECK_RESULT is "ok" when no body is checked, and
    not set when one is, whatever the access log then shows. An ill-formed body
    reaches the script up to the piece with the error; then its standard input
    neither goes on nor ends, and Apache ends it with SIGTERM; the client gets the
    rejection, not the script's answer. A CGI ErrorDocument sees the error's kind."""
    s = sample(b"\xed\xa0\x80")
    first = PREFIX * 20  # sent on its own, before the piece with the error
    bad = dict(part="body", data=first + s)
    # An ill-formed body's pieces go out 0.5 s after the head and after each other:
    # the time for Apache to start the script, and for the script to start (it must
    # be reading when Apache ends it) and to read each piece.
    paced = dict(pause=0.5, paced=[-1, 0])
    # (the query, which names the script's record; the port; the request; its status;
    # expect()'s keywords; what the script sees: the variable, the bytes it read, and
    # how its input ended)
    cases = [
        ("get", ports["all"], {}, 200, {}, ("ok", 0, "eof")),
        ("valid", ports["all"], dict(body=[first, first]), 200, {},
         (None, 2 * len(first), "eof")),
        ("valid-chunked", ports["all"], dict(body=[first, first], chunked=True), 200, {},
         (None, 2 * len(first), "eof")),
        ("ill-formed", ports["all"], dict(body=[first, s], **paced), 400, bad,
         (None, len(first), "SIGTERM")),
        ("ill-formed-chunked", ports["all"], dict(body=[first, s], chunked=True, **paced),
         400, bad, (None, len(first), "SIGTERM")),
        ("ill-formed-one-piece", ports["all"], dict(body=[first + s], **paced), 400, bad,
         (None, 0, "SIGTERM")),
        ("body-not-checked", ports["default"], dict(body=[first, s]), 200, {},
         ("ok", len(first + s), "eof")),
    ]
    for name, port, kw, status, more, want in cases:
        what = "CGI: " + name
        _, _, answer = run.expect(what, port, b"/cgi/seen?" + name.encode(), status,
                                  **{"pause": 0.05, **kw}, **more)
        seen = cgi_seen(run, name)
        got = seen and (seen["result"], seen["read"], seen["end"])
        if got != want:
            run.fail(what, "the script saw %r, want %r" % (got, want))
        elif want[2] == "eof" and (seen["body"].encode("latin-1")
                                   != b"".join(kw.get("body", [])) or b"cgi\n" not in answer):
            run.fail(what, "the script read %r, answered %r" % (seen["body"][:100], answer))
    for name, path, kw, more in [
            ("URI", b"/error-cgi/" + pct(s), {}, dict(part="uri", data=b"/error-cgi/" + s)),
            ("body", b"/error-cgi/", dict(body=[first, s]), bad)]:
        what = "CGI ErrorDocument, %s rejected" % name
        _, _, answer = run.expect(what, ports["all"], path, 400, pause=0.05, **kw, **more)
        seen = cgi_seen(run, "error-document")
        got = seen and (seen["result"], seen["redirect_result"], seen["read"],
                        b"cgi\n" in answer)
        if got != ("surrogate", "surrogate", 0, True):
            run.fail(what, "the script saw (result, REDIRECT_ result, bytes read, its "
                     "answer sent) %r" % (got,))
        if seen:
            os.unlink(os.path.join(run.apache.cgi_seen, "error-document"))


TESTS = ["valid", "cases", "percent_rules", "random_arguments", "directives",
         "configtest", "big_bodies", "body_pieces", "http2", "cgi"]


def run_mpm(args, mpm, work):
    start = time.time()
    ports = {k: free_port() for k in ("all", "default", "unset", "backend")}
    backend = Backend(ports["backend"], echo=True)
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
