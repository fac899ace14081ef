"""Ufuncs with several outputs from Python: a call returns a tuple with one array per output,
out= takes a tuple (one array per output, each with its own dtype and strides), on every
target this machine has (and CuPy arrays on the GPU when CuPy is installed); values against
NumPy float64 references, out= buffers poisoned."""
import numpy as np
import pytest

import jitvec
from conftest import targets

POLAR_SOURCE = """
template <typename T> void py_polar(T r, T theta, T& x, T& y) {
    x = r * cos(theta);
    y = r * sin(theta);
}
"""


@pytest.fixture(scope="module")
def polar():
    return jitvec.vectorize(["(float32, float32)(float32, float32)", "(float64, float64)(float64, float64)"],
                            POLAR_SOURCE, "py_polar")


@pytest.fixture(scope="module")
def split3():
    return jitvec.vectorize(["(float64, int32, float32)(float64, float64)"], """
void py_split3(double a, double b, double& q, int& s, float& f) {
    q = floor(a / b);
    s = a < b ? -1 : (a > b ? 1 : 0);
    f = static_cast<float>(a - q * b);
}""", "py_split3")


def polar_ref(r, theta):
    r, theta = np.asarray(r, np.float64), np.asarray(theta, np.float64)
    return r * np.cos(theta), r * np.sin(theta)


@pytest.mark.parametrize("target", targets())
def test_two_outputs_return_a_tuple(polar, rng, target):
    assert polar.nin == 2 and polar.nout == 2
    r = rng.uniform(0, 10, size=10007).astype(np.float32)
    theta = rng.uniform(-np.pi, np.pi, size=10007).astype(np.float32)
    result = polar(r, theta, target=target)
    assert isinstance(result, tuple) and len(result) == 2
    x, y = result
    assert x.dtype == np.float32 and y.dtype == np.float32 and x.shape == r.shape
    xr, yr = polar_ref(r, theta)
    np.testing.assert_allclose(x, xr, atol=5e-5)
    np.testing.assert_allclose(y, yr, atol=5e-5)


@pytest.mark.parametrize("target", targets())
def test_broadcast_strided_scalar(polar, rng, target):
    r = rng.uniform(0, 10, size=(37, 1))            # float64
    theta = rng.uniform(-np.pi, np.pi, size=(2, 53))[:, ::-1][1]  # reversed view
    x, y = polar(r, theta, target=target)
    xr, yr = polar_ref(r, theta)
    assert x.shape == (37, 53) and x.dtype == np.float64
    np.testing.assert_allclose(x, xr, atol=1e-12)
    np.testing.assert_allclose(y, yr, atol=1e-12)
    x, y = polar(2.5, theta.astype(np.float32), target=target)  # weak scalar: float32 loop
    assert x.dtype == np.float32
    np.testing.assert_allclose(y, 2.5 * np.sin(theta.astype(np.float32).astype(np.float64)), atol=5e-6)


@pytest.mark.parametrize("target", targets())
def test_out_tuple_with_own_dtypes_and_strides(split3, rng, target):
    a = rng.uniform(-50, 50, size=(64, 48))
    b = rng.uniform(0.5, 7, size=48)
    q = np.full((64, 96), np.nan)[:, ::2]              # stepped float64
    s = np.full((48, 64), -7, dtype=np.int64).T        # transposed, int32 -> int64
    f = np.full((64, 48), np.nan, dtype=np.float64)    # float32 -> float64
    result = split3(a, b, out=(q, s, f), target=target)
    assert result[0] is q and result[1] is s and result[2] is f
    qr = np.floor(a / b)
    np.testing.assert_array_equal(q, qr)
    np.testing.assert_array_equal(s, np.sign(a - b).astype(np.int64))
    np.testing.assert_allclose(f, (a - qr * b).astype(np.float32), rtol=1e-6, atol=1e-5)
    base = q.base if q.base is not None else q
    assert np.isnan(base[:, 1::2]).all()  # the gaps of the stepped out= stay poisoned


@pytest.mark.parametrize("target", targets())
def test_in_place_and_alias_rules(polar, rng, target):
    r = rng.uniform(0, 10, size=5000).astype(np.float32)
    theta = rng.uniform(-np.pi, np.pi, size=5000).astype(np.float32)
    xr, yr = polar_ref(r, theta)
    x, y = polar(r, theta, out=(r, theta), target=target)  # each output exactly an input
    assert x is r and y is theta
    np.testing.assert_allclose(r, xr, atol=5e-5)
    np.testing.assert_allclose(theta, yr, atol=5e-5)
    buf = np.zeros(10001, dtype=np.float32)
    with pytest.raises(jitvec.ArgumentError, match="out= of output 1 and out= of output 2 share memory"):
        polar(r, theta, out=(buf[:5000], buf[4999:9999]), target=target)


def test_errors(polar):
    r = np.ones(10, np.float32)
    with pytest.raises(jitvec.ArgumentError, match=r"has 2 outputs, but out= gives 1 array \(pass a tuple"):
        polar(r, r, out=np.empty(10, np.float32), target="cpu")
    with pytest.raises(jitvec.ArgumentError, match="returns float32 as output 2, which does not cast to int32"):
        polar(r, r, out=(np.empty(10, np.float32), np.empty(10, np.int32)), target="cpu")


def test_one_output_takes_a_one_tuple(rng):
    add = jitvec.vectorize(["float64(float64, float64)"], "double py_add1(double a, double b) { return a + b; }",
                           "py_add1")
    assert add.nout == 1
    a = rng.uniform(size=9)
    out = np.empty(9)
    assert add(a, a, out=(out,), target="cpu") is out
    np.testing.assert_array_equal(out, 2 * a)


def test_cupy_outputs_on_the_gpu(polar, rng):
    cp = pytest.importorskip("cupy")
    if jitvec.cuda_device_count() == 0:
        pytest.skip("no GPU")
    r = rng.uniform(0, 10, size=1 << 20).astype(np.float32)
    theta = rng.uniform(-np.pi, np.pi, size=1 << 20).astype(np.float32)
    x, y = polar(cp.asarray(r), cp.asarray(theta))
    assert isinstance(x, cp.ndarray) and isinstance(y, cp.ndarray)
    xr, yr = polar_ref(r, theta)
    np.testing.assert_allclose(cp.asnumpy(x), xr, atol=5e-5)
    np.testing.assert_allclose(cp.asnumpy(y), yr, atol=5e-5)
    ox, oy = cp.full(r.shape, cp.nan, cp.float64), cp.full(r.shape, cp.nan, cp.float32)
    rx, ry = polar(cp.asarray(r), cp.asarray(theta), out=(ox, oy))
    assert rx is ox and ry is oy
    np.testing.assert_allclose(cp.asnumpy(ox), xr, atol=5e-5)
