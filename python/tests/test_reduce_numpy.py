"""Ufunc.reduce against NumPy's ufunc.reduce with every option (issue 25), on every dtype the
ufuncs' loops allow and every target this machine has: axis an int, a tuple or None, keepdims,
initial at each dtype's limits (int64 min and max, uint64 max, 2**53 + 1, bool, complex),
where=, dtype=, out= (poisoned, strided), and empty axes.

Each case is drawn at random (the seed is printed: pytest shows it on failure). Integers use
their whole range (sums wrap alike in any order); floats and complex parts are small integers,
so sums are exact in any order and every comparison is exact. The reference is NumPy given the
accumulator jitvec uses (jitvec reduces int8 in int8 where NumPy's add.reduce takes int64: a
difference by design, README "Reductions"), and NumPy's logical_or for bool (NumPy's add on bool
is logical or, but its add.reduce counts in int64)."""
import numpy as np
import pytest

import jitvec
from conftest import targets

INTS = ["uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64"]
FLOATS = ["float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
# Unsigned first: each dtype takes its own loop (the first one it casts to safely).
ADD_TYPES = INTS + FLOATS + COMPLEX
MAX_TYPES = INTS + FLOATS

ADD = "template <typename T> __device__ T rn_add(T a, T b) { return a + b; }"
MAX = "template <typename T> __device__ T rn_max(T a, T b) { return a > b ? a : b; }"
OR = "__device__ bool rn_or(bool a, bool b) { return a || b; }"


@pytest.fixture(scope="module")
def ufuncs():
    add = jitvec.vectorize([f"{t}({t}, {t})" for t in ADD_TYPES], ADD, name="rn_add", identity=0)
    maximum = jitvec.vectorize([f"{t}({t}, {t})" for t in MAX_TYPES], MAX, name="rn_max")  # no identity
    logical_or = jitvec.vectorize(["bool(bool, bool)"], OR, name="rn_or", identity=False)
    return {"add": (add, np.add), "max": (maximum, np.maximum), "or": (logical_or, np.logical_or)}


def random_values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.3
    if dtype.kind in "ui":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    if dtype.kind == "c":
        return (rng.integers(-8, 9, size=shape) + 1j * rng.integers(-8, 9, size=shape)).astype(dtype)
    return rng.integers(-8, 9, size=shape).astype(dtype)


def limit_initials(name, dtype):
    """The initial values worth trying for (ufunc, dtype): the dtype's limits and values float64
    cannot carry, each exact in the accumulator."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return [False, True]
    if dtype.kind in "ui":
        info = np.iinfo(dtype)
        values = [int(info.min), int(info.max), 0]
        if dtype.itemsize == 8:
            values.append(2**53 + 1)
            values.append(24792579599853831)
        return values
    if dtype.kind == "c":
        return [0.5 - 0.25j, 1 + 0j, 3]
    if name == "max":
        return [-np.inf, np.inf, 0.5]
    return [0.5, -3, 1e4 if dtype != np.float16 else 100.0]


def random_axis(rng, ndim):
    pick = rng.integers(0, 4)
    if pick == 0 or ndim == 0:
        return None
    if pick == 1:
        return int(rng.integers(-ndim, ndim))
    axes = [d for d in range(ndim) if rng.random() < 0.5]
    return tuple(d - ndim if rng.random() < 0.5 else d for d in axes)  # may be () and negative


def random_shape(rng):
    ndim = int(rng.integers(0, 4))
    shape = [int(rng.integers(1, 7)) for _ in range(ndim)]
    if ndim and rng.random() < 0.25:
        shape[int(rng.integers(0, ndim))] = 0  # an empty axis
    return tuple(shape)


def reduced_shape(shape, axis, keepdims):
    ndim = len(shape)
    axes = range(ndim) if axis is None else [a % ndim for a in ((axis,) if isinstance(axis, int) else axis)]
    return tuple(1 if d in axes else s for d, s in enumerate(shape) if keepdims or d not in axes)


def wider(dtype):
    """A wider dtype of the same kind that the loops have (dtype= and out=), or dtype itself."""
    order = {"int8": "int64", "int16": "int32", "uint8": "uint32", "uint16": "uint64", "float16": "float32",
             "float32": "float64", "complex64": "complex128"}
    return np.dtype(order.get(np.dtype(dtype).name, np.dtype(dtype).name))


def check_case(rng, target, name, ufunc, reference, dtype):
    shape = random_shape(rng)
    x = random_values(rng, shape, dtype)
    if x.ndim >= 1 and rng.random() < 0.3:
        x = np.flip(x, axis=int(rng.integers(0, x.ndim)))  # a negative stride
    if x.ndim >= 2 and rng.random() < 0.3:
        x = x.T  # strides in reverse order
    shape = x.shape
    axis = random_axis(rng, x.ndim)
    keepdims = bool(rng.random() < 0.5)
    kw = dict(axis=axis, keepdims=keepdims)
    acc = np.dtype(dtype)
    if name != "or" and rng.random() < 0.3:
        acc = wider(dtype)
        kw["dtype"] = acc
    if rng.random() < 0.5:
        kw["initial"] = limit_initials(name, acc)[int(rng.integers(0, len(limit_initials(name, acc))))]
    if name != "max" and rng.random() < 0.4:  # where= needs an identity (README)
        mask_shape = tuple(s if rng.random() < 0.7 else 1 for s in shape)
        kw["where"] = rng.random(mask_shape) < 0.5
    out_shape = reduced_shape(shape, axis, keepdims)
    description = f"{name} {dtype} shape {shape} strides {x.strides} {kw} on {target}"

    try:
        want = reference.reduce(x, **{**kw, "dtype": acc})
    except ValueError as e:  # an empty reduction with no identity and no initial
        assert "identity" in str(e), description
        with pytest.raises(jitvec.ArgumentError, match="needs an identity"):
            ufunc.reduce(x, target=target, **kw)
        return
    got = ufunc.reduce(x, target=target, **kw)
    assert np.shape(got) == np.shape(want), description
    assert np.asarray(got).dtype == np.asarray(want).dtype, description
    if np.ndim(want) == 0:
        assert isinstance(got, np.generic), description  # a NumPy scalar, as NumPy gives
    np.testing.assert_array_equal(got, want, err_msg=description)

    # out=: a poisoned, strided view of the result's shape (acc's dtype or a wider one).
    out_dtype = acc if rng.random() < 0.5 else wider(acc)
    base = np.zeros(out_shape + (2,), dtype=out_dtype)
    poison = np.ones((), dtype=out_dtype) * 7 if out_dtype != np.bool_ else True
    base[...] = poison
    out = base[..., 0]
    assert ufunc.reduce(x, target=target, out=out, **kw) is out, description
    np.testing.assert_array_equal(out, np.asarray(want).astype(out_dtype), err_msg=description)
    assert (base[..., 1] == poison).all(), description  # nothing written beside it


@pytest.mark.parametrize("target", targets())
@pytest.mark.parametrize("name, dtype", [("add", t) for t in ADD_TYPES] + [("max", t) for t in MAX_TYPES] +
                         [("or", "bool")])
def test_reduce_matches_numpy(ufuncs, rng, target, name, dtype):
    ufunc, reference = ufuncs[name]
    for _ in range(12):
        check_case(rng, target, name, ufunc, reference, dtype)


@pytest.mark.parametrize("target", targets())
def test_initial_at_each_limit_is_exact(ufuncs, rng, target):
    add, _ = ufuncs["add"]
    maximum, _ = ufuncs["max"]
    logical_or, _ = ufuncs["or"]
    for dtype in INTS:
        info = np.iinfo(dtype)
        x = random_values(rng, (5, 9), dtype)
        for initial in (int(info.min), int(info.max)):
            for axis in (0, 1, None):
                np.testing.assert_array_equal(maximum.reduce(x, axis=axis, initial=initial, target=target),
                                              np.maximum.reduce(x, axis=axis, initial=initial))
                np.testing.assert_array_equal(add.reduce(x, axis=axis, initial=initial, target=target),
                                              np.add.reduce(x, axis=axis, initial=initial, dtype=dtype))
        empty = np.zeros((0, 3), dtype)
        assert maximum.reduce(empty, axis=None, initial=int(info.max), target=target) == info.max
    # The values of issue 25: each exact, none through float64.
    zeros = np.zeros(3, np.int64)
    assert add.reduce(zeros, initial=2**53 + 1, target=target) == 9007199254740993
    assert maximum.reduce(np.array([-5, 7], np.int64), initial=24792579599853831, target=target) == 24792579599853831
    total = add.reduce(np.zeros(4, np.uint64), initial=2**64 - 1, target=target)
    assert isinstance(total, np.uint64) and total == 2**64 - 1
    assert add.reduce(np.array([1], np.uint64), initial=2**64 - 1, target=target) == 0  # wraps, as NumPy
    # bool: the result of an empty reduce is False; an initial of False or True.
    nothing = logical_or.reduce(np.zeros(0, bool), target=target)
    assert isinstance(nothing, np.bool_) and nothing == np.logical_or.reduce(np.zeros(0, bool)) == False  # noqa: E712
    some = logical_or.reduce(np.array([True, False]), initial=False, target=target)
    assert isinstance(some, np.bool_) and some == True  # noqa: E712
    # complex: exact in complex64 and complex128.
    for dtype in COMPLEX:
        z = random_values(rng, (6, 4), dtype)
        got = add.reduce(z, axis=0, initial=0.5 - 0.25j, target=target)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, np.add.reduce(z, axis=0, initial=0.5 - 0.25j))


@pytest.mark.parametrize("target", targets())
def test_initial_that_does_not_fit_is_a_jitvec_error(ufuncs, target):
    add, _ = ufuncs["add"]
    with pytest.raises(jitvec.ArgumentError,
                       match=r"the initial \(0\.5-0\.25j\) \(complex128\) does not fit the accumulator type float64: "
                             r"float64 is real, and a complex value does not cast to a real type \(NumPy's casting "
                             r"rule: numpy\.can_cast\(complex128, float64, 'safe'\) is False\)"):
        add.reduce(np.zeros(3), initial=0.5 - 0.25j, target=target)
    with pytest.raises(jitvec.ArgumentError, match=r"the initial 0\.5 \(float64\) does not fit the accumulator type "
                                                   r"int64: it is not an integer"):
        add.reduce(np.zeros(3, np.int64), initial=0.5, target=target)
    with pytest.raises(jitvec.ArgumentError, match="the initial 300 .int64. does not fit the accumulator type int8: "
                                                   r"it is outside int8's range \[-128, 127\]"):
        add.reduce(np.zeros(3, np.int8), initial=300, target=target)
    with pytest.raises(jitvec.ArgumentError, match="initial=: the integer 18446744073709551616 fits neither int64 "
                                                   "nor uint64"):
        add.reduce(np.zeros(3, np.uint64), initial=2**64, target=target)
    with pytest.raises(jitvec.ArgumentError, match="initial=: must be a number"):
        add.reduce(np.zeros(3), initial="zero", target=target)


@pytest.mark.parametrize("target", targets())
@pytest.mark.parametrize("dtype", ["int8", "uint64", "int64", "float32", "complex64"])
def test_long_reductions_match_numpy(ufuncs, rng, target, dtype):
    # Long enough for several chunks and passes; integers wrap alike in any order, and the
    # float and complex sums of small integers stay below 2**24 (exact).
    add, _ = ufuncs["add"]
    x = random_values(rng, (3, 70001), dtype)[:, ::-1]
    mask = rng.random((1, 70001)) < 0.5
    for axis in (1, None, 0):
        for initial in [None] + limit_initials("add", dtype)[:2]:
            kw = dict(axis=axis) if initial is None else dict(axis=axis, initial=initial)
            for where in (None, mask):
                if where is not None:
                    kw["where"] = where
                np.testing.assert_array_equal(add.reduce(x, target=target, **kw),
                                              np.add.reduce(x, dtype=dtype, **kw), err_msg=f"{kw}")
