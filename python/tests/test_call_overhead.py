"""The call path's fast entry (python/src/call.cpp): calls go through the Ufunc type's tp_call
slot with keywords found by name (interned or not), errors keep their classes, and the GIL
policy: a warm, short call keeps the GIL, a long call on the same key still releases it, and
an error raised while the GIL is kept leaves the next call working. Results are checked against
float64 NumPy references."""
import numpy as np
import pytest

import jitvec
from conftest import gaussian_ref as gaussian_reference, run_watching_the_gil


def test_calls_take_keywords_by_name_through_the_type_slot(add, rng):
    assert callable(add) and "__call__" in dir(type(add))
    a, b = rng.random(37), rng.random(37)
    out = np.full(37, np.nan)
    key = "".join(["o", "u", "t"])  # equal to "out", not the interned object
    assert add(a, b, **{key: out}, target="cpu") is out
    np.testing.assert_array_equal(out, a + b)
    np.testing.assert_array_equal(add.__call__(a, b, target="cpu"), a + b)
    np.testing.assert_array_equal(add(a, b, out=None, stream=None, target=None), a + b)
    with pytest.raises(TypeError, match="unexpected keyword argument 'outt'"):
        add(a, b, outt=out)
    with pytest.raises(TypeError, match="takes from 2 to 3 positional arguments but 40 were given"):
        add(*([a] * 40), target="cpu")  # as NumPy's ufuncs say it


def test_an_error_on_a_warm_short_call_keeps_the_next_call_working(add, rng):
    a, b = rng.random(16), rng.random(16)
    for _ in range(3):  # warm and short: the GIL is kept from the second call on
        np.testing.assert_array_equal(add(a, b, target="cpu"), a + b)
    with pytest.raises(jitvec.BroadcastError, match="argument 2"):
        add(a, rng.random(15), target="cpu")  # same dtypes: the same key
    with pytest.raises(jitvec.ArgumentError, match="read-only"):
        ro = np.zeros(16)
        ro.flags.writeable = False
        add(a, b, out=ro, target="cpu")
    out = np.full(16, np.nan)
    assert add(a, b, out=out, target="cpu") is out
    np.testing.assert_array_equal(out, a + b)


def test_a_long_call_on_a_warm_key_still_releases_the_gil(gaussian, rng):
    small = rng.random(64)
    np.testing.assert_allclose(gaussian(small, 0.5, 2.0, target="cpu"), gaussian_reference(small, 0.5, 2.0),
                               rtol=1e-12)
    big = rng.random(1 << 24)  # the same key (float64 array, two floats, cpu), far past short
    y, seconds, max_gap = run_watching_the_gil(lambda: gaussian(big, 0.5, 2.0, target="cpu"))
    sample = slice(0, None, 4099)
    np.testing.assert_allclose(y[sample], gaussian_reference(big[sample], 0.5, 2.0), rtol=1e-12)
    assert seconds > 0.05, "the call was too quick to tell"
    assert max_gap < 0.5 * seconds, (max_gap, seconds)


def test_warm_calls_with_other_dtypes_and_outputs_stay_right(add, rng):
    for dtype in (np.int16, np.float32, np.uint8, np.float64):
        a = (rng.random(33) * 50).astype(dtype)
        b = (rng.random(33) * 50).astype(dtype)
        expected = (a.astype(np.float64) + b.astype(np.float64)).astype(dtype)
        for _ in range(3):
            np.testing.assert_array_equal(add(a, b, target="cpu"), expected)
            out = np.zeros(33, dtype)
            assert add(a, b, out=out, target="cpu") is out
            np.testing.assert_array_equal(out, expected)
        np.testing.assert_array_equal(add(a, 3, target="cpu"), (a.astype(np.float64) + 3).astype(dtype))
