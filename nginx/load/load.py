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
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from nginx_process import NginxProcess, free_port, user_directive  # noqa: E402
from server_cases import (  # noqa: E402
    Soak, bench_report, bench_rounds, cpu_seconds, in_workdir,
    wrk_arguments)

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


def server(port, body):
    return "    server {\n        listen 127.0.0.1:%d;\n%s\n        location / { return 200 \"ok\\n\"; }\n    }\n" % (port, body)


def get_status(port, path="/"):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


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
        results, cpu = bench_rounds(args, names, ports.get,
                                    lambda name: cpu_seconds(nginx.worker_pids()), "worker")
    finally:
        nginx.stop()
    bench_report(args, names, results, cpu, "worker", "nginx 1 worker%s" % (
        ", worker_cpu_affinity %s, wrk on CPUs %s" % (args.nginx_cpu_mask, args.wrk_cpus)
        if args.nginx_cpu_mask else ""), ("utf8_check on", "off", "ModSecurity"))
    return 0


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
    runs = Soak(args, port, lambda: stub_requests(status_port), nginx.worker_pids,
                lambda workers: nginx.worker_rss_kb(), "worker", "workers")
    try:
        runs.run()
    finally:
        nginx.stop()
    with open(nginx.error_log, "rb") as f:
        log = f.read()
    return runs.verdict(log, [(b"exited on signal", "a worker exited on a signal")],
                        nginx.error_log)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("bench", "soak"))
    ap.add_argument("--module", required=True, help="ngx_http_utf8_check_module.so")
    ap.add_argument("--nginx", default="/usr/sbin/nginx")
    ap.add_argument("--modsecurity", default=MODSECURITY_SO)
    wrk_arguments(ap)
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
    return in_workdir(args, "utf8-check-load.", bench, soak)


if __name__ == "__main__":
    sys.exit(main())
