"""float16 and complex64/complex128 from Python: NumPy arrays in and out on every target this
machine has, Python complex scalars as weak complex scalars, values against float64/complex128
references. (bfloat16 is NumPy's through ml_dtypes only: test_results_like_numpy.py tests it
with ml_dtypes and without.)"""
import numpy as np
import pytest

import jitvec
from conftest import targets

HALF_SOURCE = """
template <class T> T half_gauss(T x, T mean, T sigma) {
    const float z = (float(x) - float(mean)) / float(sigma);
    return T(expf(-0.5f * z * z) / (float(sigma) * 2.5066282746310002f));
}
"""
ZZ_SOURCE = "template <class Z> Z zz(Z z, Z c) { return z * conj(z) + c; }"


@pytest.mark.parametrize("target", targets())
def test_float16_gaussian(rng, target):
    f = jitvec.vectorize(["float16(float16, float16, float16)"], HALF_SOURCE, name="half_gauss")
    x = rng.uniform(-4, 4, size=10007).astype(np.float16)
    y = f(x, 0.5, 1.25, target=target)
    assert isinstance(y, np.ndarray) and y.dtype == np.float16 and y.shape == x.shape
    xd = x.astype(np.float64)
    want = np.exp(-0.5 * ((xd - 0.5) / 1.25) ** 2) / (1.25 * np.sqrt(2 * np.pi))
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=2.0 ** -10, atol=1e-7)


@pytest.mark.parametrize("target", targets())
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_with_a_weak_complex_scalar(rng, target, dtype):
    f = jitvec.vectorize(["complex64(complex64, complex64)", "complex128(complex128, complex128)"],
                         ZZ_SOURCE, name="zz")
    z = (rng.uniform(-3, 3, 5003) + 1j * rng.uniform(-3, 3, 5003)).astype(dtype)
    out = np.full(z.shape, np.nan, dtype=dtype)  # poisoned
    r = f(z, 0.25 - 0.5j, out=out, target=target)
    assert r is out
    zd = z.astype(np.complex128)
    tol = 1e-6 if dtype == "complex64" else 1e-14
    np.testing.assert_allclose(out, zd * np.conj(zd) + (0.25 - 0.5j), rtol=tol, atol=tol * 20)


def test_float16_overflowing_scalar_is_an_error(rng):
    f = jitvec.vectorize(["float16(float16, float16, float16)"], HALF_SOURCE, name="half_gauss")
    with pytest.raises(Exception, match="cannot be represented as float16"):
        f(np.zeros(4, dtype=np.float16), 1e5, 1.0, target="cpu")
