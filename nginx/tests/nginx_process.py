"""An nginx owned by a test or benchmark: its own prefix, configuration, pid and log
files and loopback ports, run in the foreground (daemon off) as a child process and
stopped by its process id. Used by test_module.py and ../load/load.py."""

import os
import signal
import subprocess

from server_cases import ServerProcess, free_port, rss_kb  # noqa: F401  (free_port: for the callers)


def user_directive():
    """Under root nginx starts its workers as `nobody`; they create their temporary
    files in the work directory, which must then be theirs to enter."""
    return "user nobody nogroup;" if os.geteuid() == 0 else ""


class NginxProcess(ServerProcess):
    NAME = "nginx"
    STOP_SIGNAL = signal.SIGQUIT  # graceful stop

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
        self.wait_started(port, 10)

    def worker_pids(self):
        return self.child_pids()

    def worker_rss_kb(self):
        """The resident set size of the workers together, in kB."""
        return rss_kb(self.worker_pids())
