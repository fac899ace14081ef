"""The whole ufunc on the GPU from Python: accumulate, outer, at, reduce, gufuncs and fuse with
CuPy arrays and torch tensors in, against NumPy on the host copies (fresh random inputs,
poisoned outputs). Skipped without a GPU and CuPy (torch cases without torch)."""
import numpy as np
import pytest

import jitvec

cp = pytest.importorskip("cupy")
if jitvec.cuda_device_count() == 0:
    pytest.skip("no usable GPU", allow_module_level=True)
try:
    import torch
    if not torch.cuda.is_available():
        torch = None
except ImportError:  # pragma: no cover - torch is optional
    torch = None

LIBRARIES = ["cupy"] + (["torch"] if torch is not None else [])


def to_device(library, x):
    return cp.asarray(x) if library == "cupy" else torch.as_tensor(x, device="cuda")


def to_host(y):
    return cp.asnumpy(y) if isinstance(y, cp.ndarray) else y.cpu().numpy()


def poisoned(library, shape, dtype):
    return to_device(library, np.full(shape, np.nan if np.dtype(dtype).kind == "f" else -7, dtype))


@pytest.fixture(scope="module")
def add():
    return jitvec.vectorize(["int64(int64, int64)", "float32(float32, float32)", "float64(float64, float64)"],
                            "template <class T> __device__ T gm_add(T a, T b) { return a + b; }",
                            name="gm_add", identity=0)


@pytest.fixture(scope="module")
def mul():
    return jitvec.vectorize(["int64(int64, int64)", "float64(float64, float64)"],
                            "template <class T> __device__ T gm_mul(T a, T b) { return a * b; }",
                            name="gm_mul", identity=1)


@pytest.mark.parametrize("library", LIBRARIES)
def test_accumulate_on_device_arrays(add, mul, rng, library):
    x = rng.random((37, 1001))
    for axis in (0, 1):
        got = add.accumulate(to_device(library, x), axis=axis)
        assert type(got) is type(to_device(library, x))
        np.testing.assert_allclose(to_host(got), np.add.accumulate(x, axis=axis), rtol=1e-12)
    i = rng.integers(-3, 4, (5, 300))
    out = poisoned(library, (5, 300), np.int64)
    mul.accumulate(to_device(library, i), axis=1, out=out)
    np.testing.assert_array_equal(to_host(out), np.multiply.accumulate(i, axis=1))


@pytest.mark.parametrize("library", LIBRARIES)
def test_outer_on_device_arrays(add, mul, rng, library):
    a, b = rng.random((3, 4)), rng.random(257)
    got = add.outer(to_device(library, a), to_device(library, b))
    np.testing.assert_array_equal(to_host(got), np.add.outer(a, b))
    out = poisoned(library, (3, 4, 257), np.float64)
    mul.outer(to_device(library, a), to_device(library, b), out=out)
    np.testing.assert_array_equal(to_host(out), np.multiply.outer(a, b))


@pytest.mark.parametrize("library", LIBRARIES)
def test_at_with_repeated_indices_on_device_arrays(add, rng, library):
    idx = rng.integers(-50, 50, 5000)
    want = np.zeros((50, 3), np.int64)
    vals = rng.integers(0, 9, (5000, 3))
    np.add.at(want, idx, vals)
    got = to_device(library, np.zeros((50, 3), np.int64))
    add.at(got, to_device(library, idx), to_device(library, vals))
    np.testing.assert_array_equal(to_host(got), want)
    got = to_device(library, np.zeros(50))  # a scalar b, every hit counted
    add.at(got, to_device(library, idx), 1.0)
    want = np.zeros(50)
    np.add.at(want, idx, 1.0)
    np.testing.assert_array_equal(to_host(got), want)


@pytest.mark.parametrize("library", LIBRARIES)
def test_reduce_on_device_arrays(add, rng, library):
    i = rng.integers(-2**40, 2**40, (64, 513))
    got = add.reduce(to_device(library, i), axis=1)
    np.testing.assert_array_equal(to_host(got), np.add.reduce(i, axis=1))
    got = add.reduce(to_device(library, i), axis=None, initial=2**53 + 1)
    assert int(got) == int(np.add.reduce(i, axis=None, initial=2**53 + 1))


@pytest.mark.parametrize("library", LIBRARIES)
def test_gufunc_and_fuse_on_device_arrays(add, rng, library):
    dot = jitvec.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()",
                             """
    __device__ void gm_dot(jitvec::View<const double, 1> a, jitvec::View<const double, 1> b,
                           jitvec::View<double, 0> out) {
      double s = 0;
      for (long long i = 0; i < a.size(); ++i) s += a[i] * b[i];
      out() = s;
    }""", name="gm_dot", target="cuda")
    a, b = rng.random((40, 33)), rng.random((40, 33))
    got = dot(to_device(library, a), to_device(library, b))
    np.testing.assert_allclose(to_host(got), np.einsum("ij,ij->i", a, b), rtol=1e-13)
    twice = jitvec.fuse("gm_twice", "gm_add(gm_add(x, y), y)", target="cuda")
    x, y = rng.random(10001), rng.random(10001)
    np.testing.assert_array_equal(to_host(twice(to_device(library, x), to_device(library, y))), (x + y) + y)


@pytest.mark.parametrize("library", LIBRARIES)
def test_capture_and_replay(add, mul, rng, library):
    stream = cp.cuda.Stream(non_blocking=True) if library == "cupy" else torch.cuda.Stream()
    x = to_device(library, rng.random(100003))
    y, z = poisoned(library, 100003, np.float64), poisoned(library, 100003, np.float64)
    graph = jitvec.capture(lambda: (add(x, x, out=y), mul(y, x, out=z)), stream=stream)
    assert isinstance(graph, jitvec.Graph) and graph.calls == 2 and graph.nodes == 2
    stream.synchronize()
    for _ in range(3):  # new contents each time: the replay reads them
        host = rng.random(100003)
        x[...] = to_device(library, host)
        cp.cuda.Device().synchronize() if library == "cupy" else torch.cuda.synchronize()
        graph.replay()
        stream.synchronize()
        np.testing.assert_array_equal(to_host(z), (host + host) * host)
    del x, y  # the graph keeps what it reads and writes alive
    import gc
    gc.collect()
    graph.replay()
    stream.synchronize()
    with pytest.raises(jitvec.Error, match="out="):  # nothing is allocated during a capture
        jitvec.capture(lambda: add(z, z), stream=stream)
    with pytest.raises(ZeroDivisionError):  # the body's own error, the capture abandoned
        jitvec.capture(lambda: 1 / 0, stream=stream)
    np.testing.assert_array_equal(to_host(add(z, z)), 2 * to_host(z))  # the stream is usable again
