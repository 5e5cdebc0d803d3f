#!/usr/bin/env python3
"""The instructions Apache runs per request, with UTF8Check On or Off: Debian's apache2
(event MPM, one process: -X) under callgrind answers N keep-alive GET requests of the
benchmark's kind (server_cases.BENCH_QUERY and BENCH_HEADERS, as
nginx/load/callgrind.sh sends them), and the program's total and the module's
inclusive counts are printed. Run it for two values of N: the difference of the
totals, divided by the difference of N, is the cost of one request without Apache's
start and stop.

  python3 apache/load/callgrind.py --module M.so --mode on --requests 1000

Needs valgrind (callgrind_annotate) and setpriv (util-linux): as root, Apache and
valgrind run as nobody from the start, so that callgrind can write its output after
Apache would have changed its user.
"""

import argparse
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from apache_process import base_config, free_port  # noqa: E402
from load import COMMON  # noqa: E402
from server_cases import BENCH_HEADERS, BENCH_QUERY  # noqa: E402


def wait_listening(port, proc):
    for _ in range(300):
        if proc.poll() is not None:
            raise SystemExit("apache2 under valgrind exited early")
        try:
            socket.create_connection(("127.0.0.1", port), 1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("apache2 under valgrind did not start")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", required=True, help="mod_utf8_check.so")
    ap.add_argument("--mode", choices=("on", "off"), default="on")
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--apache", default="/usr/sbin/apache2")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="utf8validate-callgrind.")
    try:
        os.chmod(work, 0o1777)
        os.makedirs(os.path.join(work, "htdocs"))
        with open(os.path.join(work, "htdocs", "ok.txt"), "w") as f:
            f.write("ok\n")
        port = free_port()
        conf = base_config(work, "event", [port],
                           ["alias", ("utf8_check_module", os.path.abspath(args.module))])
        # the user is set by setpriv below, not by Apache
        conf = conf.replace("User nobody\n", "").replace("Group nogroup\n", "")
        conf += COMMON.format(work=work)
        conf += "UTF8Check %s\n" % ("On" if args.mode == "on" else "Off")
        with open(os.path.join(work, "httpd.conf"), "w") as f:
            f.write(conf)
        out = os.path.join(work, "callgrind.out")
        argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                args.apache, "-X", "-f", os.path.join(work, "httpd.conf")]
        if os.geteuid() == 0:
            argv = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + argv
        with open(os.path.join(work, "valgrind.log"), "w") as log:
            proc = subprocess.Popen(argv, stdout=log, stderr=log)
        wait_listening(port, proc)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for _ in range(args.requests):
            conn.request("GET", "/index.html" + BENCH_QUERY, headers=BENCH_HEADERS)
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                raise SystemExit("answered %d, not 200" % response.status)
        conn.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        text = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                              capture_output=True, text=True, check=True).stdout
        total = re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", text)
        if not total:
            raise SystemExit("no totals from callgrind_annotate")
        print("UTF8Check %s, %d requests: %s instructions in all"
              % (args.mode, args.requests, total.group(1)))
        for line in text.splitlines():
            if re.search(r":(utf8_check_header_parser|utf8_check_percent|utf8_validate)"
                         r" ", line):
                print("  " + line.strip())
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
