"""Drive the real conftui binary in a tmux pane: type keys, read the screen back."""
import os
import subprocess
import tempfile
import time
import uuid


class TmuxSession:
    """One tmux server (own socket) with one pane running `command` under a shell wrapper that
    records the terminal modes (`stty -g`) before and after, and the exit status."""

    def __init__(self, command, width=120, height=40, env=None):
        self.socket = "conftui-test-" + uuid.uuid4().hex[:8]
        self.dir = tempfile.mkdtemp(prefix="conftui-tmux-")
        self.before = os.path.join(self.dir, "stty-before")
        self.after = os.path.join(self.dir, "stty-after")
        self.status = os.path.join(self.dir, "status")
        script = (
            f"stty -g > {self.before}; {command}; echo $? > {self.status}.tmp; "
            f"stty -g > {self.after}; mv {self.status}.tmp {self.status}; sleep 600"
        )
        full_env = dict(os.environ)
        full_env.update(env or {})
        full_env.setdefault("TERM", "xterm-256color")
        self._tmux("new-session", "-d", "-x", str(width), "-y", str(height), script, env=full_env)

    def _tmux(self, *args, env=None, check=True):
        return subprocess.run(["tmux", "-L", self.socket, *args], env=env, check=check,
                              capture_output=True, text=True, timeout=10)

    def send(self, *keys):
        self._tmux("send-keys", *keys)

    def capture(self, escapes=False):
        args = ["capture-pane", "-p"] + (["-e"] if escapes else [])
        return self._tmux(*args).stdout

    def resize(self, width, height):
        self._tmux("resize-window", "-x", str(width), "-y", str(height))

    def pane_pid(self):
        out = self._tmux("list-panes", "-F", "#{pane_pid}").stdout.strip()
        return int(out)

    def app_pid(self):
        """The conftui process: the child of the pane's shell."""
        shell = self.pane_pid()
        out = subprocess.run(["pgrep", "-P", str(shell), "-f", "conftui"], capture_output=True, text=True).stdout.split()
        return int(out[0]) if out else None

    def wait_for(self, predicate, timeout=10.0, what="condition"):
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture()
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}; screen was:\n{screen}")

    def wait_exit(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(self.status):
                with open(self.status) as f:
                    return int(f.read().strip())
            time.sleep(0.05)
        raise AssertionError(f"conftui did not exit within {timeout}s; screen:\n{self.capture()}")

    def modes_restored(self):
        with open(self.before) as b, open(self.after) as a:
            return b.read().strip() == a.read().strip()

    def describe(self):
        """Its evidence for a failure message: the screen as it is (or why it cannot be read)."""
        try:
            return "--- screen ---\n" + self.capture()
        except Exception as error:   # the tmux server may be gone already
            return f"--- screen unavailable: {error}"

    def close(self):
        self._tmux("kill-server", check=False)
