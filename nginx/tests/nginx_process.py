"""An nginx owned by a test or benchmark: its own prefix, configuration, pid and log
files and loopback ports, run in the foreground (daemon off) as a child process and
stopped by its process id. Used by test_module.py and ../load/load.py."""

import os
import signal
import socket
import subprocess
import time


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def user_directive():
    """Under root nginx starts its workers as `nobody`; they create their temporary
    files in the work directory, which must then be theirs to enter."""
    return "user nobody nogroup;" if os.geteuid() == 0 else ""


class NginxProcess:
    def __init__(self, binary, work, conf_text, port, quiet=False):
        """Writes work/nginx.conf, checks it with `nginx -t` and starts nginx; returns
        when it accepts connections on 127.0.0.1:port and its workers have started
        (the master listens before it forks them, so a connection alone does not
        tell). The configuration should send its pid file and logs into `work`
        (error.log there is also nginx's log before the configuration is read)."""
        self.work = work
        os.makedirs(work, exist_ok=True)
        os.chmod(work, 0o755)
        self.conf = os.path.join(work, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf_text)
        self.error_log = os.path.join(work, "error.log")
        argv = [binary, "-p", work, "-c", self.conf, "-e", self.error_log]
        subprocess.run(argv + ["-t", "-q"], check=True)
        out = subprocess.DEVNULL if quiet else None
        self.proc = subprocess.Popen(argv + ["-g", "daemon off;"], stdout=out, stderr=out)
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                if self.worker_pids():
                    return
            except OSError:
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("nginx did not start; see " + self.error_log)
            time.sleep(0.05)

    def stop(self):
        """Graceful stop (SIGQUIT to the master), then SIGKILL after 15 s."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def worker_pids(self):
        pids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open("/proc/%s/stat" % entry) as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == self.proc.pid:
                    pids.append(int(entry))
        return sorted(pids)

    def worker_rss_kb(self):
        """The resident set size of the workers together, in kB."""
        total = 0
        for pid in self.worker_pids():
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        return total
