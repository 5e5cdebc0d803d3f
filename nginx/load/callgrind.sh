#!/usr/bin/env bash
# The instructions an nginx worker runs per request, with the module on or off:
# Debian's nginx (one process) under callgrind answers 1,000 keep-alive GET
# requests, each with the benchmark's 200-byte query and header lines (as
# requests.lua sends them), then the inclusive counts of the module's functions
# are printed (divide by 1,000 for one request).
#
# Usage: bash nginx/load/callgrind.sh MODULE.so OUTDIR [on|off]
# Needs valgrind and python3; OUTDIR is replaced.
set -euo pipefail
so=$1; out=$2; mode=${3:-on}
rm -rf "$out"; mkdir -p "$out"/{client_body,proxy,fastcgi,uwsgi,scgi}
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
cat > "$out/nginx.conf" <<CONF
load_module $so;
user root;
master_process off;
daemon off;
worker_processes 1;
pid $out/nginx.pid;
error_log $out/error.log notice;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $out/client_body;
    proxy_temp_path $out/proxy;
    fastcgi_temp_path $out/fastcgi;
    uwsgi_temp_path $out/uwsgi;
    scgi_temp_path $out/scgi;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$port;
        utf8_check $mode;
        location / { return 200 "ok\n"; }
    }
}
CONF
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" /usr/sbin/nginx -p "$out" -c "$out/nginx.conf" 2>"$out/valgrind.log" &
vg=$!
for i in $(seq 100); do python3 - "$port" <<'PY' 2>/dev/null && break || sleep 0.3
import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),1).close()
PY
done
python3 - "$port" "$(dirname "$0")/../tests" <<'PY'
import http.client,sys
sys.path.insert(0,sys.argv[2])
from server_cases import BENCH_QUERY as q, BENCH_HEADERS as h
c=http.client.HTTPConnection("127.0.0.1",int(sys.argv[1]))
for i in range(1000):
    c.request("GET","/index.html"+q,headers=h); r=c.getresponse(); r.read(); assert r.status==200,r.status
PY
kill -QUIT $vg; wait $vg || true
callgrind_annotate --inclusive=yes "$out/cg.out" > "$out/incl.txt" 2>/dev/null
callgrind_annotate "$out/cg.out" > "$out/self.txt" 2>/dev/null
grep -m1 'PROGRAM TOTALS' "$out/incl.txt"
grep -E ':(ngx_http_utf8_check_handler|utf8_check_percent|utf8_validate)( |$)' "$out/incl.txt" | head -4 || true
