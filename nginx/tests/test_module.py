#!/usr/bin/env python3
"""Functional tests of ngx_http_utf8_check_module in a real nginx on 127.0.0.1.

Starts its own nginx (own prefix, configuration, pid and log files, free loopback
ports) with the module, and a small HTTP backend for proxy_pass, sends requests
through raw sockets so that ill-formed bytes go out as they are, and checks each
answer, error-log line and access-log line against utf8_oracle (the RFC 3629
grammar, cross-checked with Python's decoder), never against the module itself.

Usage: test_module.py --module objs/ngx_http_utf8_check_module.so
                      [--nginx /usr/sbin/nginx] [--workdir DIR]
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nginx_process import NginxProcess, free_port, user_directive  # noqa: E402
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


# --- nginx and the backend ------------------------------------------------------------

class Backend(http.server.ThreadingHTTPServer):
    """The upstream of /proxy/: records what reaches it."""

    daemon_threads = True

    def __init__(self, port):
        self.seen = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", port), BackendHandler)


class BackendHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        with self.server.lock:
            self.server.seen.append((self.path, hashlib.sha256(body).hexdigest(), len(body)))
        out = b"backend\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = do_any

    def log_message(self, *args):
        pass


NGINX_CONF = """
load_module {module};
{user}
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 512; }}

http {{
    client_body_temp_path {work}/client_body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;

    log_format result '$status $utf8_check_result';
    access_log {work}/access.log result;

    # Every part, every directive.
    server {{
        listen 127.0.0.1:{port_all};
        utf8_check on;
        utf8_check_parts uri args headers body;
        ignore_invalid_headers off;
        client_max_body_size 0;

        location / {{ return 200 "ok\\n"; }}
        location /echo/ {{ client_body_buffer_size 64k; return 200 "$request_body"; }}
        location /proxy/ {{
            proxy_pass http://127.0.0.1:{port_backend};
            proxy_request_buffering off;
        }}
        location /only-uri/ {{ utf8_check_parts uri; return 200 "ok\\n"; }}
        location /only-args/ {{ utf8_check_parts args; return 200 "ok\\n"; }}
        location /only-headers/ {{ utf8_check_parts headers; return 200 "ok\\n"; }}
        location /only-body/ {{ utf8_check_parts body; return 200 "ok\\n"; }}
        location /status/ {{
            utf8_check_status 422;
            utf8_check_log_level warn;
            return 200 "ok\\n";
        }}
        location /off/ {{ utf8_check off; return 200 "ok\\n"; }}
        location /error-page/ {{
            error_page 400 = @rejected;
            return 200 "ok\\n";
        }}
        location @rejected {{ return 400 "rejected by utf8_check\\n"; }}
    }}

    # The README's configuration: utf8_check on, every other directive at its default.
    server {{
        listen 127.0.0.1:{port_default};
        utf8_check on;
        ignore_invalid_headers off;
        location / {{ return 200 "ok\\n"; }}
    }}

    # HTTP/2 without TLS (clients use prior knowledge), every part.
    server {{
        listen 127.0.0.1:{port_h2} http2;
        utf8_check on;
        utf8_check_parts uri args headers body;
        client_max_body_size 0;
        location / {{ return 200 "ok\n"; }}
    }}

    # The module loaded, utf8_check not set (off).
    server {{
        listen 127.0.0.1:{port_unset};
        ignore_invalid_headers off;
        location / {{ return 200 "ok\\n"; }}
    }}
}}
"""


class Nginx(NginxProcess):
    """The nginx under test, with the log readers the checks need."""

    def __init__(self, binary, module, work, ports):
        self.ports = ports
        conf = NGINX_CONF.format(
            module=module, work=work, user=user_directive(),
            port_all=ports["all"], port_default=ports["default"],
            port_unset=ports["unset"], port_backend=ports["backend"],
            port_h2=ports["h2"])
        self.access_log = os.path.join(work, "access.log")
        os.makedirs(work, exist_ok=True)
        open(self.access_log, "wb").close()
        super().__init__(binary, work, conf, ports["all"])
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
        """The access-log line of the request just answered (nginx writes it after
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
            time.sleep(0.005)


# --- requests ----------------------------------------------------------------------------

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


def exchange(port, path, **kw):
    """Sends one request (each body piece in its own send, TCP_NODELAY) and returns
    (status, headers, body) of the answer, read to the end of the connection."""
    head, pieces = build(path, **kw)
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        s.sendall(head)
        for piece in pieces:
            s.sendall(piece)
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


LINE_RE = re.compile(
    r'^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d \[(?P<level>\w+)\] \d+#\d+: \*\d+ '
    r'utf8_check: rejected, part=(?P<part>[a-z-]+)'
    r'(?: argument=(?P<argument>\d+)| header=(?P<position>\d+)'
    r'| header="(?P<header>[^"]*)"(?P<header_cut>\.\.\.)?)?'
    r' offset=(?P<offset>\d+) length=(?P<length>\d+) kind=(?P<kind>[a-z_]+)'
    r' message="(?P<message>[^"]+)" bytes=(?P<lo>\d+)\.\.(?P<hi>\d+)'
    r' value="(?P<value>[^"]*)", client: 127\.0\.0\.1, server: "[^"]*",'
    r' request: "(?P<request>[^"]*)"(?:\.\.\.)?$')


# --- the checks ------------------------------------------------------------------------------

class Run:
    def __init__(self, nginx):
        self.nginx = nginx
        self.count = 0
        self.failures = []

    def fail(self, what, detail):
        self.failures.append("%s: %s" % (what, detail))
        print("FAIL: %s: %s" % (what, detail))

    def expect(self, what, port, path, status, part=None, data=None, where=None,
               result=None, level="error", **kw):
        """One request: its status; with `part`, exactly one rejection line whose
        part, argument/header, offset, length and kind are the oracle's for `data`
        (the bytes of that part) and whose value is data[lo:hi] around the error;
        without, no line. `result`: what $utf8_check_result must be in the access
        log ("-" when nothing was checked)."""
        self.count += 1
        send = kw.pop("send", exchange)
        got_status, headers, body = send(port, path, **kw)
        lines = self.nginx.new_error_lines()
        access = self.nginx.next_access_line()
        if got_status != status:
            self.fail(what, "status %d, want %d" % (got_status, status))
        ours = [line for line in lines if b"utf8_check:" in line]
        others = [line for line in lines if b"utf8_check:" not in line
                  and re.search(rb"\[(error|crit|alert|emerg)\]", line)]
        if others:
            self.fail(what, "nginx logged %r" % others)
        if part is None:
            if ours:
                self.fail(what, "unexpected rejection line %r" % ours)
            want_result = result or "ok"
        else:
            want = check_against_python(data)
            if want is None:
                raise AssertionError("%s: test data is valid: %r" % (what, data))
            want_result = result or want[2]
            if len(ours) != 1:
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
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            self.fail(what, "the log line is not UTF-8: %r" % raw)
            return
        m = LINE_RE.match(line)
        if not m:
            self.fail(what, "log line not in the documented format: %s" % line)
            return
        offset, length, kind = want
        got = (m["level"], m["part"], int(m["offset"]), int(m["length"]), m["kind"])
        if got != ("warn" if level == "warn" else "error", part, offset, length, kind):
            self.fail(what, "logged %r, want %r" % (got, (level, part, offset, length, kind)))
        if where is not None:
            key, value = where
            if m[key] != str(value):
                self.fail(what, "%s=%r, want %r" % (key, m[key], value))
        lo, hi = int(m["lo"]), int(m["hi"])
        if not (lo <= offset and offset + length <= hi <= len(data) and hi - lo <= 67):
            self.fail(what, "bytes=%d..%d do not frame %d+%d within 67 bytes" % (lo, hi, offset, length))
        elif decode_rendering(m["value"]) != data[lo:hi]:
            self.fail(what, "value %r is not bytes %d..%d of %r" % (m["value"], lo, hi, data))


def test_valid(run, ports):
    """Well-formed UTF-8 in every part passes, with and without proxying."""
    text = VALID_TEXT.encode()
    path = b"/valid/" + text.replace(b" ", b"_") + b"/" + pct(text) + b"?a=" + text.replace(
        b" ", b"+") + b"&b=" + pct(text) + b"&c=%e2%82%ac+%zz%4&d=%"
    headers = [(b"X-Text", text), (b"X-" + text.replace(b" ", b"-"), b"v"), (b"X-Empty", b"")]
    body = [text[:5], text[5:6], text[6:]]  # split inside a character
    run.expect("valid: every part", ports["all"], path, 200, headers=headers, body=body)
    run.expect("valid: chunked body", ports["all"], path, 200, headers=headers, body=body,
               chunked=True)
    _, _, echoed = run.expect("valid: body echoed intact", ports["all"], b"/echo/", 200,
                              body=body)
    if echoed != text:
        run.fail("valid: body echoed intact", "got %r" % echoed)
    run.expect("valid: no body, no arguments", ports["all"], b"/", 200)
    run.expect("valid: empty body", ports["all"], b"/", 200, body=[b""])
    seen = len(run.nginx.backend.seen)
    run.expect("valid: proxied", ports["all"], b"/proxy/" + pct(text), 200, headers=headers,
               body=body)
    if run.nginx.backend.seen[seen:] != [("/proxy/" + pct(text).decode(),
                                         hashlib.sha256(text).hexdigest(), len(text))]:
        run.fail("valid: proxied", "backend saw %r" % run.nginx.backend.seen[seen:])


def placements(seq):
    """(name, part, where, path, request keywords, the part's bytes) for one
    ill-formed sequence in each part, for the location prefix given later."""
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
            run.expect(what + ", utf8_check off", ports["all"], path, 200, result="-", **kw)
            path, kw = request(b"/unset/")
            run.expect(what + ", utf8_check not set", ports["unset"], path, 200, result="-",
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
    stray "%" and "+", raw UTF-8 and, now and then, a raw or escaped ill-formed
    byte: runs of every length between escapes, for the decoder's word steps."""
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
    for i in range(300):
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
    """utf8_check_status, utf8_check_log_level, the defaults, error_page, and that
    no upstream sees a rejected request."""
    s = sample(b"\xc0\xaf")
    run.expect("utf8_check_status 422, utf8_check_log_level warn", ports["all"],
               b"/status/" + pct(s), 422, part="uri", data=b"/status/" + s, level="warn")
    status, headers, _ = run.expect(
        "body rejected with 422: the connection is closed", ports["all"], b"/status/", 422,
        part="body", data=s, level="warn", body=[s], close=False)
    if headers.get("connection") != "close":
        run.fail("body rejected with 422", "Connection: %r, want close" % headers.get("connection"))
    _, _, body = run.expect("error_page: $utf8_check_result survives the redirect",
                            ports["all"], b"/error-page/" + pct(s), 400, part="uri",
                            data=b"/error-page/" + s)
    if body != b"rejected by utf8_check\n":
        run.fail("error_page", "body %r" % body)
    # Defaults: status 400, level error, parts uri args headers (not the body).
    run.expect("defaults: URI", ports["default"], b"/d/" + pct(s), 400, part="uri",
               data=b"/d/" + s)
    run.expect("defaults: header", ports["default"], b"/d/", 400, part="header",
               data=s, headers=[(b"X-Test", s)])
    run.expect("defaults: body not checked", ports["default"], b"/d/", 200, result="ok",
               body=[s])
    seen = len(run.nginx.backend.seen)
    for where_name, part, where, request, part_bytes in placements(b"\xed\xa0\x80"):
        path, kw = request(b"/proxy/")
        run.expect("proxied: %s" % where_name, ports["all"], path, 400, part=part,
                   data=part_bytes(b"/proxy/"), where=where, **kw)
    if run.nginx.backend.seen[seen:]:
        run.fail("proxied", "the backend saw rejected requests: %r" % run.nginx.backend.seen[seen:])


def curl_h2(port, path, headers=(), body=None, content_length=True):
    """One HTTP/2 request with curl (prior knowledge, no TLS); (status, {}, body)."""
    argv = ["curl", "-s", "--http2-prior-knowledge", "-o", "-", "-w", "\n%{http_code}",
            b"http://127.0.0.1:%d" % port + path]
    for name, value in headers:
        argv += ["-H", name + b": " + value]
    if body is not None:
        argv += ["--data-binary", "@-", "-H", "Content-Type:"]
        if not content_length:
            argv += ["-H", "Content-Length:"]
    out = subprocess.run(argv, input=b"".join(body or []), stdout=subprocess.PIPE,
                         check=False).stdout
    answer, _, code = out.rpartition(b"\n")
    return int(code or 0), {}, answer


def test_http2(run, ports):
    """The same checks over HTTP/2 (curl --http2-prior-knowledge): URI, argument,
    header value, body with and without a length, a 3 MB body."""
    if shutil.which("curl") is None:
        if os.environ.get("CI") == "true":
            run.fail("HTTP/2", "curl is not installed (CI=true)")
        else:
            print("HTTP/2 tests skipped: curl is not installed")
        return
    port = ports["h2"]
    text = VALID_TEXT.encode()
    run.expect("HTTP/2: valid", port, b"/v/" + pct(text) + b"?a=" + pct(text), 200,
               headers=[(b"X-Text", text)], body=[text], send=curl_h2)
    for name, seq in (("overlong", b"\xc0\xaf"), ("surrogate", b"\xed\xa0\x80"),
                      ("above U+10FFFF", b"\xf4\x90\x80\x80"), ("truncated", b"\xe2\x82")):
        s = sample(seq)
        run.expect("HTTP/2: %s in the URI" % name, port, b"/t/" + pct(s), 400, part="uri",
                   data=b"/t/" + s, send=curl_h2)
        run.expect("HTTP/2: %s in an argument" % name, port, b"/t/?a=" + pct(s), 400,
                   part="args", data=b"a=" + s, where=("argument", 1), send=curl_h2)
        run.expect("HTTP/2: %s in a header value" % name, port, b"/t/", 400, part="header",
                   data=s, where=("header", "x-test"), headers=[(b"X-Test", s)], send=curl_h2)
        for length in (True, False):
            run.expect("HTTP/2: %s in the body, %s length" % (name, "with" if length else "without"),
                       port, b"/t/", 400, part="body", data=s, body=[s], content_length=length,
                       send=curl_h2)
    big = big_body(random.Random(2), 3 * 1024 * 1024) + b"\xf0\x80\x80\xaf"
    run.expect("HTTP/2: 3 MB body, error at its end", port, b"/t/", 400, part="body",
               data=big, body=[big], content_length=False, send=curl_h2)


def big_body(rng, size):
    """`size` bytes of well-formed UTF-8 text with 1- to 4-byte characters."""
    words = [c.encode() for c in "abc xyz\né€𝄞日本語ñ"]
    out = bytearray()
    while len(out) <= size:
        out += rng.choice(words)
    cut = size
    while cut and (out[cut] & 0xC0) == 0x80:
        cut -= 1
    return bytes(out[:cut])


def segments(rng, data, biggest):
    """data cut at random places (inside characters too) into pieces of 1..biggest."""
    pieces, i = [], 0
    while i < len(data):
        n = rng.randint(1, biggest)
        pieces.append(data[i:i + n])
        i += n
    return pieces


def test_big_bodies(run, ports):
    """A 10 MB body with the error after 10 MB, in many TCP segments and in many
    chunks; a valid 10 MB body reaches the upstream intact; worker memory stays
    bounded."""
    rng = random.Random(3629)
    valid = big_body(rng, 10 * 1024 * 1024 + rng.randint(1, 16383))
    invalid = valid + b"\xed\xa0\x80 after the surrogate"
    rss_before = run.nginx.worker_rss_kb()
    for chunked in (False, True):
        how = "chunked" if chunked else "Content-Length"
        pieces = segments(rng, invalid, 16384)
        run.expect("10 MB body, error after 10 MB, %d pieces, %s" % (len(pieces), how),
                   ports["all"], b"/proxy/big", 400, part="body", data=invalid,
                   body=pieces, chunked=chunked)
        seen = len(run.nginx.backend.seen)
        pieces = segments(rng, valid, 16384)
        run.expect("10 MB valid body, %d pieces, %s, proxied" % (len(pieces), how),
                   ports["all"], b"/proxy/big", 200, body=pieces, chunked=chunked)
        got = run.nginx.backend.seen[seen:]
        if got != [("/proxy/big", hashlib.sha256(valid).hexdigest(), len(valid))]:
            run.fail("10 MB valid body, %s" % how, "backend saw %r" % [g[1:] for g in got])
    rss_after = run.nginx.worker_rss_kb()
    print("worker RSS around 40 MB of bodies: %d kB -> %d kB" % (rss_before, rss_after))
    if rss_after - rss_before > 4096:
        run.fail("bounded memory", "worker RSS grew by %d kB" % (rss_after - rss_before))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", required=True)
    ap.add_argument("--nginx", default="/usr/sbin/nginx")
    ap.add_argument("--workdir")
    args = ap.parse_args()

    work = args.workdir or tempfile.mkdtemp(prefix="utf8-check-nginx.")
    start = time.time()
    nginx = None
    backend = None
    try:
        ports = {k: free_port() for k in ("all", "default", "unset", "backend", "h2")}
        backend = Backend(ports["backend"])
        threading.Thread(target=backend.serve_forever, daemon=True).start()
        nginx = Nginx(args.nginx, os.path.abspath(args.module), work, ports)
        nginx.backend = backend
        run = Run(nginx)
        for test in (test_valid, test_cases, test_percent_rules, test_random_arguments,
                     test_directives, test_http2, test_big_bodies):
            t = time.time()
            before = run.count
            test(run, ports)
            print("%-20s %4d requests, %.1f s" % (test.__name__, run.count - before,
                                                  time.time() - t))
    finally:
        if nginx:
            nginx.stop()
        if backend:
            backend.shutdown()
    with open(nginx.error_log, "rb") as f:
        log = f.read()
    try:
        log.decode("utf-8")
    except UnicodeDecodeError as e:
        run.fail("error log", "not valid UTF-8 at byte %d" % e.start)
    for bad in (b"exited on signal", b"[alert]", b"[crit]", b"[emerg]"):
        if bad in log:
            run.fail("error log", "contains %r" % bad)
    print("%d requests in %.1f s; %d failures" % (run.count, time.time() - start,
                                                  len(run.failures)))
    if run.failures:
        print("work directory kept: %s" % work)
        return 1
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
