"""NumPy's float bits on every target for arithmetic-only ufuncs (issue 25).

By default no compiler contracts ``a * b + c`` into one FMA (NVRTC ``-fmad=false``, the host
compilers ``-ffp-contract=off``), so +, -, *, / and their mixes give the bits NumPy gives, on
cpu, parallel and (with a GPU) cuda. Fresh random inputs, spread over many binades, with the
special values mixed in; outputs poisoned first, so an unwritten element shows.
"""
import numpy as np
import pytest

import jitvec
from conftest import targets

MUL_ADD = "template <typename T> __device__ T fb_mul_add(T a, T b, T c) { return a * b + c; }"
MIXED = """
template <typename T> __device__ T fb_mixed(T a, T b, T c) {
    const T d = a * b - c * a;
    return d / (b * b + T(1)) + a * c;
}
"""
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -1e-42, 3.4e38, -1.7e308]


@pytest.fixture(scope="module")
def ufuncs():
    signatures = ["float32(float32, float32, float32)", "float64(float64, float64, float64)"]
    return (jitvec.vectorize(signatures, MUL_ADD, "fb_mul_add"),
            jitvec.vectorize(signatures, MIXED, "fb_mixed"))


def numpy_mul_add(a, b, c):
    return a * b + c


def numpy_mixed(a, b, c):
    one = a.dtype.type(1)
    with np.errstate(all="ignore"):
        return (a * b - c * a) / (b * b + one) + a * c


def random_inputs(rng, dtype, n):
    """Mantissas in [1, 2) times powers of two over a wide range, random signs, specials."""
    span = 60 if dtype == np.float32 else 400
    out = []
    for _ in range(3):
        x = (rng.uniform(1, 2, n) * np.exp2(rng.integers(-span, span, n))
             * rng.choice([-1.0, 1.0], n)).astype(dtype)
        with np.errstate(over="ignore"):  # -1.7e308 is -inf in float32, as meant
            specials = np.array(SPECIALS, dtype=np.float64).astype(dtype)
        x[rng.integers(0, n, 16)] = specials[rng.integers(0, len(SPECIALS), 16)]
        out.append(x)
    return out


def same_bits(got, want):
    """Equal bit for bit, every NaN counting as equal to every NaN (payloads may differ)."""
    both_nan = np.isnan(got) & np.isnan(want)
    view = np.uint32 if got.dtype == np.float32 else np.uint64
    return (both_nan | (got.view(view) == want.view(view))).all()


@pytest.mark.parametrize("target", targets())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_arithmetic_gives_numpys_bits(ufuncs, rng, target, dtype):
    n = 20000
    a, b, c = random_inputs(rng, dtype, n)
    for ufunc, reference in zip(ufuncs, (numpy_mul_add, numpy_mixed)):
        with np.errstate(all="ignore"):
            want = reference(a, b, c)
        out = np.full(n, np.nan, dtype)
        out[::2] = 12345.0  # poison: neither NaN alone nor a value the ufunc gives
        ufunc(a, b, c, out=out, target=target)
        differ = np.flatnonzero(~(np.isnan(out) & np.isnan(want)) & (out != want)
                                | (np.signbit(out) != np.signbit(want)))
        assert same_bits(out, want), (
            f"{reference.__name__} on {target}, {dtype.__name__}: {differ.size} of {n} elements "
            f"differ from NumPy, first at {differ[:5]}: {out[differ[:5]]} against {want[differ[:5]]}")
        # A scalar operand: the loop with the pattern fixed gives the same bits.
        with np.errstate(all="ignore"):
            want_scalar = reference(a, dtype(b[1]), dtype(c[2]))
        got_scalar = np.asarray(ufunc(a, dtype(b[1]), dtype(c[2]), target=target))
        assert same_bits(got_scalar, want_scalar)
