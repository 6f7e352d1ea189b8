"""The plot scripts run on whatever `python3` comes first in PATH; a pyenv,
conda or venv interpreter there often has no matplotlib while Debian's
python3-matplotlib lives in /usr/bin/python3's site-packages. require()
makes the script run on an interpreter that has it: itself when it can
import matplotlib, else the first python3 that can (/usr/bin/python3,
/usr/local/bin/python3, then every python3 in PATH; the same one counts,
when it was only started without its site-packages), on which the script
starts again, once, with the same arguments; else it stops with what to
install.
"""
import os
import subprocess
import sys

_AGAIN = "SHARDROOF_PLOT_PYTHON_TRIED"


def _candidates():
    seen = set()
    dirs = ["/usr/bin", "/usr/local/bin"] + os.environ.get("PATH", "").split(os.pathsep)
    for d in dirs:
        path = os.path.join(d, "python3") if d else ""
        if not path or not os.access(path, os.X_OK):
            continue
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        yield path


def require(script):
    """Returns when matplotlib imports here; else runs `script` again on a
    python3 that has it (never returns), or exits with a message."""
    try:
        import matplotlib  # noqa: F401

        return
    except ImportError:
        pass
    if not os.environ.get(_AGAIN):
        for python in _candidates():
            probe = subprocess.run([python, "-c", "import matplotlib"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            if probe.returncode == 0:
                os.environ[_AGAIN] = "1"
                os.execv(python, [python, os.path.abspath(script)] + sys.argv[1:])
    name = os.path.basename(script)
    sys.exit(f"{name}: no python3 here has matplotlib ({sys.executable} has none): apt-get install "
             f"python3-matplotlib, then run `/usr/bin/python3 {name} ...`, or pip install matplotlib")
