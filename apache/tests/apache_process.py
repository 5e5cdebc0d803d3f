"""An Apache httpd owned by a test or benchmark: its own ServerRoot, configuration,
pid file, logs and loopback ports, run in the foreground (-DFOREGROUND) as a child
process and stopped by its process id. Used by test_module.py and ../load/load.py."""

import os
import signal
import subprocess
import sys

# the shared helpers, next to the oracle in nginx/tests
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "nginx", "tests"))
from server_cases import ServerProcess, cpu_seconds, free_port, rss_kb  # noqa: E402,F401

MODULES = "/usr/lib/apache2/modules"


def base_config(work, mpm, listen, modules=(), error_level="warn"):
    """The lines every configuration starts with: the MPM, the modules (names of
    Debian's module files without "mod_" and ".so", or (name, path) pairs), the
    ports, the files in `work`, and User/Group when run as root (Apache refuses to
    serve as root)."""
    lines = [
        "ServerRoot %s" % work,
        "ServerName localhost",
        "PidFile %s/httpd.pid" % work,
        "DefaultRuntimeDir %s" % work,
        "Mutex file:%s default" % work,
        "ErrorLog %s/error.log" % work,
        "LogLevel %s" % error_level,
        # the stop (graceful-stop, below) waits this long for the children
        "GracefulShutdownTimeout 10",
        "LoadModule mpm_%s_module %s/mod_mpm_%s.so" % (mpm, MODULES, mpm),
        "LoadModule authz_core_module %s/mod_authz_core.so" % MODULES,
    ]
    for m in modules:
        if isinstance(m, tuple):
            lines.append("LoadModule %s %s" % m)
        else:
            lines.append("LoadModule %s_module %s/mod_%s.so" % (m, MODULES, m))
    if os.geteuid() == 0:
        lines += ["User nobody", "Group nogroup"]
    lines += ["Listen 127.0.0.1:%d" % p for p in listen]
    return "\n".join(lines) + "\n"


def config_test(binary, conf_path):
    """(returncode, output) of `apache2 -t` on a configuration file."""
    run = subprocess.run([binary, "-t", "-f", conf_path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, errors="replace")
    return run.returncode, run.stdout


class ApacheProcess(ServerProcess):
    """Stopped as `apachectl graceful-stop` stops Apache (SIGWINCH): the children
    finish the requests they hold and exit on their own, as nginx's workers do on
    SIGQUIT. `apachectl stop` (SIGTERM) closes the sockets the workers hold from the
    child's main thread while they tear their connections down, which now and then
    kills the child in Apache's own code (close_worker_sockets, on a freed socket),
    with or without any module: a crash of the server's stop, not of what the tests
    check."""

    NAME = "apache"
    STOP_SIGNAL = signal.SIGWINCH

    def __init__(self, binary, work, conf_text, port, quiet=False, prefix=()):
        """Writes work/httpd.conf, checks it with `apache2 -t` and starts Apache;
        returns when it accepts connections on 127.0.0.1:port and its child
        processes have started. The configuration should come from base_config().
        `prefix`: a command that execs Apache in its own process (taskset -c 0)."""
        self.work = work
        os.makedirs(work, exist_ok=True)
        os.chmod(work, 0o755)
        self.conf = os.path.join(work, "httpd.conf")
        self.conf_text = conf_text
        with open(self.conf, "w") as f:
            f.write(conf_text)
        self.error_log = os.path.join(work, "error.log")
        rc, out = config_test(binary, self.conf)
        if rc != 0:
            raise RuntimeError("apache2 -t failed:\n" + out)
        stdout = subprocess.DEVNULL if quiet else None
        # its own process group: prefork's parent signals its whole group to stop
        # (prefix: a command that execs Apache in the same process, such as taskset)
        self.proc = subprocess.Popen(list(prefix) + [binary, "-f", self.conf, "-DFOREGROUND"],
                                     stdout=stdout, stderr=stdout, start_new_session=True)
        self.wait_started(port, 15)

    def stop(self):
        """graceful-stop, SIGKILL after 15 s (GracefulShutdownTimeout 10 makes Apache
        end its children itself before that); then any process left in its group."""
        super().stop()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def rss_kb(self, pids=None):
        """The resident set size of the children (or of `pids`) together, in kB."""
        return rss_kb(pids if pids is not None else self.child_pids())

    def cpu_seconds(self):
        """User plus system CPU time of the children so far, in seconds."""
        return cpu_seconds(self.child_pids())
