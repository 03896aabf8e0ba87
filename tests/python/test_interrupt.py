"""Ctrl-C during a long fit raises KeyboardInterrupt within a second, and the process stays
usable (a new fit works; exit is clean). Run in a child interpreter so SIGINT hits only it."""

import os
import subprocess
import sys
import textwrap
import time

CHILD = textwrap.dedent("""
    import os, signal, threading, time
    import numpy as np
    import radial
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 5))
    y = (X[:, 0] > 0).astype(np.float64)
    # PRBF's EM with tolerance 0 runs to its iteration cap: about 20 s here.
    long = radial.Pipeline({"basis": {"plugin": "gaussian", "density": True},
                            "centres": {"plugin": "prbf", "count": 20, "iterations": 2000,
                                        "tolerance": 0.0},
                            "output": {"plugin": "bayes"}})
    sent = {}
    def interrupt():
        sent["at"] = time.monotonic()
        os.kill(os.getpid(), signal.SIGINT)
    threading.Timer(1.0, interrupt).start()
    try:
        long.fit(X, y, seed=1, threads=1)
        print("finished")
    except KeyboardInterrupt:
        print("interrupted after", time.monotonic() - sent["at"])
    small = radial.Pipeline({"basis": {"plugin": "gaussian"},
                             "centres": {"plugin": "kmeans", "count": 4},
                             "output": {"plugin": "irls"}})
    print("usable", small.fit(X[:200], y[:200], seed=1).predict(X[:3]).shape)
""")


def test_ctrl_c_interrupts_a_long_fit():
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          timeout=120, env=os.environ)
    total = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("interrupted after"), done.stdout
    assert float(lines[0].split()[-1]) < 1.0
    assert lines[1] == "usable (3,)"
    # The interrupted EM stops at its next iteration (it reports each one), so exit is prompt
    # instead of waiting for the 2000 iterations.
    assert total < 10


LONG_FIT = textwrap.dedent("""
    import os, sys, threading, time
    import numpy as np
    import radial
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 5))
    y = (X[:, 0] > 0).astype(np.float64)
    long = radial.Pipeline({"basis": {"plugin": "gaussian", "density": True},
                            "centres": {"plugin": "prbf", "count": 20, "iterations": 2000,
                                        "tolerance": 0.0},
                            "output": {"plugin": "bayes"}})
    started = threading.Event()
    def fit():
        started.set()
        long.fit(X, y, seed=1, threads=1)
""")


def test_exit_while_a_daemon_thread_fits():
    # Issue 46: the interpreter exiting while a daemon thread was inside fit aborted (SIGABRT):
    # the thread, taking the GIL back during finalization, was ended by pthread_exit through
    # C++ frames. Exit must be clean (it waits for the fit's worker, as after Ctrl-C).
    child = LONG_FIT + textwrap.dedent("""
        threading.Thread(target=fit, daemon=True).start()
        started.wait()
        time.sleep(0.5)
        print("exiting", flush=True)
    """)
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                              timeout=120, env=os.environ)
        assert done.returncode == 0, (done.returncode, done.stderr)
        assert done.stdout == "exiting\n"


def test_fork_while_another_thread_fits():
    # Issue 46: a child forked while another thread was inside fit never exited: its exit waited
    # for a fit worker that exists only in the parent. The child exits at once, and can fit.
    child = LONG_FIT + textwrap.dedent("""
        threading.Thread(target=fit, daemon=True).start()
        started.wait()
        time.sleep(0.5)
        pid = os.fork()
        if pid == 0:
            small = radial.Pipeline({"basis": {"plugin": "gaussian"},
                                     "centres": {"plugin": "kmeans", "count": 4},
                                     "output": {"plugin": "irls"}})
            small.fit(X[:200], y[:200], seed=1, threads=1)
            sys.exit(0)   # atexit handlers run: radial's must not wait for the parent's fit
        start, status = time.monotonic(), None
        while status is None and time.monotonic() - start < 30:
            done, code = os.waitpid(pid, os.WNOHANG)
            status = code if done else time.sleep(0.1)
        if status is None:  # hung: no child is left behind
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            print("child hung", flush=True)
        else:
            print("child", os.waitstatus_to_exitcode(status), flush=True)
        os._exit(0)
    """)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          timeout=120, env=os.environ)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "child 0\n"
