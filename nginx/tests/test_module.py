#!/usr/bin/env python3
"""Functional tests of ngx_http_utf8_check_module in a real nginx on 127.0.0.1.

Starts its own nginx (own prefix, configuration, pid and log files, free loopback
ports) with the module, and a small HTTP backend for proxy_pass, sends requests
through raw sockets so that ill-formed bytes go out as they are, and checks each
answer, error-log line and access-log line against utf8_oracle (the RFC 3629
grammar, cross-checked with Python's decoder), never against the module itself.

Usage: test_module.py --module objs/ngx_http_utf8_check_module.so
                      [--nginx /usr/sbin/nginx] [--workdir DIR] [--only TEST,...]
"""

import argparse
import hashlib
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nginx_process import NginxProcess, free_port, user_directive  # noqa: E402
from server_cases import (  # noqa: E402
    VALID_TEXT, Backend, LogReaders, RunBase, curl_h2, pct, placements, sample, segments,
    test_cases, test_percent_rules, test_random_arguments)
from utf8_oracle import decode_rendering, first_error  # noqa: E402

# --- nginx -------------------------------------------------------------------------------

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

        # Small body buffers, so that a body takes many: nginx passes each read
        # (at most one buffer) to the request body filters, then writes the full
        # buffer to a temporary file in client_body_temp_path and reuses it. 8k is
        # the default on x86-64.
        location /buf1/ {{ client_body_buffer_size 1; proxy_pass {backend}; }}
        location /buf16/ {{ client_body_buffer_size 16; proxy_pass {backend}; }}
        location /buf100/ {{ client_body_buffer_size 100; proxy_pass {backend}; }}
        location /buf1k/ {{ client_body_buffer_size 1k; proxy_pass {backend}; }}
        location /buf8k/ {{ client_body_buffer_size 8k; proxy_pass {backend}; }}
        # Every body in a file, kept (on): the answer names it.
        location /file-only/ {{
            client_body_buffer_size 1k;
            client_body_in_file_only on;
            return 200 "$request_body_file";
        }}
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
        location /buf1k/ {{ client_body_buffer_size 1k; return 200 "ok\n"; }}
    }}

    # The module loaded, utf8_check not set (off).
    server {{
        listen 127.0.0.1:{port_unset};
        ignore_invalid_headers off;
        location / {{ return 200 "ok\\n"; }}
    }}
}}
"""


class Nginx(LogReaders, NginxProcess):
    """The nginx under test, with the log readers the checks need."""

    def __init__(self, binary, module, work, ports):
        self.ports = ports
        conf = NGINX_CONF.format(
            module=module, work=work, user=user_directive(),
            port_all=ports["all"], port_default=ports["default"],
            port_unset=ports["unset"], port_backend=ports["backend"],
            port_h2=ports["h2"], backend="http://127.0.0.1:%d" % ports["backend"])
        self.access_log = os.path.join(work, "access.log")
        os.makedirs(work, exist_ok=True)
        open(self.access_log, "wb").close()
        super().__init__(binary, work, conf, ports["all"])
        self.start_log_readers()


# nginx's client_header_buffer_size (its default, 1k): its first read of a connection
# takes at most this many bytes. exchange(pad=size) pads the head with an X-Pad header
# line to exactly `size` bytes. With the head and body sent together, nginx's first
# read of the connection takes HEAD_SIZE bytes: the head and the first HEAD_SIZE - size
# bytes of the body (the preread part, which nginx passes to the body filters first).
# With size HEAD_SIZE nothing of the body is preread, so the body fills nginx's body
# buffer from its first byte: with client_body_buffer_size B, buffer k holds bytes
# k*B .. (k+1)*B - 1 of the body (for a body of at least B + B/4 bytes; a smaller one
# gets one buffer of its size). With a preread part of P bytes, buffer k holds bytes
# P + k*B .. P + (k+1)*B - 1.
HEAD_SIZE = 1024


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

class Run(RunBase):
    SERVER = "nginx"
    OFF = "utf8_check off"
    UNSET = "utf8_check not set"
    RANDOM_QUERIES = 300
    LINE_RE = LINE_RE

    def __init__(self, nginx):
        super().__init__(nginx)
        self.nginx = nginx

    def logged_level(self, level):
        return "warn" if level == "warn" else "error"

    def check_window(self, what, m, data, offset, length):
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
    run.expect("valid: empty chunked body", ports["all"], b"/", 200, body=[], chunked=True)
    seen = len(run.nginx.backend.seen)
    run.expect("valid: proxied", ports["all"], b"/proxy/" + pct(text), 200, headers=headers,
               body=body)
    if run.nginx.backend.seen[seen:] != [("/proxy/" + pct(text).decode(),
                                         hashlib.sha256(text).hexdigest(), len(text))]:
        run.fail("valid: proxied", "backend saw %r" % run.nginx.backend.seen[seen:])


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


# --- bodies in pieces: nginx's buffers, temporary files, TCP segments, chunks ------------

# One ill-formed sequence of each kind, at most 4 bytes, so that a buffer boundary can
# fall after each of its bytes ...
BODY_SEQS = [
    ("stray continuation 80", b"\x80"),
    ("lead C0", b"\xc0\xaf"),
    ("lead C1", b"\xc1\xbf"),
    ("lead F5", b"\xf5\x80\x80\x80"),
    ("byte FF", b"\xff"),
    ("overlong E0 80 AF", b"\xe0\x80\xaf"),
    ("overlong F0 80 80 AF", b"\xf0\x80\x80\xaf"),
    ("surrogate ED A0 80", b"\xed\xa0\x80"),
    ("above U+10FFFF F4 90 80 80", b"\xf4\x90\x80\x80"),
    ("missing continuation E2 82 41", b"\xe2\x82\x41"),
]
# ... and two sequences cut short, which end the body.
BODY_TRUNCATED = [
    ("truncated E2 82", b"\xe2\x82"),
    ("truncated F0 9F 98", b"\xf0\x9f\x98"),
]

# The locations of the "all" server with small body buffers, their
# client_body_buffer_size, and at how many buffer boundaries test_body_buffers puts
# errors.
BUFFERS = [(b"/buf1/", 1, 4), (b"/buf16/", 16, 4), (b"/buf100/", 100, 4),
           (b"/buf1k/", 1024, 4), (b"/buf8k/", 8192, 2)]
SPILLED = b"a client request body is buffered to a temporary file"
TEXT_CHARS = [c.encode() for c in "a \né€日𝄞😀ñ"]


_TEXT = []


def text(rng, n):
    """Exactly n bytes of well-formed UTF-8, mostly 2- to 4-byte characters: pieces
    of a random text of 24k characters (about 64 kB), each from a random character
    on and cut at a character boundary, and "a"s for the last few bytes."""
    if not _TEXT:
        gen = random.Random(64)
        _TEXT.append(b"".join(gen.choice(TEXT_CHARS) for _ in range(24 * 1024)))
    base = _TEXT[0]
    out = b""
    while len(out) < n:
        start = rng.randrange(len(base) - 4)
        while (base[start] & 0xC0) == 0x80:
            start += 1
        end = min(start + n - len(out), len(base))
        while end < len(base) and (base[end] & 0xC0) == 0x80:
            end -= 1
        out += base[start:end]
        if end - start < 4:
            out += b"a" * (n - len(out))
    return out


def with_error(rng, seq, offset, size):
    """size bytes: well-formed text, seq at offset, well-formed text. Its first error
    must be at offset (else the test data is wrong): the text before it decodes, and
    the oracle finds an error at the start of what follows."""
    body = text(rng, offset) + seq + text(rng, size - offset - len(seq))
    body[:offset].decode("utf-8")
    got = first_error(body[offset:offset + len(seq) + 4])
    if not got or got[0] != 0 or len(body) != size:
        raise AssertionError("test data: %r at %d of %d: %r" % (seq, offset, size, got))
    return body


def detected_at(body, offset):
    """The index of the byte at which a reader of `body` from its start knows that it
    is ill-formed, its first error being at offset: the first byte that no
    well-formed continuation of the bytes before it can have (per the oracle), or
    len(body) when the body is cut short."""
    for j in range(offset, min(offset + 4, len(body))):
        got = first_error(body[offset:j + 1])
        if got and got[2] != "truncated":
            return j
    return len(body)


def spills(size, buffer_size):
    """Whether nginx writes a body of `size` bytes (Content-Length, nothing of it read
    with the head) to a temporary file: its buffer is the body's size below
    B + B/4, else B, and a full buffer is written when more of the body follows."""
    return size > buffer_size and size >= buffer_size + (buffer_size >> 2)


def splits(seq):
    """Every way to cut seq into consecutive non-empty parts."""
    n = len(seq)
    for mask in range(1 << (n - 1)):
        parts, start = [], 0
        for i in range(1, n):
            if mask >> (i - 1) & 1:
                parts.append(seq[start:i])
                start = i
        parts.append(seq[start:])
        yield parts


class Expected:
    """What the backend must have received, in order, since a test began."""

    def __init__(self, run):
        self.run = run
        self.seen = len(run.nginx.backend.seen)
        self.want = []

    def add(self, path, body):
        self.want.append((path.decode(), hashlib.sha256(body).hexdigest(), len(body)))

    def check(self, what):
        got = self.run.nginx.backend.seen[self.seen:]
        if got != self.want:
            bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, self.want)) if g != w]
            self.run.fail(what, "backend saw %d bodies, want %d; first differences %r"
                          % (len(got), len(self.want), bad[:3]))
        self.seen = len(self.run.nginx.backend.seen)
        self.want = []


def expect_spill(run, what, want):
    """Whether nginx logged (at warn) that it buffered the body to a file."""
    got = any(SPILLED in line for line in run.last_lines)
    if got != want:
        run.fail(what, "nginx %s the body to a temporary file, want %s"
                 % ("wrote" if got else "did not write", "written" if want else "not"))


def buffer_matrix(run, port, location, size_b, starts, size, pad, rng, expected):
    """The requests of test_body_buffers for one location (client_body_buffer_size
    size_b) and one layout: the head padded to `pad` bytes and sent with the body, so
    that nginx's reads, and so the pieces its body filters get, start at the body
    offsets `starts` (the start of the body, of the preread part, of each buffer)."""
    preread = HEAD_SIZE - pad
    offsets = sorted({start + d for start in starts for d in range(-4, 5)
                      if start + d >= 0})
    placements = [(name, seq, offset, size) for name, seq in BODY_SEQS
                  for offset in offsets]
    placements += [(name, seq, size - len(seq) - e, size) for name, seq in BODY_SEQS
                   for e in range(4)]
    ends = sorted({start + d for start in starts for d in range(-4, 5)} | {size})
    placements += [(name, seq, end - len(seq), end) for name, seq in BODY_TRUNCATED
                   for end in ends if end >= len(seq)]
    how = "B=%d%s" % (size_b, ", %d bytes preread" % preread if preread else "")
    for name, seq, offset, total in placements:
        body = with_error(rng, seq, offset, total)
        what = "%s: %s at %d of a %d-byte body" % (how, name, offset, total)
        run.expect(what, port, location + b"e", 400, part="body", data=body,
                   body=[body], pad=pad, together=True)
        # nginx writes its first buffer to the file when the byte that shows the
        # error comes later.
        expect_spill(run, what, total > preread and spills(total - preread, size_b)
                     and detected_at(body, offset) >= preread + size_b)
    # Well-formed: a character straddling each boundary (at start - s), and bodies of
    # each size above ending in a 4-byte character.
    valid = []
    if size_b >= 16:
        for ch in "é€𝄞":
            ch = ch.encode()
            for s in range(len(ch) + 1):
                body = b""
                for start in starts[1:]:
                    body += text(rng, start - s - len(body)) + ch
                valid.append(body + text(rng, size - len(body)))
    valid += [text(rng, n - 4) + "𝄞".encode() if n >= 4 else text(rng, n)
              for n in ends if n > 0]
    for body in valid:
        what = "%s: well-formed %d-byte body" % (how, len(body))
        run.expect(what, port, location + b"v", 200, body=[body], pad=pad,
                   together=True)
        expected.add(location + b"v", body)
        expect_spill(run, what, len(body) > preread
                     and spills(len(body) - preread, size_b))
    expected.check("%s: bodies at the backend" % how)


def test_body_buffers(run, ports):
    """Bodies of several buffers with client_body_buffer_size B = 1, 16, 100, 1k and 8k
    (nginx passes what it reads into a buffer to the body filters, and writes each
    full buffer to a temporary file before it reuses it): each kind of ill-formed
    sequence at offsets k*B-4 .. k*B+4 of the body for k = 0..4 (0..2 for 8k), that
    is in the first and last bytes of the body's first buffers and straddling their
    boundaries, in the last 1-4 bytes of the body, and a sequence cut short by the
    end of a body of k*B-4 .. k*B+4 bytes. The same with 301 bytes of the body read
    with the head (nginx's header buffer): at P-4 .. P+4 and P+k*B-4 .. P+k*B+4 for
    P = 301, k = 1, 2. Each is rejected with its exact line, and nginx has written the
    body to a file exactly when the error shows after the first buffer; no byte of it
    reaches the backend, and no temporary file stays. Well-formed bodies of those
    sizes, with characters straddling each boundary, reach the backend byte-exact."""
    port = ports["all"]
    rng = random.Random(1024)
    expected = Expected(run)
    preread = 301
    for location, size_b, boundaries in BUFFERS:
        t, count = time.time(), run.count
        room = max(size_b // 2, 72)  # after the last boundary
        buffer_matrix(run, port, location, size_b,
                      [k * size_b for k in range(boundaries + 1)],
                      boundaries * size_b + room, HEAD_SIZE, rng, expected)
        if 16 <= size_b <= 1024:
            buffer_matrix(run, port, location, size_b,
                          [0, preread, preread + size_b, preread + 2 * size_b],
                          preread + 2 * size_b + room, HEAD_SIZE - preread, rng,
                          expected)
        print("  B=%-5d %4d requests, %.1f s" % (size_b, run.count - count, time.time() - t))
    # The temporary files of rejected bodies are gone as well.
    left = os.listdir(os.path.join(run.nginx.work, "client_body"))
    if left:
        run.fail("temporary files", "left in client_body: %r" % left[:5])


def test_body_spilled(run, ports):
    """Bodies that nginx writes to a temporary file: with client_body_in_file_only on
    (every body in a file, named by $request_body_file), a well-formed body of each
    size around the buffer's is in the file byte-exact, and an ill-formed sequence in
    the last bytes, straddling the boundaries of what nginx wrote, or cut short at
    the end, is rejected; 256 kB bodies through 8k buffers (32 writes), each kind of
    error in their last bytes, rejected, and the well-formed one byte-exact at the
    backend."""
    port = ports["all"]
    rng = random.Random(3629)
    expected = Expected(run)
    size_b = 1024
    for n in (1, 2, 4, size_b - 1, size_b, size_b + 1, size_b + size_b // 4,
              3 * size_b - 1, 3 * size_b, 3 * size_b + 3):
        body = text(rng, n - 4) + "😀".encode() if n >= 4 else text(rng, n)
        what = "in file only: well-formed %d-byte body" % n
        status, _, name = run.expect(what, port, b"/file-only/v", 200, body=[body],
                                     pad=HEAD_SIZE, together=True)
        if status == 200:
            try:
                with open(name.decode(), "rb") as f:
                    stored = f.read()
            except OSError as e:
                run.fail(what, "cannot read $request_body_file %r: %s" % (name, e))
            else:
                if stored != body:
                    run.fail(what, "the file holds %d other bytes" % len(stored))
    size = 3 * size_b + 700
    for name, seq in BODY_SEQS:
        for offset in [size - len(seq) - e for e in range(4)] + list(
                range(2 * size_b - 4, 2 * size_b + 1)):
            body = with_error(rng, seq, offset, size)
            run.expect("in file only: %s at %d of %d" % (name, offset, size), port,
                       b"/file-only/e", 400, part="body", data=body, body=[body],
                       pad=HEAD_SIZE, together=True)
    for name, seq in BODY_TRUNCATED:
        for end in (size, 3 * size_b - 1, 3 * size_b, 3 * size_b + 1):
            body = with_error(rng, seq, end - len(seq), end)
            run.expect("in file only: %s at the end of %d" % (name, end), port,
                       b"/file-only/e", 400, part="body", data=body, body=[body],
                       pad=HEAD_SIZE, together=True)
    big = 256 * 1024 + 5
    for name, seq in BODY_SEQS + BODY_TRUNCATED:
        body = with_error(rng, seq, big - len(seq), big)
        what = "256 kB body through 8k buffers, %s in its last bytes" % name
        run.expect(what, port, b"/buf8k/big", 400, part="body", data=body, body=[body],
                   pad=HEAD_SIZE)
        expect_spill(run, what, True)
    body = text(rng, big)
    what = "256 kB well-formed body through 8k buffers"
    run.expect(what, port, b"/buf8k/big", 200, body=[body], pad=HEAD_SIZE)
    expect_spill(run, what, True)
    expected.add(b"/buf8k/big", body)
    expected.check("256 kB bodies at the backend")


def test_body_pieces(run, ports):
    """Bodies in TCP segments (TCP_NODELAY, a pause after each piece that must be
    read on its own) and in chunks: each ill-formed sequence cut every way into
    pieces, with Content-Length (the head read alone, or with the text before the
    sequence), chunked (chunks read one at a time, chunks read together, which nginx
    joins into one buffer, and 1-byte reads); whole bodies in 1-byte pieces; pieces
    of random sizes up to 2, 5, 16 and 100 bytes. Well-formed characters cut every
    way reach the backend byte-exact."""
    port = ports["all"]
    rng = random.Random(2279)
    pause = 0.002
    expected = Expected(run)
    for name, seq in BODY_SEQS + BODY_TRUNCATED:
        cut_short = (name, seq) in BODY_TRUNCATED
        prefix = text(rng, 70)
        suffix = b"" if cut_short else text(rng, 70)
        body = prefix + seq + suffix
        for parts in splits(seq):
            pieces = [prefix] + parts + ([suffix] if suffix else [])
            how = "%s cut %s" % (name, "|".join(p.hex(" ") for p in parts))
            # The head read alone (nginx then reads the body into a buffer of its
            # size), and with the text before the sequence (nginx then reads the rest
            # into the free end of its header buffer).
            run.expect("TCP segments, head alone: " + how, port, b"/t/", 400,
                       part="body", data=body, body=pieces, pause=pause)
            run.expect("TCP segments, the text with the head: " + how, port, b"/t/", 400,
                       part="body", data=body, body=pieces, pause=pause, together=1)
            run.expect("chunks, read one by one: " + how, port, b"/t/", 400, part="body",
                       data=body, body=pieces, chunked=True, pause=pause)
            run.expect("chunks, read together: " + how, port, b"/t/", 400, part="body",
                       data=body, body=pieces, chunked=True, together=True)
            # Nothing read with the head, then one byte at a time (a 1-byte buffer,
            # written to a file each time it is full).
            what = "chunks, 1-byte reads: " + how
            run.expect(what, port, b"/buf1/", 400, part="body", data=body, body=pieces,
                       chunked=True, pad=HEAD_SIZE, together=True)
            expect_spill(run, what, True)
        # The whole body in 1-byte pieces, each read on its own around the sequence.
        ones = [body[i:i + 1] for i in range(len(body))]
        near = set(range(len(prefix) - 8, len(prefix) + len(seq) + 8))
        for chunked in (False, True):
            how = "%s, 1-byte %s" % (name, "chunks" if chunked else "TCP segments")
            run.expect(how, port, b"/t/", 400, part="body", data=body, body=ones,
                       chunked=chunked, pause=pause, paced=near)
        # Random piece sizes in a longer body.
        for biggest in (2, 5, 16, 100):
            offset = rng.randint(100, 500)
            total = offset + len(seq) + (0 if cut_short else rng.randint(1, 300))
            body = with_error(rng, seq, offset, total)
            pieces = segments(rng, body, biggest)
            # nginx reads the pieces that end near the sequence one at a time.
            near, at = set(), 0
            for i, piece in enumerate(pieces):
                at += len(piece)
                if offset - 16 <= at <= offset + len(seq) + 16:
                    near.add(i)
            for chunked in (False, True):
                how = "%s at %d of %d in pieces of 1-%d bytes, %s" % (
                    name, offset, total, biggest, "chunked" if chunked else "Content-Length")
                run.expect(how, port, b"/t/", 400, part="body", data=body, body=pieces,
                           chunked=chunked, pause=pause, paced=near)
    for ch in "é€𝄞":
        ch = ch.encode()
        prefix, suffix = text(rng, 70), text(rng, 70)
        for parts in splits(ch):
            body = prefix + ch + suffix
            for chunked in (False, True):
                what = "well-formed %s cut %s, %s" % (
                    ch.hex(" "), "|".join(p.hex(" ") for p in parts),
                    "chunked" if chunked else "Content-Length")
                run.expect(what, port, b"/proxy/pieces", 200,
                           body=[prefix] + parts + [suffix], chunked=chunked, pause=pause)
                expected.add(b"/proxy/pieces", body)
    body = text(rng, 300)
    for chunked in (False, True):
        run.expect("well-formed body in 1-byte pieces, %s" % ("chunked" if chunked
                                                              else "Content-Length"),
                   port, b"/proxy/pieces", 200, chunked=chunked,
                   body=[body[i:i + 1] for i in range(len(body))])
        expected.add(b"/proxy/pieces", body)
    expected.check("well-formed pieces at the backend")


def test_body_http2_buffers(run, ports):
    """HTTP/2 (curl) with client_body_buffer_size 1k: each ill-formed sequence
    straddling the boundary of the second and third buffer and in the last bytes,
    with and without a length, and the sequences cut short at the end, rejected after
    nginx wrote the first buffers to a file; a well-formed body passes."""
    if shutil.which("curl") is None:
        return  # test_http2 reports it
    port = ports["h2"]
    rng = random.Random(7540)
    size_b, size = 1024, 3 * 1024 + 512
    cases = [(name, seq, offset, length) for name, seq in BODY_SEQS
             for offset in (2 * size_b - len(seq) + 1, size - len(seq))
             for length in (True, False)]
    cases += [(name, seq, size - len(seq), True) for name, seq in BODY_TRUNCATED]
    for name, seq, offset, length in cases:
        body = with_error(rng, seq, offset, size)
        what = "HTTP/2, B=1k: %s at %d of %d, %s length" % (
            name, offset, size, "with" if length else "without")
        run.expect(what, port, b"/buf1k/", 400, part="body", data=body, body=[body],
                   content_length=length, send=curl_h2)
        expect_spill(run, what, True)
    run.expect("HTTP/2, B=1k: well-formed", port, b"/buf1k/", 200,
               body=[text(rng, size)], send=curl_h2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", required=True)
    ap.add_argument("--nginx", default="/usr/sbin/nginx")
    ap.add_argument("--workdir")
    ap.add_argument("--only", metavar="TEST,...",
                    help="run only these test functions (names without test_)")
    args = ap.parse_args()
    tests = (test_valid, test_cases, test_percent_rules, test_random_arguments,
             test_directives, test_http2, test_big_bodies, test_body_buffers,
             test_body_spilled, test_body_pieces, test_body_http2_buffers)
    if args.only:
        names = {"test_" + name for name in args.only.split(",")}
        unknown = names - {test.__name__ for test in tests}
        if unknown:
            ap.error("no such test: %s" % ", ".join(sorted(unknown)))
        tests = [test for test in tests if test.__name__ in names]

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
        for test in tests:
            t = time.time()
            before = run.count
            test(run, ports)
            print("%-23s %4d requests, %.1f s" % (test.__name__, run.count - before,
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
