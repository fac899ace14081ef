"""Shared set-up of the Python tests.

Every test process (and every process it starts: Dask workers, spawned interpreters) uses one
private disk cache, made here before jitvec is imported, so the tests never touch the user's
cache and the cross-process tests can count what that cache serves.
"""
import os
import tempfile

_cache = tempfile.mkdtemp(prefix="jitvec-pytest-cache-")
os.environ["JITVEC_CACHE_DIR"] = _cache

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import jitvec  # noqa: E402

GAUSSIAN_SOURCE = """
template <typename T> __device__ T gaussian_pdf(T x, T mean, T sigma) {
    const T z = (x - mean) / sigma;
    return exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));
}
"""

# Unsigned first: jitvec takes the first loop every argument casts to safely (uint8 -> int16 is
# safe), so this order gives each dtype its own loop.
ADD_SIGNATURES = [f"{t}({t}, {t})" for t in (
    "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float32",
    "float64")]
ADD_SOURCE = "template <typename T> __device__ T add(T a, T b) { return a + b; }"


def gpu_count():
    return jitvec.cuda_device_count()


def targets():
    """The targets this machine can run: cpu and parallel, and cuda with a GPU."""
    return ["cpu", "parallel"] + (["cuda"] if gpu_count() > 0 else [])


@pytest.fixture(scope="session")
def cache_dir():
    return _cache


@pytest.fixture(scope="session")
def gaussian():
    return jitvec.vectorize(["float32(float32, float32, float32)",
                             "float64(float64, float64, float64)"],
                            GAUSSIAN_SOURCE, name="gaussian_pdf")


@pytest.fixture(scope="session")
def add():
    return jitvec.vectorize(ADD_SIGNATURES, ADD_SOURCE, name="add")


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print(f"random seed: {seed}")
    return np.random.default_rng(seed)


def gaussian_ref(x, mean, sigma):
    """The float64 reference for gaussian_pdf."""
    x = np.asarray(x, dtype=np.float64)
    z = (x - mean) / sigma
    return np.exp(-0.5 * z * z) / (sigma * np.sqrt(2 * np.pi))


def run_watching_the_gil(work):
    """Runs ``work()`` in another thread while this one wakes every millisecond: returns
    (work's result, the seconds it took, the longest gap between this thread's wake-ups). A gap
    far below the work's time means the work ran without holding the GIL."""
    import threading
    import time
    done = threading.Event()
    result = {}

    def run():
        t0 = time.perf_counter()
        result["value"] = work()
        result["seconds"] = time.perf_counter() - t0
        done.set()

    thread = threading.Thread(target=run)
    last, max_gap = time.perf_counter(), 0.0
    thread.start()
    while not done.is_set():
        now = time.perf_counter()
        max_gap, last = max(max_gap, now - last), now
        time.sleep(0.001)
    thread.join()
    return result["value"], result["seconds"], max_gap
