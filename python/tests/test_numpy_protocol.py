"""The whole ufunc from Python, against NumPy: accumulate, outer, at, gufuncs, fuse, NumPy's
keywords and attributes, NEP 13 dispatch (Dask lazy, xarray coords, pandas index), threads,
compile errors at the .py line. cpu and parallel targets, fresh random inputs, poisoned outputs."""
import os

import numpy as np
import pytest

import jitvec

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGETS = ["cpu", "parallel"]


@pytest.fixture(scope="module")
def add():
    return jitvec.vectorize(["int64(int64, int64)", "float32(float32, float32)", "float64(float64, float64)"],
                            "template <class T> T np_add(T a, T b) { return a + b; }", name="np_add",
                            identity=0)


@pytest.fixture(scope="module")
def mul():
    return jitvec.vectorize(["int64(int64, int64)", "float64(float64, float64)"],
                            "template <class T> T np_mul(T a, T b) { return a * b; }", name="np_mul",
                            identity=1)


@pytest.mark.parametrize("target", TARGETS)
def test_accumulate_matches_numpy_on_every_axis(add, mul, rng, target):
    x = rng.random((5, 7, 3))
    for axis in (0, 1, 2, -1):
        np.testing.assert_allclose(add.accumulate(x, axis=axis, target=target), np.add.accumulate(x, axis=axis),
                                   rtol=1e-13)
    i = rng.integers(-5, 5, (4, 9))
    np.testing.assert_array_equal(mul.accumulate(i, axis=1, target=target), np.multiply.accumulate(i, axis=1))
    out = np.full((4, 9), -7, np.int64)
    assert add.accumulate(i, axis=0, out=out, target=target) is out
    np.testing.assert_array_equal(out, np.add.accumulate(i, axis=0))


@pytest.mark.parametrize("target", TARGETS)
def test_outer_matches_numpy(add, mul, rng, target):
    a, b = rng.random((3, 2)), rng.random(5)
    np.testing.assert_allclose(add.outer(a, b, target=target), np.add.outer(a, b), rtol=1e-15)
    out = np.full((3, 2, 5), np.nan)
    assert mul.outer(a, b, out=out, target=target) is out
    np.testing.assert_allclose(out, np.multiply.outer(a, b), rtol=1e-15)
    assert add.outer(a.astype(np.float32), b.astype(np.float32), dtype=np.float32, target=target).dtype == np.float32


@pytest.mark.parametrize("target", TARGETS)
def test_at_counts_every_repeated_index_as_numpy(add, rng, target):
    idx = rng.integers(0, 10, 200)
    got, want = np.zeros(10), np.zeros(10)
    add.at(got, idx, 1.0, target=target)
    np.add.at(want, idx, 1.0)
    np.testing.assert_array_equal(got, want)
    # Index expressions NumPy takes: a tuple of index arrays, a slice, a boolean mask, negatives.
    a = rng.random((4, 6))
    for index in [(np.array([0, 0, 3]), np.array([1, 1, 5])), (slice(1, 3), [0, 0, 2]),
                  a > 0.5, np.array([-1, -1, 0])]:
        got, want = a.copy(), a.copy()
        b = rng.random(np.empty(a.shape)[index].shape)
        add.at(got, index, b, target=target)
        np.add.at(want, index, b)
        np.testing.assert_allclose(got, want, rtol=1e-15)
    t = a.T.copy().T  # not C-contiguous
    got, want = t.copy(order="F"), t.copy()
    add.at(got, (np.array([1, 1]), np.array([2, 2])), 5.0, target=target)
    np.add.at(want, (np.array([1, 1]), np.array([2, 2])), 5.0)
    np.testing.assert_array_equal(got, want)


def test_numpy_keywords_positional_out_where_dtype_casting(add, rng):
    a, b = rng.random(11), rng.random(11)
    out = np.full(11, np.nan)
    assert add(a, b, out, target="cpu") is out  # out by position
    np.testing.assert_array_equal(out, a + b)
    out = np.full(11, -1.0)
    mask = rng.random(11) > 0.5
    add(a, b, out=out, where=mask, target="cpu")
    np.testing.assert_array_equal(out, np.where(mask, a + b, -1.0))
    i = rng.integers(0, 100, 11)
    r = add(i, i, dtype=np.float32, target="cpu")  # the float32 loop, int64 cast same_kind
    assert r.dtype == np.float32
    np.testing.assert_array_equal(r, (i + i).astype(np.float32))
    with pytest.raises(jitvec.ArgumentError, match="casting='no'"):
        add(a.astype(np.float32), b, casting="no", target="cpu")
    got = add(a, b, dtype=np.int64, casting="unsafe", target="cpu")  # NumPy's own cast first
    np.testing.assert_array_equal(got, np.add(a, b, dtype=np.int64, casting="unsafe"))
    with pytest.raises(TypeError, match="unexpected keyword argument 'axes'"):
        add(a, b, axes=[0])
    with pytest.raises(ValueError, match="casting must be one of"):
        add(a, b, casting="whatever")


def test_numpy_attributes(add):
    assert (add.nin, add.nout, add.nargs, add.ntypes) == (2, 1, 3, 3)
    assert add.types in (["ll->l", "ff->f", "dd->d"], ["qq->q", "ff->f", "dd->d"])
    assert add.identity == 0 and add.signature is None and add.__name__ == "np_add"
    assert add.resolve_dtypes((np.int64, np.int64, None)) == (np.dtype("int64"),) * 3


def test_gufunc_from_python_against_einsum(rng):
    dot = jitvec.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()", """
    __device__ void py_dot(jitvec::View<const double, 1> a, jitvec::View<const double, 1> b,
                           jitvec::View<double, 0> out) {
      double s = 0;
      for (long long i = 0; i < a.size(); ++i) s += a[i] * b[i];
      out() = s;
    }""", name="py_dot", target="cpu")
    assert isinstance(dot, jitvec.Gufunc) and dot.signature == "(n),(n)->()" and dot.nin == 2
    a, b = rng.random((6, 4, 9)), rng.random((4, 9))
    np.testing.assert_allclose(dot(a, b), np.einsum("...i,...i->...", a, b), rtol=1e-13)
    out = np.full((6, 4), np.nan)
    assert dot(a, b, out=out) is out
    np.testing.assert_allclose(out, np.einsum("...i,...i->...", a, b), rtol=1e-13)
    import pickle
    again = pickle.loads(pickle.dumps(dot))
    np.testing.assert_allclose(again(a, b), out, rtol=0)


def test_fuse_and_load_definitions_return_every_object(rng):
    defined = jitvec.load_definitions(os.path.join(REPO, "samples", "gufuncs.toml"))
    assert defined and any(isinstance(v, jitvec.Gufunc) for v in defined.values())
    f = jitvec.vectorize("float64(float64, float64)", "double fz_f(double a, double b) { return a - b; }",
                         name="fz_f", target="cpu")
    g = jitvec.vectorize("float64(float64)", "double fz_g(double a) { return a * a; }", name="fz_g",
                         target="cpu")
    fused = jitvec.fuse("fz_fg", "fz_g(fz_f(x, y))", target="cpu")
    x, y = rng.random(33), rng.random(33)
    np.testing.assert_array_equal(fused(x, y), g(f(x, y)))
    assert fused.expression == "fz_g(fz_f(x, y))"
    import pickle
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(fused))(x, y), g(f(x, y)))


def test_dask_stays_lazy_and_runs_per_chunk(add, rng):
    da = pytest.importorskip("dask.array")
    import dask
    x = rng.random(1000)
    dx = da.from_array(x, chunks=100)
    calls = []
    with dask.config.set(scheduler="sync"):
        y = add(dx, 2.0)  # Dask's elemwise passes no keywords of jitvec's own
        assert isinstance(y, da.Array) and y.npartitions == 10
        before = jitvec.engine_stats()["calls"]
        np.testing.assert_array_equal(y.compute(), x + 2.0)
        calls.append(jitvec.engine_stats()["calls"] - before)
    assert calls[0] == 10  # one jitvec call per chunk, at compute()
    # Dask serves only its own ufuncs' methods (NumPy's rule: NotImplemented, a TypeError).
    with pytest.raises(TypeError, match="NotImplemented"):
        add.reduce(dx)


def test_xarray_keeps_coords_and_pandas_its_index(add, rng):
    xr = pytest.importorskip("xarray")
    pd = pytest.importorskip("pandas")
    v = rng.random(4)
    arr = xr.DataArray(v, dims=["t"], coords={"t": [10, 20, 30, 40]}, attrs={"units": "m"})
    r = add(arr, 1.0, target="cpu")
    assert isinstance(r, xr.DataArray) and list(r.coords["t"].values) == [10, 20, 30, 40]
    assert r.attrs == {"units": "m"}
    np.testing.assert_array_equal(r.values, v + 1.0)
    s = pd.Series(v, index=list("abcd"))
    r = add(s, s, target="cpu")
    assert isinstance(r, pd.Series) and list(r.index) == list("abcd")
    np.testing.assert_array_equal(r.values, v + v)


def test_set_num_threads_bounds_parallel(add, rng):
    most = jitvec.get_max_threads()
    jitvec.set_num_threads(1)
    try:
        assert jitvec.get_num_threads() == 1
        x = rng.random(1 << 16)
        np.testing.assert_array_equal(add(x, x, target="parallel"), x + x)
        with pytest.raises(jitvec.ArgumentError, match="between 1 and"):
            jitvec.set_num_threads(most + 1)
    finally:
        jitvec.set_num_threads(most)


def test_compile_errors_name_the_python_file_and_line(rng):
    source = """
double py_line_bad(double a) {
  return a + undefined_name;
}"""
    f = jitvec.vectorize("float64(float64)", source, name="py_line_bad", target="cpu")
    with pytest.raises(jitvec.CompileError) as e:
        f(rng.random(3))
    here = os.path.abspath(__file__)
    with open(here) as text:
        line = next(i for i, l in enumerate(text, 1) if "return a + undefined_name;" in l)
    assert f"{here}:{line}" in str(e.value) or f"{__file__}:{line}" in str(e.value)
    with pytest.raises(jitvec.CompileError):  # eager: at definition
        jitvec.vectorize("float64(float64)", source.replace("py_line_bad", "py_line_bad2"), name="py_line_bad2",
                         target="cpu", eager=True)


def test_messages_use_python_spellings(add):
    with pytest.raises(jitvec.Error) as e:
        add.reduce(np.zeros((0,), np.float64), axis=0, initial=0.5j, target="cpu")
    assert "::" not in str(e.value)


def test_capture_needs_a_stream_and_a_gpu(add):
    with pytest.raises(jitvec.ArgumentError, match="stream= is needed"):
        jitvec.capture(lambda: None)
    if jitvec.cuda_device_count() == 0:
        with pytest.raises(jitvec.TargetError):
            jitvec.capture(lambda: None, stream=1)
