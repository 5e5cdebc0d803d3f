#!/usr/bin/env python3
"""Load on mod_utf8_check with wrk, on 127.0.0.1, in Apache httpd instances this script
starts and stops (their own ServerRoot, configuration and logs).

  load.py bench --module M.so   requests per second on well-formed requests (a 200-byte
      query, a few headers) with UTF8Check Off, with UTF8Check On (uri args headers),
      with ModSecurity 2's @validateUtf8Encoding on the same parts, and with
      ModSecurity's engine and no rule: four Apaches (event MPM, one child each, on
      the same CPU), measured in alternating rounds; the medians are reported.
  load.py soak --module M.so    1,000,000 requests, every other one ill-formed (in the
      URI, an argument, a header, the body), in ten runs of 100,000: every answer is
      200 or 400 as it should be, no child exits on a signal (the same child pid
      throughout, no "exit signal" in the log), and the child's resident memory
      after the last 100,000 requests is within --rss-slack-kb of that after the first.

The requests are nginx/load/requests.lua's (the nginx module's load uses the same).
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
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from apache_process import MODULES, ApacheProcess, base_config, free_port  # noqa: E402

LUA = os.path.join(HERE, "..", "..", "nginx", "load", "requests.lua")
MODSECURITY_SO = os.path.join(MODULES, "mod_security2.so")

# One child with enough threads for wrk's connections: its CPU time is the cost.
COMMON = """
StartServers 1
ServerLimit 1
ThreadsPerChild 64
MaxRequestWorkers 64
MinSpareThreads 1
MaxSpareThreads 64
MaxConnectionsPerChild 0
KeepAlive On
MaxKeepAliveRequests 0
KeepAliveTimeout 5
ErrorLogFormat "[%l] [pid %P] %M"
DocumentRoot {work}/htdocs
<Directory />
    AllowOverride None
</Directory>
<Directory {work}/htdocs>
    Require all granted
</Directory>
AliasMatch "^/(?!server-status)" {work}/htdocs/ok.txt
"""

# ModSecurity on the same parts: the path (REQUEST_FILENAME is not decoded in
# ModSecurity 2, hence t:urlDecode), the arguments (ModSecurity decodes them) and
# their names, header values and names.
MODSECURITY_RULES = """
SecRuleEngine On
SecRequestBodyAccess Off
SecResponseBodyAccess Off
SecAuditEngine Off
SecTmpDir {work}
SecDataDir {work}
SecRule REQUEST_FILENAME "@validateUtf8Encoding" "id:1001,phase:1,deny,status:400,t:none,t:urlDecode,log"
SecRule ARGS|ARGS_NAMES|REQUEST_HEADERS|REQUEST_HEADERS_NAMES "@validateUtf8Encoding" "id:1002,phase:1,deny,status:400,t:none,log"
"""

# ModSecurity's engine with no rule: what it costs before any operator runs.
MODSECURITY_ENGINE = """
SecRuleEngine On
SecRequestBodyAccess Off
SecResponseBodyAccess Off
SecAuditEngine Off
SecTmpDir {work}
SecDataDir {work}
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


def start_apache(args, work, name, port, extra, modules, prefix=()):
    work = os.path.join(work, name)
    os.makedirs(os.path.join(work, "htdocs"), exist_ok=True)
    os.chmod(work, 0o755)
    with open(os.path.join(work, "htdocs", "ok.txt"), "w") as f:
        f.write("ok\n")
    conf = base_config(work, "event", [port], ["alias"] + list(modules))
    conf += COMMON.format(work=work)
    conf += extra.format(work=work)
    return ApacheProcess(args.apache, work, conf, port, quiet=True, prefix=prefix)


def get_status(port, path, headers=None):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
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
    module = ("utf8_check_module", os.path.abspath(args.module))
    configs = [("off", "UTF8Check Off\n", [module]),
               ("on", "UTF8Check On\n", [module])]
    if os.path.exists(args.modsecurity):
        modsec = ["unique_id", ("security2_module", args.modsecurity)]
        configs += [("modsecurity", MODSECURITY_RULES, modsec),
                    ("modsec-engine", MODSECURITY_ENGINE, modsec)]
    else:
        print("ModSecurity module not found at %s: compared with off only" % args.modsecurity)
    prefix = ["taskset", "-c", args.apache_cpus] if args.apache_cpus else []
    servers = {}
    try:
        for name, extra, modules in configs:
            port = free_port()
            servers[name] = (port, start_apache(args, work, name, port, extra, modules, prefix))
        names = [c[0] for c in configs]
        # Each configuration does what it claims: an overlong "/" in the path and a
        # surrogate in a header are rejected where checked, and let through where not.
        for name in names:
            want = 200 if name in ("off", "modsec-engine") else 400
            # (http.client sends header values as Latin-1: these are the bytes ED A0 80)
            for path, headers in (("/p/%C0%AF", {}), ("/p/", {"X-Bad": "\xed\xa0\x80"})):
                got = get_status(servers[name][0], path, headers)
                if got != want:
                    raise SystemExit("bench: %s answered %s to an invalid %s with %d, not %d"
                                     % (name, path, "header" if headers else "path", got, want))
        results = {name: [] for name in names}
        cpu = {name: [] for name in names}
        for rnd in range(args.rounds):
            # every other round in reverse order, so that a drift of the machine's
            # speed during a round does not favour one configuration
            for name in (names if rnd % 2 == 0 else names[::-1]):
                port, apache = servers[name]
                cpu_before = apache.cpu_seconds()
                run = subprocess.run(wrk_argv(args, port, "valid", 0, args.duration),
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                out = run.stdout
                if run.returncode != 0:
                    raise SystemExit("bench: wrk failed:\n" + out)
                rps, total, _ = parse_wrk(out)
                results[name].append(rps)
                used = apache.cpu_seconds() - cpu_before
                cpu[name].append(1e6 * used / max(total, 1))
                print("round %d  %-14s %8.0f requests/s  %6.2f child CPU us/request,"
                      " child busy %3.0f%%" % (rnd + 1, name, rps, cpu[name][-1],
                                              100 * used / args.duration), flush=True)
    finally:
        for port, apache in servers.values():
            apache.stop()
    median = {name: statistics.median(v) for name, v in results.items()}
    print("\nCPU: %s" % cpu_model())
    print("wrk -t%d -c%d, %d s per run, %d rounds; Apache event MPM, 1 child%s"
          % (args.threads, args.connections, args.duration, args.rounds,
             ", Apache on CPUs %s, wrk on CPUs %s" % (args.apache_cpus, args.wrk_cpus)
             if args.apache_cpus else ""))
    print("median requests/s: " + ", ".join("%s %.0f" % (n, median[n]) for n in names))
    print("median child CPU us/request: " + ", ".join(
        "%s %.2f" % (n, statistics.median(cpu[n])) for n in names))

    # Ratios within each round (the runs of a round are seconds apart), then their
    # median: the machine's speed changes more between rounds than within one.
    def ratio(a, b):
        rps = statistics.median(x / y for x, y in zip(results[a], results[b]))
        per_request = statistics.median(y / x for x, y in zip(cpu[a], cpu[b]))
        return "%.3f by requests/s, %.3f by child CPU time per request" % (rps, per_request)

    print("UTF8Check On / Off: " + ratio("on", "off"))
    if "modsecurity" in median:
        print("ModSecurity / Off: " + ratio("modsecurity", "off"))
        print("ModSecurity's engine without rules / Off: " + ratio("modsec-engine", "off"))
        print("UTF8Check On / ModSecurity: " + ratio("on", "modsecurity"))
    return 0


def total_accesses(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/server-status?auto" % port,
                                timeout=5) as r:
        text = r.read().decode()
    return int(re.search(r"^Total Accesses: (\d+)", text, re.M).group(1))


def soak(args, work):
    port = free_port()
    status_port = free_port()
    extra = """
# every rejection is formatted and written, then thrown away; the server's own log
# ({work}/error.log) still gets the parent's lines, such as "exit signal"
<VirtualHost 127.0.0.1:%d>
    UTF8Check On
    UTF8CheckParts uri args headers body
    ErrorLog /dev/null
</VirtualHost>
<VirtualHost 127.0.0.1:%d>
    <Location /server-status>
        SetHandler server-status
    </Location>
</VirtualHost>
Listen 127.0.0.1:%d
ExtendedStatus On
""" % (port, status_port, status_port)
    apache = start_apache(args, work, "soak", port, extra,
                          ["status", ("utf8_check_module", os.path.abspath(args.module))])
    runs = 10
    per_run = args.requests // runs
    rss = []
    failures = []
    totals = [0, 0, 0]
    start = time.time()
    try:
        children = apache.child_pids()
        for k in range(runs):
            base = total_accesses(status_port)
            polls = 1
            wrk = subprocess.Popen(wrk_argv(args, port, "mixed", -(-per_run // args.threads), 600),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            deadline = time.time() + 300
            while total_accesses(status_port) - base - polls < per_run:
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
            rss.append(apache.rss_kb(children))
            if apache.child_pids() != children:
                failures.append("run %d: children %s, were %s" % (k + 1, apache.child_pids(),
                                                                  children))
            print("run %2d: %6d responses (%d 2xx, %d 400, %d other), child RSS %d kB, %.0f s"
                  % (k + 1, sum(counts), counts[0], counts[1], counts[2], rss[-1],
                     time.time() - start), flush=True)
    finally:
        apache.stop()
    with open(apache.error_log, "rb") as f:
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
    for bad in (b"exit signal", b"[crit]", b"[alert]", b"[emerg]"):
        if bad in log:
            failures.append("the log has %r: see %s" % (bad, apache.error_log))
    if len(rss) == runs:
        growth = rss[-1] - rss[0]
        print("child RSS after the first %d requests %d kB, after the last %d kB (%+d kB)"
              % (per_run, rss[0], rss[-1], growth))
        if growth > args.rss_slack_kb:
            failures.append("child RSS grew by %d kB (allowed %d)" % (growth, args.rss_slack_kb))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("bench", "soak"))
    ap.add_argument("--module", required=True, help="mod_utf8_check.so")
    ap.add_argument("--apache", default="/usr/sbin/apache2")
    ap.add_argument("--modsecurity", default=MODSECURITY_SO)
    ap.add_argument("--threads", type=int, default=1, help="wrk threads")
    ap.add_argument("--connections", type=int, default=32, help="wrk connections")
    ap.add_argument("--duration", type=int, default=5, help="bench: seconds per run")
    ap.add_argument("--rounds", type=int, default=5, help="bench: runs per configuration")
    ap.add_argument("--apache-cpus", default="0" if os.cpu_count() >= 2 else "",
                    help="bench: taskset -c list for Apache")
    ap.add_argument("--wrk-cpus", default="1" if os.cpu_count() >= 2 else "",
                    help="bench: taskset -c list for wrk")
    ap.add_argument("--requests", type=int, default=1000000, help="soak: requests in all")
    ap.add_argument("--rss-slack-kb", type=int, default=1024,
                    help="soak: allowed child RSS growth from the first to the last run")
    ap.add_argument("--workdir")
    args = ap.parse_args()
    if args.what == "soak":
        args.apache_cpus = ""
        args.wrk_cpus = ""
    work = args.workdir or tempfile.mkdtemp(prefix="utf8-check-apache-load.")
    os.chmod(work, 0o755)
    try:
        return bench(args, work) if args.what == "bench" else soak(args, work)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
