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
import sys
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "nginx", "tests"))  # server_cases
from apache_process import MODULES, ApacheProcess, base_config, free_port  # noqa: E402
from server_cases import (  # noqa: E402
    Soak, bench_report, bench_rounds, in_workdir, wrk_arguments)

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
        results, cpu = bench_rounds(args, names, lambda name: servers[name][0],
                                    lambda name: servers[name][1].cpu_seconds(), "child")
    finally:
        for port, apache in servers.values():
            apache.stop()
    bench_report(args, names, results, cpu, "child", "Apache event MPM, 1 child%s" % (
        ", Apache on CPUs %s, wrk on CPUs %s" % (args.apache_cpus, args.wrk_cpus)
        if args.apache_cpus else ""), ("UTF8Check On", "Off", "ModSecurity"))
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
    runs = Soak(args, port, lambda: total_accesses(status_port), apache.child_pids,
                apache.rss_kb, "child", "children")
    try:
        runs.run()
    finally:
        apache.stop()
    with open(apache.error_log, "rb") as f:
        log = f.read()
    return runs.verdict(log, [(bad, "the log has %r" % bad) for bad in
                              (b"exit signal", b"[crit]", b"[alert]", b"[emerg]")],
                        apache.error_log)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("bench", "soak"))
    ap.add_argument("--module", required=True, help="mod_utf8_check.so")
    ap.add_argument("--apache", default="/usr/sbin/apache2")
    ap.add_argument("--modsecurity", default=MODSECURITY_SO)
    wrk_arguments(ap)
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
    return in_workdir(args, "utf8-check-apache-load.", bench, soak)


if __name__ == "__main__":
    sys.exit(main())
