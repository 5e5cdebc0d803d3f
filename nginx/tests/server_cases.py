"""What the tests and load scripts of both server modules share: the nginx module's
(nginx/tests/test_module.py, nginx/load/load.py) and the Apache httpd module's
(apache/tests/test_module.py, apache/load/load.py), which import this file by path,
as they import utf8_oracle.py.

  - the ill-formed sequences, their placements in each part of a request, percent
    encoding and the modules' percent-decoding rule, random queries;
  - raw HTTP/1.1 requests over a socket (build, exchange), HTTP/2 with curl;
  - the proxy backend that records what reaches it;
  - the checks' bookkeeping (RunBase), the log readers, the test bodies both suites
    run alike (percent rules, random arguments, each case in each part);
  - the server's processes: free ports, children by parent pid, their memory and CPU
    time, waiting for a start and stopping;
  - wrk: its command line (nginx/load/requests.lua), its output, the bench's rounds and
    ratios, the soak's runs and verdict, the CPU model.

What differs between the servers (configuration, log-line formats: Apache escapes its
error log; MPMs; nginx's body buffers) stays in each suite.
"""

import hashlib
import http.server
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time

from utf8_oracle import check_against_python

HERE = os.path.dirname(os.path.abspath(__file__))

# --- the ill-formed sequences ------------------------------------------------------------

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
    """The modules' documented rule: %XX with two hex digits is a byte; "+" and any
    other "%" stay as they are."""
    return re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), data)


def placements(seq):
    """(name, part, where, request, the part's bytes) for one ill-formed sequence in
    each part, for the location prefix given later: request(prefix) is (path, request
    keywords)."""
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


# Where each part is not among the parts checked (both configurations have these
# locations).
OTHER_LOCATION = {"uri": b"/only-args/", "args": b"/only-headers/",
                  "header": b"/only-body/", "header-name": b"/only-body/",
                  "body": b"/only-uri/"}


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


def segments(rng, data, biggest):
    """data cut at random places (inside characters too) into pieces of 1..biggest."""
    pieces, i = [], 0
    while i < len(data):
        n = rng.randint(1, biggest)
        pieces.append(data[i:i + n])
        i += n
    return pieces


# --- the backend ---------------------------------------------------------------------------

class Backend(http.server.ThreadingHTTPServer):
    """The server behind /proxy/: records (path, sha256 of the body, its length) of
    what reaches it in `seen`, and answers "backend\\n", or the body with echo."""

    daemon_threads = True

    def __init__(self, port, echo=False):
        self.seen = []
        self.echo = echo
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", port), BackendHandler)

    def start(self):
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self


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
        except ValueError:  # a chunked body cut off: the server dropped the connection
            with self.server.lock:
                self.server.seen.append((self.path, "cut off", -1))
            return
        with self.server.lock:
            self.server.seen.append((self.path, hashlib.sha256(body).hexdigest(), len(body)))
        out = body if self.server.echo else b"backend\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = do_PUT = do_any

    def log_message(self, *args):
        pass


# --- requests ------------------------------------------------------------------------------

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


def pad_head(path, kw, size):
    """The request keywords with an X-Pad header line that makes the head exactly
    `size` bytes (nginx's tests: see HEAD_SIZE there)."""
    head, _ = build(path, **kw)
    need = size - len(head) - len(b"X-Pad: \r\n")
    assert need >= 1, "head too long to pad: %d bytes" % len(head)
    kw = dict(kw, headers=list(kw.get("headers", ())) + [(b"X-Pad", b"p" * need)])
    assert len(build(path, **kw)[0]) == size
    return kw


def exchange(port, path, pad=None, pause=0.0, paced=None, together=0, **kw):
    """Sends one request (each body piece in its own send, TCP_NODELAY) and returns
    (status, headers, body) of the answer, read to the end of the connection.
    pad: the size to pad the head to (see pad_head). together: how many body pieces
    go in the head's send (True: all of them). pause: seconds to wait after each
    send of the pieces whose indexes are in `paced` (-1 is the head's send; None:
    after every send), so that the server reads that send on its own."""
    if pad:
        kw = pad_head(path, kw, pad)
    head, pieces = build(path, **kw)
    n = len(pieces) if together is True else together
    sends = [(-1, head + b"".join(pieces[:n]))] + list(enumerate(pieces))[n:]
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        for i, data in sends:
            s.sendall(data)
            if pause and (paced is None or i in paced):
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


def curl_h2(port, path, headers=(), body=None, content_length=True):
    """One HTTP/2 request (h2c with prior knowledge) with curl: (status, {}, body);
    status 0 when curl did not speak HTTP/2. body: bytes or a list of pieces."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        argv = [b"curl", b"-sS", b"--http2-prior-knowledge", b"--path-as-is", b"-o",
                out.encode(), b"-w", b"%{http_code} %{http_version}"]
        for name, value in headers:
            argv += [b"-H", name + b": " + value]
        if body is not None:
            data = os.path.join(tmp, "body")
            with open(data, "wb") as f:
                f.write(body if isinstance(body, bytes) else b"".join(body))
            argv += [b"--data-binary", b"@" + data.encode(), b"-H", b"Content-Type:"]
            if not content_length:
                argv += [b"-H", b"Content-Length:"]
        argv.append(b"http://127.0.0.1:%d" % port + path)
        run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        code, _, version = run.stdout.decode().partition(" ")
        if version != "2":
            return 0, {}, run.stderr
        with open(out, "rb") as f:
            return int(code), {}, f.read()


# --- the checks ------------------------------------------------------------------------------

class LogReaders:
    """The readers of the server's error log (self.error_log) and access log
    (self.access_log, one line a request); call start_log_readers() once the server
    runs."""

    def start_log_readers(self):
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
        """The access-log line of the request just answered (the server writes it
        after the response, so wait for it)."""
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


class RunBase:
    """The requests of a run and their failures. A suite's Run gives SERVER (its name
    in messages), OFF and UNSET (test_cases), RANDOM_QUERIES (test_random_arguments),
    other_line(line, part) (whether an error-log line that is not the module's is a
    failure), check_line's hooks (see there) and check_window(what, m, data, offset,
    length); `server` has new_error_lines() and next_access_line()."""

    SERVER = "the server"
    OFF = "the module off"
    UNSET = "the module not set"
    RANDOM_QUERIES = 200

    def __init__(self, server):
        self.server = server
        self.count = 0
        self.failures = []
        self.last_lines = []

    def fail(self, what, detail):
        self.failures.append("%s: %s" % (what, detail))
        print("FAIL: %s: %s" % (what, detail))

    def other_line(self, line, part):
        return re.search(rb"\[(error|crit|alert|emerg)\]", line) is not None

    def status_detail(self, got, want, body):
        return "status %d, want %d" % (got, want)

    def expect(self, what, port, path, status, part=None, data=None, where=None,
               result=None, level="error", logged=True, **kw):
        """One request: its status; with `part`, exactly one rejection line (none
        when not `logged`) whose part, argument/header, offset, length and kind are
        the oracle's for `data` (the bytes of that part) and whose value is
        data[lo:hi] around the error; without `part`, no line. `result`: what the
        module's result variable must be in the access log ("-" when nothing was
        checked)."""
        self.count += 1
        send = kw.pop("send", exchange)
        got_status, headers, body = send(port, path, **kw)
        lines = self.server.new_error_lines()
        self.last_lines = lines
        access = self.server.next_access_line()
        if got_status != status:
            self.fail(what, self.status_detail(got_status, status, body))
        ours = [line for line in lines if b"utf8_check:" in line]
        others = [line for line in lines if b"utf8_check:" not in line
                  and self.other_line(line, part)]
        if others:
            self.fail(what, "%s logged %r" % (self.SERVER, others))
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

    # check_line's hooks: the error log's encoding (and its name in messages), the
    # line's pattern (named groups level, part, argument, position, header, offset,
    # length, kind, lo, hi, value), the level logged for a `level` asked for, the
    # value of an argument=/header=/position= field as the test names it, and the
    # check of the bytes=lo..hi window and its value.
    ENCODING = ("utf-8", "UTF-8")
    LINE_RE = None

    def logged_level(self, level):
        return level

    def where_value(self, key, logged):
        return logged

    def check_line(self, what, raw, part, data, want, where, level):
        """The rejection line `raw` against the oracle's (offset, length, kind) for
        `data`, the part `part`, the field `where` and the level `level`."""
        try:
            line = raw.decode(self.ENCODING[0])
        except UnicodeDecodeError:
            self.fail(what, "the log line is not %s: %r" % (self.ENCODING[1], raw))
            return
        m = self.LINE_RE.match(line)
        if not m:
            self.fail(what, "log line not in the documented format: %s" % line)
            return
        offset, length, kind = want
        got = (m["level"], m["part"], int(m["offset"]), int(m["length"]), m["kind"])
        if got != (self.logged_level(level), part, offset, length, kind):
            self.fail(what, "logged %r, want %r" % (got, (level, part, offset, length, kind)))
        if where is not None:
            key, value = where
            got_where = self.where_value(key, m[key])
            if got_where != str(value):
                self.fail(what, "%s=%r, want %r" % (key, got_where, value))
        self.check_window(what, m, data, offset, length)


def test_cases(run, ports):
    """Each error kind in each part: rejected with one exact log line; let through
    where the part is not listed, where the module is off (/off/) and where it is
    unset (ports["unset"]): run.OFF and run.UNSET name those in the messages."""
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
            run.expect(what + ", " + run.OFF, ports["all"], path, 200, result="-", **kw)
            path, kw = request(b"/unset/")
            run.expect(what + ", " + run.UNSET, ports["unset"], path, 200, result="-", **kw)


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


def test_random_arguments(run, ports):
    """Random queries (run.RANDOM_QUERIES of them): status, argument and offset as
    the oracle finds them in the arguments decoded by the documented rule."""
    rng = random.Random(3986)
    for i in range(run.RANDOM_QUERIES):
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

# --- the server's processes ------------------------------------------------------------

def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children_of(parent):
    """The pids of the processes whose parent is `parent`, sorted."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                pids.append(int(entry))
    return sorted(pids)


def rss_kb(pids):
    """The resident set size of the processes together, in kB (those gone count 0)."""
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def cpu_seconds(pids):
    """User plus system CPU time of the processes so far, in seconds."""
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


class ServerProcess:
    """A server run in the foreground as a child process (self.proc), serving from
    child processes of its own (workers, children), stopped by its pid."""

    NAME = "the server"
    STOP_SIGNAL = signal.SIGTERM

    def wait_started(self, port, timeout):
        """Returns when the server accepts connections on 127.0.0.1:port and its
        children have started (the parent may listen before it forks them, so a
        connection alone does not tell); stops it and raises after `timeout` s."""
        deadline = time.time() + timeout
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                if self.child_pids():
                    return
            except OSError:
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("%s did not start; see %s" % (self.NAME, self.error_log))
            time.sleep(0.05)

    def stop(self):
        """STOP_SIGNAL to the parent (it stops its children), SIGKILL after 15 s."""
        if self.proc.poll() is None:
            self.proc.send_signal(self.STOP_SIGNAL)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def child_pids(self):
        return children_of(self.proc.pid)


# --- load with wrk -------------------------------------------------------------------------

LUA = os.path.join(HERE, "..", "load", "requests.lua")

# The benchmark's well-formed request as requests.lua sends it (a 200-byte query of
# ASCII and %-encoded UTF-8, header lines, one value not ASCII), for the callgrind
# counts of both servers (nginx/load/callgrind.sh, apache/load/callgrind.py).
BENCH_QUERY = ("?q=na%C3%AFve+caf%C3%A9+cr%C3%A8me&lang=fr&page=2&sort=desc&city=Z%C3%BCrich"
               "&tag=%E2%82%AC&emoji=%F0%9F%98%80&from=2024-01-01&to=2024-12-31"
               "&session=4f9c2a7e1b3d8c6a&ref=m%C3%BCnchen&x=y&z=1")
BENCH_QUERY += "a" * (200 - len(BENCH_QUERY))
BENCH_HEADERS = {"User-Agent": "wrk load.py", "Accept": "text/html,application/xhtml+xml",
                 "Accept-Language": "fr-CH, fr;q=0.9, en;q=0.8",
                 # http.client sends values as Latin-1: these are the UTF-8 bytes
                 "X-Display-Name": "J\u00fcrgen M\u00fcller".encode().decode("latin-1")}


def cpu_model():
    info = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "cpu family", "model") and key not in info:
                info[key] = value.strip()
    return "%s (family %s, model %s), %d logical CPUs" % (
        info.get("model name", "?"), info.get("cpu family", "?"), info.get("model", "?"),
        os.cpu_count())


def wrk_arguments(ap):
    """The command-line options of wrk's runs (argparse)."""
    ap.add_argument("--threads", type=int, default=1, help="wrk threads")
    ap.add_argument("--connections", type=int, default=32, help="wrk connections")
    ap.add_argument("--duration", type=int, default=5, help="bench: seconds per run")
    ap.add_argument("--rounds", type=int, default=5, help="bench: runs per configuration")


def in_workdir(args, prefix, bench, soak):
    """bench(args, work) or soak(args, work), as args.what says, in args.workdir or
    else in a temporary directory (named prefix...), removed after."""
    work = args.workdir or tempfile.mkdtemp(prefix=prefix)
    os.chmod(work, 0o755)  # Apache's children (User nobody) read the files below
    try:
        return bench(args, work) if args.what == "bench" else soak(args, work)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


def wrk_argv(args, port, mode, limit, duration):
    argv = ["wrk", "-t%d" % args.threads, "-c%d" % args.connections, "-d%ds" % duration,
            "-s", LUA, "http://127.0.0.1:%d/" % port, "--", mode, str(limit)]
    if args.wrk_cpus:
        argv = ["taskset", "-c", args.wrk_cpus] + argv
    return argv


def parse_wrk(out):
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    counts = re.search(r"^counts (\d+) (\d+) (\d+)$", out, re.M)
    return (float(rps.group(1)) if rps else 0.0, int(total.group(1)) if total else 0,
            tuple(int(x) for x in counts.groups()) if counts else None)


def bench_rounds(args, names, port_of, cpu_of, who):
    """args.rounds rounds of one wrk run of args.duration s (well-formed requests) per
    configuration; port_of(name) its port, cpu_of(name) the CPU seconds its server's
    `who` (worker, child) has used so far. Returns ({name: [requests/s]},
    {name: [CPU us/request]})."""
    results = {name: [] for name in names}
    cpu = {name: [] for name in names}
    for rnd in range(args.rounds):
        # every other round in reverse order, so that a drift of the machine's
        # speed during a round does not favour one configuration
        for name in (names if rnd % 2 == 0 else names[::-1]):
            cpu_before = cpu_of(name)
            run = subprocess.run(wrk_argv(args, port_of(name), "valid", 0, args.duration),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            out = run.stdout
            if run.returncode != 0:
                raise SystemExit("bench: wrk failed:\n" + out)
            rps, total, _ = parse_wrk(out)
            results[name].append(rps)
            used = cpu_of(name) - cpu_before
            cpu[name].append(1e6 * used / max(total, 1))
            print("round %d  %-14s %8.0f requests/s  %6.2f %s CPU us/request,"
                  " %s busy %3.0f%%" % (rnd + 1, name, rps, cpu[name][-1], who, who,
                                        100 * used / args.duration), flush=True)
    return results, cpu


def bench_report(args, names, results, cpu, who, setup, labels):
    """The bench's summary: the CPU, wrk's settings and `setup`, the medians, and the
    ratios; labels: (the module on, off, ModSecurity), as the server's directives
    name them."""
    on, off, modsec = labels
    median = {name: statistics.median(v) for name, v in results.items()}
    print("\nCPU: %s" % cpu_model())
    print("wrk -t%d -c%d, %d s per run, %d rounds; %s"
          % (args.threads, args.connections, args.duration, args.rounds, setup))
    print("median requests/s: " + ", ".join("%s %.0f" % (n, median[n]) for n in names))
    print("median %s CPU us/request: " % who + ", ".join(
        "%s %.2f" % (n, statistics.median(cpu[n])) for n in names))

    # Ratios within each round (the runs of a round are seconds apart), then their
    # median: the machine's speed changes more between rounds than within one.
    def ratio(a, b):
        rps = statistics.median(x / y for x, y in zip(results[a], results[b]))
        per_request = statistics.median(y / x for x, y in zip(cpu[a], cpu[b]))
        return "%.3f by requests/s, %.3f by %s CPU time per request" % (rps, per_request, who)

    print("%s / %s: " % (on, off) + ratio("on", "off"))
    if "modsecurity" in median:
        print("%s / %s: " % (modsec, off) + ratio("modsecurity", "off"))
        print("%s's engine without rules / %s: " % (modsec, off) + ratio("modsec-engine", "off"))
        print("%s / %s: " % (on, modsec) + ratio("on", "modsecurity"))


class Soak:
    """The soak's bookkeeping: args.requests requests ("mixed": every other one
    ill-formed) in `runs` wrk runs against `port`; served() is the server's count of
    requests so far (its status page), pids() its children now, rss() their memory in
    kB, `who` their name (worker, child) and `whom` its plural."""

    def __init__(self, args, port, served, pids, rss, who, whom, runs=10):
        self.args, self.port, self.served, self.pids, self.rss_now = args, port, served, pids, rss
        self.who, self.whom = who, whom
        self.runs = runs
        self.per_run = args.requests // runs
        self.rss = []
        self.failures = []
        self.totals = [0, 0, 0]
        self.start = time.time()

    def run(self):
        args, per_run = self.args, self.per_run
        children = self.pids()
        for k in range(self.runs):
            base = self.served()
            polls = 1
            wrk = subprocess.Popen(wrk_argv(args, self.port, "mixed",
                                            -(-per_run // args.threads), 600),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            deadline = time.time() + 300
            while self.served() - base - polls < per_run:
                polls += 1
                if wrk.poll() is not None or time.time() > deadline:
                    break
                time.sleep(0.1)
            wrk.send_signal(signal.SIGINT)
            out = wrk.communicate()[0]
            _, total, counts = parse_wrk(out)
            if counts is None:
                self.failures.append("run %d: no counts from wrk:\n%s" % (k + 1, out))
                break
            for i in range(3):
                self.totals[i] += counts[i]
            self.rss.append(self.rss_now(children))
            if self.pids() != children:
                self.failures.append("run %d: %s %s, were %s" % (k + 1, self.whom, self.pids(),
                                                                 children))
            print("run %2d: %6d responses (%d 2xx, %d 400, %d other), %s RSS %d kB, %.0f s"
                  % (k + 1, sum(counts), counts[0], counts[1], counts[2], self.who,
                     self.rss[-1], time.time() - self.start), flush=True)

    def verdict(self, log, bad_lines, log_path):
        """Prints the totals and the failures (responses, answers other than 2xx and
        400, half rejected, `bad_lines` in the server's log, memory growth);
        returns the exit status."""
        args, totals, failures = self.args, self.totals, self.failures
        done = sum(totals)
        print("\nCPU: %s" % cpu_model())
        print("%d responses in %.0f s: %d 2xx, %d 400, %d other"
              % (done, time.time() - self.start, totals[0], totals[1], totals[2]))
        if done < args.requests:
            failures.append("%d responses, want %d" % (done, args.requests))
        if totals[2]:
            failures.append("%d answers neither 2xx nor 400" % totals[2])
        if done and abs(totals[1] - done / 2) > self.runs * args.connections:
            failures.append("%d of %d rejected, want half" % (totals[1], done))
        for bad, why in bad_lines:
            if bad in log:
                # The lines themselves: the log is gone with the work directory.
                lines = [line.decode(errors="replace")
                         for line in log.splitlines() if bad in line]
                failures.append("%s (%s): %s" % (why, log_path, "; ".join(lines[:5])))
        if len(self.rss) == self.runs:
            growth = self.rss[-1] - self.rss[0]
            print("%s RSS after the first %d requests %d kB, after the last %d kB (%+d kB)"
                  % (self.who, self.per_run, self.rss[0], self.rss[-1], growth))
            if growth > args.rss_slack_kb:
                failures.append("%s RSS grew by %d kB (allowed %d)"
                                % (self.who, growth, args.rss_slack_kb))
        for f in failures:
            print("FAIL: " + f)
        return 1 if failures else 0
