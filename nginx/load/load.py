#!/usr/bin/env python3
"""Load on ngx_http_utf8_check_module with wrk, on 127.0.0.1, in an nginx this script
starts and stops (its own prefix, configuration and logs).

  load.py bench --module M.so   requests per second on well-formed requests (a 200-byte
      query, a few headers) with utf8_check off, with utf8_check on (uri args
      headers), with ModSecurity's @validateUtf8Encoding on the same parts, and with
      ModSecurity's engine and no rule, side by side in one nginx. Rounds alternate
      between them; the medians are reported.
  load.py soak --module M.so    1,000,000 requests, every other one ill-formed (in the
      URI, an argument, a header, the body), in ten runs of 100,000: every answer is
      200 or 400 as it should be, no worker exits on a signal (the same worker pid
      throughout, no "exited on signal" in the log), and the worker's resident memory
      after the last 100,000 requests is within --rss-slack-kb of that after the first.

Every result is printed with the CPU model (/proc/cpuinfo).
"""

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from nginx_process import NginxProcess, free_port, user_directive  # noqa: E402

LUA = os.path.join(HERE, "requests.lua")
MODSECURITY_SO = "/usr/lib/nginx/modules/ngx_http_modsecurity_module.so"

COMMON = """
{load}
{user}
worker_processes 1;
{affinity}
pid {work}/nginx.pid;
error_log {work}/error.log notice;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {work}/client_body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    keepalive_requests 1000000;
{servers}
}}
"""

# ModSecurity on the same parts: the path (percent-decoded, as nginx's $uri), the
# arguments (ModSecurity decodes them) and their names, header values and names.
MODSECURITY_RULES = r"""
        modsecurity on;
        modsecurity_rules '
            SecRuleEngine On
            SecRequestBodyAccess Off
            SecResponseBodyAccess Off
            SecAuditEngine Off
            SecRule REQUEST_FILENAME "@validateUtf8Encoding" "id:1001,phase:1,deny,status:400,t:none,t:urlDecode,log"
            SecRule ARGS|ARGS_NAMES|REQUEST_HEADERS|REQUEST_HEADERS_NAMES "@validateUtf8Encoding" "id:1002,phase:1,deny,status:400,t:none,log"
        ';
"""

# ModSecurity's engine with no rule: what it costs before any operator runs.
MODSECURITY_ENGINE = r"""
        modsecurity on;
        modsecurity_rules '
            SecRuleEngine On
            SecRequestBodyAccess Off
            SecResponseBodyAccess Off
            SecAuditEngine Off
        ';
"""


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


def server(port, body):
    return "    server {\n        listen 127.0.0.1:%d;\n%s\n        location / { return 200 \"ok\\n\"; }\n    }\n" % (port, body)


def get_status(port, path="/"):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


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


def bench(args, work):
    ports = {name: free_port() for name in ("off", "on", "modsecurity", "modsec-engine")}
    loads = ["load_module %s;" % os.path.abspath(args.module)]
    servers = server(ports["off"], "") + server(ports["on"], "        utf8_check on;")
    names = ["off", "on"]
    if os.path.exists(args.modsecurity):
        loads.append("load_module %s;" % args.modsecurity)
        servers += server(ports["modsecurity"], MODSECURITY_RULES)
        servers += server(ports["modsec-engine"], MODSECURITY_ENGINE)
        names += ["modsecurity", "modsec-engine"]
    else:
        print("ModSecurity module not found at %s: compared with off only" % args.modsecurity)
    conf = COMMON.format(load="\n".join(loads), user=user_directive(), work=work,
                         affinity="worker_cpu_affinity %s;" % args.nginx_cpu_mask
                         if args.nginx_cpu_mask else "", servers=servers)
    nginx = NginxProcess(args.nginx, work, conf, ports["off"], quiet=True)
    try:
        # Each configuration does what it claims: an overlong "/" in the path and a
        # surrogate in a header are rejected where checked, and let through where not.
        for name in names:
            want = 200 if name in ("off", "modsec-engine") else 400
            # (http.client sends header values as Latin-1: these are the bytes ED A0 80)
            for path, headers in (("/p/%C0%AF", {}), ("/p/", {"X-Bad": "\xed\xa0\x80"})):
                req = urllib.request.Request("http://127.0.0.1:%d%s" % (ports[name], path),
                                             headers=headers)
                try:
                    got = urllib.request.urlopen(req, timeout=5).status
                except urllib.error.HTTPError as e:
                    got = e.code
                if got != want:
                    raise SystemExit("bench: %s answered %s to an invalid %s with %d, not %d"
                                     % (name, path, "header" if headers else "path", got, want))
        results = {name: [] for name in names}
        cpu = {name: [] for name in names}
        for rnd in range(args.rounds):
            # every other round in reverse order, so that a drift of the machine's
            # speed during a round does not favour one configuration
            for name in (names if rnd % 2 == 0 else names[::-1]):
                cpu_before = worker_cpu_seconds(nginx)
                run = subprocess.run(wrk_argv(args, ports[name], "valid", 0, args.duration),
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                out = run.stdout
                if run.returncode != 0:
                    raise SystemExit("bench: wrk failed:\n" + out)
                rps, total, _ = parse_wrk(out)
                results[name].append(rps)
                used = worker_cpu_seconds(nginx) - cpu_before
                cpu[name].append(1e6 * used / max(total, 1))
                print("round %d  %-14s %8.0f requests/s  %6.2f worker CPU us/request,"
                      " worker busy %3.0f%%" % (rnd + 1, name, rps, cpu[name][-1],
                                               100 * used / args.duration))
    finally:
        nginx.stop()
    median = {name: statistics.median(v) for name, v in results.items()}
    print("\nCPU: %s" % cpu_model())
    print("wrk -t%d -c%d, %d s per run, %d rounds; nginx 1 worker%s"
          % (args.threads, args.connections, args.duration, args.rounds,
             ", worker_cpu_affinity %s, wrk on CPUs %s" % (args.nginx_cpu_mask, args.wrk_cpus)
             if args.nginx_cpu_mask else ""))
    print("median requests/s: " + ", ".join("%s %.0f" % (n, median[n]) for n in names))
    print("median worker CPU us/request: " + ", ".join(
        "%s %.2f" % (n, statistics.median(cpu[n])) for n in names))
    # Ratios within each round (the runs of a round are seconds apart), then their
    # median: the machine's speed changes more between rounds than within one.
    def ratio(a, b):
        rps = statistics.median(x / y for x, y in zip(results[a], results[b]))
        per_request = statistics.median(y / x for x, y in zip(cpu[a], cpu[b]))
        return "%.3f by requests/s, %.3f by worker CPU time per request" % (rps, per_request)

    print("utf8_check on / off: " + ratio("on", "off"))
    if "modsecurity" in median:
        print("ModSecurity / off: " + ratio("modsecurity", "off"))
        print("ModSecurity's engine without rules / off: " + ratio("modsec-engine", "off"))
        print("utf8_check on / ModSecurity: " + ratio("on", "modsecurity"))
    return 0


def worker_cpu_seconds(nginx):
    """User plus system CPU time of the workers so far, in seconds."""
    total = 0
    for pid in nginx.worker_pids():
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def stub_requests(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=5) as r:
        return int(r.read().decode().split("\n")[2].split()[2])


def soak(args, work):
    port = free_port()
    status_port = free_port()
    servers = server(port, """        utf8_check on;
        utf8_check_parts uri args headers body;
        # every rejection is formatted and written, then thrown away
        error_log /dev/null error;""")
    servers += "    server {\n        listen 127.0.0.1:%d;\n        location / { stub_status; }\n    }\n" % status_port
    conf = COMMON.format(load="load_module %s;" % os.path.abspath(args.module),
                         user=user_directive(), work=work, affinity="", servers=servers)
    nginx = NginxProcess(args.nginx, work, conf, port, quiet=True)
    runs = 10
    per_run = args.requests // runs
    rss = []
    failures = []
    totals = [0, 0, 0]
    start = time.time()
    try:
        workers = nginx.worker_pids()
        for k in range(runs):
            base = stub_requests(status_port)
            polls = 1
            wrk = subprocess.Popen(wrk_argv(args, port, "mixed", -(-per_run // args.threads), 600),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            deadline = time.time() + 300
            while stub_requests(status_port) - base - polls < per_run:
                polls += 1
                if wrk.poll() is not None or time.time() > deadline:
                    break
                time.sleep(0.1)
            wrk.send_signal(signal.SIGINT)
            out = wrk.communicate()[0]
            _, total, counts = parse_wrk(out)
            if counts is None:
                failures.append("run %d: no counts from wrk:\n%s" % (k + 1, out))
                break
            for i in range(3):
                totals[i] += counts[i]
            rss.append(nginx.worker_rss_kb())
            if nginx.worker_pids() != workers:
                failures.append("run %d: workers %s, were %s" % (k + 1, nginx.worker_pids(), workers))
            print("run %2d: %6d responses (%d 2xx, %d 400, %d other), worker RSS %d kB, %.0f s"
                  % (k + 1, sum(counts), counts[0], counts[1], counts[2], rss[-1],
                     time.time() - start))
    finally:
        nginx.stop()
    with open(nginx.error_log, "rb") as f:
        log = f.read()
    done = sum(totals)
    print("\nCPU: %s" % cpu_model())
    print("%d responses in %.0f s: %d 2xx, %d 400, %d other"
          % (done, time.time() - start, totals[0], totals[1], totals[2]))
    if done < args.requests:
        failures.append("%d responses, want %d" % (done, args.requests))
    if totals[2]:
        failures.append("%d answers neither 2xx nor 400" % totals[2])
    if done and abs(totals[1] - done / 2) > runs * args.connections:
        failures.append("%d of %d rejected, want half" % (totals[1], done))
    if b"exited on signal" in log:
        failures.append("a worker exited on a signal: see %s" % nginx.error_log)
    if len(rss) == runs:
        growth = rss[-1] - rss[0]
        print("worker RSS after the first %d requests %d kB, after the last %d kB (%+d kB)"
              % (per_run, rss[0], rss[-1], growth))
        if growth > args.rss_slack_kb:
            failures.append("worker RSS grew by %d kB (allowed %d)" % (growth, args.rss_slack_kb))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("bench", "soak"))
    ap.add_argument("--module", required=True, help="ngx_http_utf8_check_module.so")
    ap.add_argument("--nginx", default="/usr/sbin/nginx")
    ap.add_argument("--modsecurity", default=MODSECURITY_SO)
    ap.add_argument("--threads", type=int, default=1, help="wrk threads")
    ap.add_argument("--connections", type=int, default=32, help="wrk connections")
    ap.add_argument("--duration", type=int, default=5, help="bench: seconds per run")
    ap.add_argument("--rounds", type=int, default=5, help="bench: runs per configuration")
    ap.add_argument("--nginx-cpu-mask", default="01" if os.cpu_count() >= 2 else "",
                    help="bench: worker_cpu_affinity of the nginx worker")
    ap.add_argument("--wrk-cpus", default="1" if os.cpu_count() >= 2 else "",
                    help="taskset -c list for wrk")
    ap.add_argument("--requests", type=int, default=1000000, help="soak: requests in all")
    ap.add_argument("--rss-slack-kb", type=int, default=512,
                    help="soak: allowed worker RSS growth from the first to the last run")
    ap.add_argument("--workdir")
    args = ap.parse_args()
    if args.what == "soak":
        args.nginx_cpu_mask = ""
        args.wrk_cpus = ""
    work = args.workdir or tempfile.mkdtemp(prefix="utf8-check-load.")
    try:
        return bench(args, work) if args.what == "bench" else soak(args, work)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
