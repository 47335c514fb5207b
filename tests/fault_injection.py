"""SIGKILL at the n-th call of a named write point, in a child process (the fault-injection tests
of tests/test_run_folders.py and tests/test_experiment_bookkeeping.py).

`killer_script(patches, command)` is the child's source: its argv is (point, n, *command args);
`patches` are lines `TARGET = kill_at("NAME", TARGET)` that wrap the write points."""
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PREAMBLE = """
import os, signal, sys
point, nth = sys.argv[1], int(sys.argv[2])
count = {"n": 0}

def kill_at(name, real):
    def wrapped(*args, **kwargs):
        if name == point:
            count["n"] += 1
            if count["n"] == nth:
                os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    return wrapped
"""


def killer_script(imports, patches, command):
    return "\n".join([PREAMBLE, textwrap.dedent(imports), textwrap.dedent(patches),
                      "from sim.cli import main", f"sys.exit(main({command}))"])


def run_killed(script, point, nth, args, log):
    """Run the child to its SIGKILL (asserted); its output goes to `log`, not a pipe that an
    orphaned worker could hold open."""
    with open(log, "w") as f:
        proc = subprocess.run([sys.executable, "-c", script, point, str(nth), *map(str, args)],
                              stdout=f, stderr=f, timeout=600, cwd=REPO)
    assert proc.returncode == -signal.SIGKILL, Path(log).read_text()
