"""Ufunc.reduce from Python, and its where= mask (issue 11), against NumPy's
np.add.reduce(..., where=...) on every target this machine has (cuda with NumPy inputs goes
host -> GPU -> host); CuPy and PyTorch CUDA inputs where they and a GPU are present.

Inputs are small integers stored as floats, so sums are exact in any order and the comparisons
are exact; real float data checks that an all-true mask gives the bits of no mask."""
import pickle

import numpy as np
import pytest

import jitvec
from conftest import gpu_count, targets

ADD = "template <typename T> __device__ T rwp_add(T a, T b) { return a + b; }"
MAX = "template <typename T> __device__ T rwp_max(T a, T b) { return a > b ? a : b; }"


@pytest.fixture(scope="module")
def add():
    return jitvec.vectorize(["int8(int8, int8)", "int64(int64, int64)", "float32(float32, float32)",
                             "float64(float64, float64)"], ADD, name="rwp_add", identity=0)


@pytest.fixture(scope="module")
def maximum():
    return jitvec.vectorize(["float32(float32, float32)"], MAX, name="rwp_max")  # no identity


def integers(rng, shape, dtype=np.float32):
    return rng.integers(-8, 9, size=shape).astype(dtype)


@pytest.mark.parametrize("target", targets())
def test_reduce_without_where_matches_numpy(add, rng, target):
    x = integers(rng, (7, 301))
    for axis in (0, 1, -1, None, (0, 1), ()):
        np.testing.assert_array_equal(add.reduce(x, axis=axis, target=target), np.add.reduce(x, axis=axis))
    np.testing.assert_array_equal(add.reduce(x, target=target), np.add.reduce(x))  # axis=0, as NumPy
    np.testing.assert_array_equal(add.reduce(x, axis=1, keepdims=True, initial=5.0, target=target),
                                  np.add.reduce(x, axis=1, keepdims=True, initial=5.0))


@pytest.mark.parametrize("target", targets())
@pytest.mark.parametrize("mask_shape", [(9, 301), (1, 301), (9, 1), (301,), ()])
def test_where_matches_numpy(add, rng, target, mask_shape):
    x = integers(rng, (9, 301))[:, ::-1]  # a reversed view
    mask = rng.random(mask_shape) < 0.5
    for axis in (0, 1, None, (0, 1), ()):
        for keepdims in (False, True):
            for initial in (None, 100.0):
                kw = dict(axis=axis, keepdims=keepdims, where=mask)
                if initial is not None:
                    kw["initial"] = initial
                want = np.add.reduce(x, **kw)
                got = add.reduce(x, target=target, **kw)
                assert np.shape(got) == np.shape(want), (axis, keepdims)
                np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("target", targets())
def test_where_dtype_out_and_empty(add, rng, target):
    # int8 summed into int64 under a mask: exact, where int8 would wrap.
    b = rng.integers(-100, 101, size=(3, 4000)).astype(np.int8)
    mask = rng.random((1, 4000)) < 0.5
    got = add.reduce(b, axis=1, dtype=np.int64, where=mask, target=target)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.add.reduce(b, axis=1, dtype=np.int64, where=mask))
    # out=: a poisoned strided column; the call returns it.
    x = integers(rng, (7, 300), np.float64)
    rows = rng.random((7, 1)) < 0.5
    buf = np.full((7, 3), np.nan)
    col = buf[:, 1]
    assert add.reduce(x, axis=1, out=col, where=rows, target=target) is col
    np.testing.assert_array_equal(col, np.add.reduce(x, axis=1, where=rows))
    assert np.isnan(buf[:, 0]).all() and np.isnan(buf[:, 2]).all()
    # All false: the identity, or initial; an empty axis; a 0-d result is a NumPy scalar.
    none = np.zeros((7, 300), dtype=bool)
    np.testing.assert_array_equal(add.reduce(x, axis=1, where=none, target=target), np.zeros(7))
    np.testing.assert_array_equal(add.reduce(x, axis=1, where=none, initial=-2.0, target=target), np.full(7, -2.0))
    np.testing.assert_array_equal(add.reduce(np.ones((3, 0)), axis=1, where=np.ones((3, 0), bool), target=target),
                                  np.zeros(3))
    total = add.reduce(x, axis=None, where=rows, target=target)
    assert np.isscalar(total) and total == np.add.reduce(x, axis=None, where=rows)
    assert add.reduce(x, axis=None, where=False, target=target) == 0.0


@pytest.mark.parametrize("target", targets())
def test_all_true_gives_the_bits_of_no_mask(add, rng, target):
    x = rng.standard_normal((300, 2000)).astype(np.float32)
    for view in (x, x.T, x[::-1, ::-1]):
        for axis in (0, 1, None):
            plain = add.reduce(view, axis=axis, target=target)
            masked = add.reduce(view, axis=axis, where=np.ones(view.shape, bool), target=target)
            assert np.asarray(plain).tobytes() == np.asarray(masked).tobytes()
            assert add.reduce(view, axis=axis, where=True, target=target).tobytes() == np.asarray(plain).tobytes()


def test_where_errors(add, maximum):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(jitvec.ArgumentError, match="where= needs the ufunc's identity: masked elements take its "
                                                   "value, and 'rwp_max' declares none"):
        maximum.reduce(x, axis=1, where=np.ones((2, 3), bool), initial=0.0, target="cpu")
    with pytest.raises(jitvec.ArgumentError, match="where= must be a bool array"):
        add.reduce(x, axis=1, where=np.ones((2, 3), np.int32), target="cpu")
    with pytest.raises(jitvec.BroadcastError,
                       match=r"where= of shape \(3, 2\) does not broadcast to the input's shape \(2, 3\)"):
        add.reduce(x, axis=1, where=np.ones((3, 2), bool), target="cpu")
    with pytest.raises(jitvec.ArgumentError, match="axis 2 is out of bounds"):
        add.reduce(x, axis=2, target="cpu")


def test_identity_survives_pickle(add):
    again = pickle.loads(pickle.dumps(add))
    assert again._state()[7] == 0.0
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    mask = np.array([[True, False, True], [False, False, False]])
    np.testing.assert_array_equal(again.reduce(x, axis=1, where=mask, target="cpu"), [2.0, 0.0])


@pytest.mark.skipif(gpu_count() == 0, reason="no usable GPU")
def test_where_with_cupy_and_torch(add, rng):
    x = integers(rng, (33, 517))
    mask = rng.random((33, 517)) < 0.5
    want = np.add.reduce(x, axis=1, where=mask)
    try:
        import cupy as cp
    except ImportError:
        cp = None
    if cp is not None:
        got = add.reduce(cp.asarray(x), axis=1, where=cp.asarray(mask))
        assert isinstance(got, cp.ndarray)
        np.testing.assert_array_equal(cp.asnumpy(got), want)
        # a host mask with a CuPy input: the result is CuPy
        np.testing.assert_array_equal(cp.asnumpy(add.reduce(cp.asarray(x), axis=1, where=mask)), want)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        got = add.reduce(torch.from_numpy(x).cuda(), axis=1, where=torch.from_numpy(mask).cuda())
        assert isinstance(got, torch.Tensor) and got.is_cuda
        np.testing.assert_array_equal(got.cpu().numpy(), want)
