"""Fitting from several Python threads at once gives the same models as one at a time, and the
GIL is released meanwhile."""

import threading
import time

import numpy as np

import radial
from radial.sklearn import RBFClassifier
from conftest import two_class

SPEC = {"basis": {"plugin": "gaussian"}, "centres": {"plugin": "kmeans", "count": 20},
        "output": {"plugin": "irls"}}


def test_concurrent_fits_equal_sequential_fits():
    X, y = two_class(3000, seed=1)
    pipeline = radial.Pipeline(SPEC)
    seeds = [1, 2, 3, 4, 5, 6]
    sequential = [pipeline.fit(X, y, seed=s, threads=1)._handle.bytes_without_report()
                  for s in seeds]
    results = [None] * len(seeds)

    def work(i):
        # Half through the module, half through the estimator (its own pipeline and arrays).
        if i % 2:
            results[i] = pipeline.fit(X, y, seed=seeds[i], threads=2)
        else:
            est = RBFClassifier(centres_params={"count": 20}, output="irls", random_state=seeds[i])
            results[i] = est.fit(X, y).model_
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(seeds))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(1, len(seeds), 2):
        assert results[i]._handle.bytes_without_report() == sequential[i]
    # The estimator's model is the same network (its pipeline text and name differ).
    for i in range(0, len(seeds), 2):
        direct = pipeline.fit(X, y, seed=seeds[i], threads=1)
        assert np.array_equal(results[i].weights, direct.weights)
        assert np.array_equal(results[i].predict_proba(X), direct.predict_proba(X))


def test_gil_is_released_during_fit():
    X, y = two_class(20000, seed=2)
    pipeline = radial.Pipeline({**SPEC, "centres": {"plugin": "kmeans", "count": 60}})
    ticks = 0
    done = threading.Event()

    def count():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)
    counter = threading.Thread(target=count)
    counter.start()
    start = time.monotonic()
    pipeline.fit(X, y, seed=1, threads=1)
    elapsed = time.monotonic() - start
    done.set()
    counter.join()
    # A thread blocked by the GIL would barely tick; with it released it ticks all along.
    assert ticks > 0.3 * elapsed / 0.001 * 0.5 or elapsed < 0.05


def test_threads_past_the_hardware_are_capped():
    # Issue 46: threads=10000 started ~2,000 threads (load average 600). Capped to the machine's
    # hardware threads, with a warning; the model is the same as with those threads.
    import os
    X, y = two_class(500, seed=1)
    pipeline = radial.Pipeline(SPEC)
    many = pipeline.fit(X, y, seed=1, threads=10000)
    hardware = os.cpu_count()
    assert many.report["threads"] == hardware
    assert [w["guard"] for w in many.report["warnings"]] == ["threads-capped"]
    fitted = pipeline.fit(X, y, seed=1, threads=hardware)
    assert many._handle.bytes_without_report() == fitted._handle.bytes_without_report()
