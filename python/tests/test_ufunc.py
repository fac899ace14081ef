"""jitvec from Python with NumPy arrays: values against float64 references on every target this
machine has, layouts (strided, negative strides, broadcasting, 0-d, empty), out=, scalars,
definitions (helpers, definition files), errors as Python exceptions, and the GIL released
while jitvec compiles."""
import os

import numpy as np
import pytest

import jitvec
from conftest import gaussian_ref, run_watching_the_gil, targets

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("target", targets())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gaussian_matches_float64_reference(gaussian, rng, target, dtype):
    x = rng.uniform(-5, 5, size=10007).astype(dtype)
    mean, sigma = float(rng.uniform(-1, 1)), float(rng.uniform(0.5, 2))
    y = gaussian(x, mean, sigma, target=target)
    assert isinstance(y, np.ndarray) and y.dtype == dtype and y.shape == x.shape
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y, gaussian_ref(x, mean, sigma), rtol=tol, atol=tol * 1e-3)


@pytest.mark.parametrize("target", targets())
def test_strided_negative_and_broadcast_views(add, rng, target):
    base = rng.uniform(-100, 100, size=(40, 30)).astype(np.float32)
    x = base[::-3, 1::2]            # negative and gapped strides
    y = base[:14, :15].T.T[:, ::-1]  # reversed columns
    col = rng.uniform(-1, 1, size=(14, 1)).astype(np.float32)
    out = np.full(x.shape, np.nan, dtype=np.float32)  # poisoned
    r = add(x, y, out=out, target=target)
    assert r is out
    np.testing.assert_array_equal(out, (x.astype(np.float64) + y).astype(np.float32))
    z = add(x, col, target=target)
    np.testing.assert_array_equal(z, (x.astype(np.float64) + col).astype(np.float32))
    t = add(base.T, base.T, target=target)  # transposed input
    np.testing.assert_array_equal(t, base.T * 2)


@pytest.mark.parametrize("target", targets())
def test_zero_d_empty_and_scalars_only(gaussian, target):
    zero_d = gaussian(np.array(0.5, dtype=np.float32), 0.0, 1.0, target=target)
    assert zero_d.shape == () and zero_d.dtype == np.float32
    assert abs(float(zero_d) - gaussian_ref(0.5, 0, 1)) < 1e-6
    empty = gaussian(np.empty((0, 4), dtype=np.float64), 0.0, 1.0, target=target)
    assert empty.shape == (0, 4) and empty.dtype == np.float64
    s = gaussian(0.5, 0.0, 1.0, target=target)  # scalars only: a NumPy scalar of the first loop
    assert isinstance(s, np.float32) and abs(float(s) - gaussian_ref(0.5, 0, 1)) < 1e-6


@pytest.mark.parametrize("dtype", INT_DTYPES + ["float32", "float64"])
def test_every_dtype(add, rng, dtype):
    info = np.iinfo(dtype) if dtype in INT_DTYPES else None
    lo, hi = (info.min // 2, info.max // 2) if info else (-1e6, 1e6)
    if info:
        a = rng.integers(lo, hi, size=257, dtype=dtype, endpoint=True)
        b = rng.integers(lo, hi, size=257, dtype=dtype, endpoint=True)
    else:
        a, b = (rng.uniform(lo, hi, size=257).astype(dtype) for _ in range(2))
    r = add(a, b, target="cpu")
    assert r.dtype == dtype
    np.testing.assert_array_equal(r, (a + b).astype(dtype))


def test_scalars_are_weak_and_checked(add):
    x = np.arange(5, dtype=np.int16)
    r = add(x, 3, target="cpu")
    assert r.dtype == np.int16  # the array decides the loop, as in NumPy 2
    np.testing.assert_array_equal(r, x + 3)
    assert add(x, np.int64(2), target="cpu").dtype == np.int16  # NumPy scalars: weak too
    np.testing.assert_array_equal(add(np.ones(3, bool).astype(np.uint8), True, target="cpu"), [2, 2, 2])
    with pytest.raises(jitvec.ArgumentError, match="15.5"):
        add(x, 15.5, target="cpu")
    with pytest.raises(jitvec.ArgumentError, match="fits neither int64 nor uint64"):
        add(np.arange(3, dtype=np.uint64), 2**70, target="cpu")


def test_unaligned_numpy_input_is_read_unaligned_out_is_refused(add, rng):
    # Dask and pickle can rebuild arrays at odd addresses (inside a byte stream).
    raw = bytearray(4 * 64 + 1)
    x = np.frombuffer(raw, dtype=np.float32, offset=1, count=64)
    x[:] = rng.uniform(-1, 1, 64).astype(np.float32)
    assert not x.flags.aligned
    np.testing.assert_array_equal(add(x, x, target="cpu"), x * 2)
    np.testing.assert_array_equal(add(x[::-3], 1.0, target="cpu"), x[::-3] + 1)
    with pytest.raises(jitvec.ArgumentError, match="not aligned"):
        add(np.ones(64, np.float32), 1.0, out=x, target="cpu")


def test_lists_go_through_numpy(add):
    np.testing.assert_array_equal(add([1.5, 2.5], [1.0, 1.0], target="cpu"), [2.5, 3.5])


def test_helpers_and_definition_files(rng):
    jitvec.define_device_function("py_sq", "__device__ float py_sq(float x) { return x * x; }")
    jitvec.define_device_function(
        "py_hyp2", "__device__ float py_hyp2(float x, float y) { return sqrtf(py_sq(x) + py_sq(y)); }")
    hyp = jitvec.vectorize("float32(float32, float32)",
                           "__device__ float py_hyp(float a, float b) { return py_hyp2(a, b); }",
                           name="py_hyp")
    a, b = (rng.uniform(-10, 10, 100).astype(np.float32) for _ in range(2))
    np.testing.assert_allclose(hyp(a, b, target="cpu"), np.hypot(a.astype(np.float64), b), rtol=1e-6)

    defined = jitvec.load_definitions(os.path.join(REPO, "samples", "polar_distance.toml"))
    assert "polar_distance" in defined
    pd = defined["polar_distance"]
    assert jitvec.ufunc("polar_distance").name == "polar_distance"
    r1, t1, r2, t2 = (rng.uniform(0.1, 5, 50).astype(np.float32) for _ in range(4))
    d = pd(r1, t1, r2, t2, target="cpu")
    f = [v.astype(np.float64) for v in (r1, t1, r2, t2)]
    ref = np.hypot(f[0] * np.cos(f[1]) - f[2] * np.cos(f[3]), f[0] * np.sin(f[1]) - f[2] * np.sin(f[3]))
    np.testing.assert_allclose(d, ref, rtol=1e-4, atol=1e-4)
    # Loading the same file again is harmless (identical definitions are reused).
    assert jitvec.load_definitions(os.path.join(REPO, "samples", "polar_distance.toml"))


def test_redefinition_same_is_reused_different_replaces(gaussian, rng):
    from conftest import GAUSSIAN_SOURCE
    again = jitvec.vectorize(["float32(float32, float32, float32)", "float64(float64, float64, float64)"],
                             GAUSSIAN_SOURCE, name="gaussian_pdf")
    assert again.signatures == gaussian.signatures
    # A notebook cell run again with edited source: the new definition replaces the old one.
    jitvec.vectorize("float64(float64)", "double redef_f(double x) { return x + 1; }", name="redef_f",
                     target="cpu")
    old = jitvec.ufunc("redef_f")
    new = jitvec.vectorize("float64(float64)", "double redef_f(double x) { return x * 3; }", name="redef_f",
                           target="cpu")
    x = rng.random(9)
    np.testing.assert_array_equal(new(x), x * 3)
    np.testing.assert_array_equal(jitvec.ufunc("redef_f")(x), x * 3)
    np.testing.assert_array_equal(old(x), x + 1)  # a handle from before keeps its definition
    # Other definitions move with it and keep working; a bad replacement changes nothing.
    np.testing.assert_allclose(jitvec.ufunc("gaussian_pdf")(x, 0.0, 1.0, target="cpu"),
                               np.exp(-x * x / 2) / np.sqrt(2 * np.pi), rtol=1e-12)
    with pytest.raises(jitvec.DefinitionError):
        jitvec.vectorize("float64(float64)", "double other(double x) { return x; }", name="redef_f")
    np.testing.assert_array_equal(jitvec.ufunc("redef_f")(x), x * 3)


def test_errors_are_python_exceptions_with_jitvec_messages(add, gaussian, tmp_path):
    with pytest.raises(jitvec.BroadcastError) as e:
        add(np.ones((2, 3), np.float32), np.ones((4, 1), np.float32), target="cpu")
    assert "argument 1: (2, 3)" in str(e.value) and "argument 2: (4, 1)" in str(e.value)
    assert isinstance(e.value, jitvec.ArgumentError) and isinstance(e.value, ValueError)
    with pytest.raises(jitvec.ArgumentError, match="takes 3 inputs, but 2 were given"):
        gaussian(np.ones(3, np.float32), 1.0, target="cpu")
    with pytest.raises(jitvec.SignatureError):
        jitvec.vectorize("float32(float32", "__device__ float sig_bad(float x) { return x; }",
                         name="sig_bad")
    with pytest.raises(jitvec.TargetError, match="unknown target 'tpu'"):
        add(np.ones(3), np.ones(3), target="tpu")
    with pytest.raises(TypeError, match="unexpected keyword argument 'outt'"):
        add(np.ones(3), np.ones(3), outt=None)
    with pytest.raises(jitvec.ArgumentError, match="read-only"):
        ro = np.ones(3)
        ro.flags.writeable = False
        add(np.ones(3), np.ones(3), out=ro, target="cpu")
    with pytest.raises(jitvec.ArgumentError, match="no dtype for buffer format 'g'"):
        add(np.ones(3, np.longdouble), np.ones(3, np.longdouble), target="cpu")
    bad = jitvec.vectorize("float32(float32)",
                           "__device__ float broken(float x) {\n  return x +* ;\n}", name="broken")
    with pytest.raises(jitvec.CompileError) as ce:
        bad(np.ones(3, np.float32), target="cpu")
    assert ce.value.ufunc == "broken" and ce.value.log and isinstance(ce.value.options, list)
    toml = tmp_path / "bad.toml"
    toml.write_text("[ufuncs.x]\nsignatures = 3\nsource = 'y'\n")
    with pytest.raises(jitvec.DefinitionError, match="bad.toml:2"):
        jitvec.load_definitions(str(toml))
    if jitvec.cuda_device_count() == 0:
        with pytest.raises(jitvec.CudaError, match="CUDA driver"):
            add(np.ones(3), np.ones(3), target="cuda")


def test_gil_is_released_while_compiling(rng):
    # A new ufunc (a constant no cache has seen) compiles for a second or more; another Python
    # thread must keep running meanwhile.
    k = int(rng.integers(1, 10**9))
    name = f"gil_probe_{k}"
    f = jitvec.vectorize("float64(float64)", f"__device__ double {name}(double x) {{ return x * {k}.0; }}",
                         name=name)
    y, seconds, max_gap = run_watching_the_gil(lambda: f(np.arange(4.0), target="cpu"))
    np.testing.assert_array_equal(y, np.arange(4.0) * k)
    assert seconds > 0.2, "the compile was too quick to tell"
    assert max_gap < 0.5 * seconds, (max_gap, seconds)


def test_engine_stats_count_calls(add):
    before = jitvec.engine_stats()
    add(np.ones(4), np.ones(4), target="cpu")
    after = jitvec.engine_stats()
    assert after["calls"] == before["calls"] + 1
    assert set(after) >= {"calls", "memory_hits", "disk_hits", "disk_misses", "compiles",
                          "compile_seconds", "disk_read_seconds", "load_seconds"}
