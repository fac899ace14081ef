"""Ufuncs pickle by definition and work where Dask and xarray call them: map_blocks,
blockwise and apply_ufunc (with Dask's meta inference on 0-d and empty arrays), in threads and
in a fresh interpreter that rebuilds the ufunc from its pickle and finds its compiled loop in
the shared disk cache."""
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jitvec
from conftest import gaussian_ref

da = pytest.importorskip("dask.array")
import dask  # noqa: E402


def test_pickle_round_trip_keeps_the_definition(gaussian):
    again = pickle.loads(pickle.dumps(gaussian))
    assert again.name == gaussian.name and again.signatures == gaussian.signatures
    assert again.source == gaussian.source
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    np.testing.assert_array_equal(again(x, 0.0, 1.0, target="cpu"), gaussian(x, 0.0, 1.0, target="cpu"))


def test_pickle_carries_the_helpers_a_ufunc_uses():
    jitvec.define_device_function("pk_twice", "__device__ float pk_twice(float x) { return 2 * x; }")
    jitvec.define_device_function("pk_unused", "__device__ float pk_unused(float x) { return x; }")
    jitvec.define_device_function(
        "pk_quad", "__device__ float pk_quad(float x) { return pk_twice(pk_twice(x)); }")
    f = jitvec.vectorize("float32(float32)", "__device__ float pk_f(float x) { return pk_quad(x) + 1; }",
                         name="pk_f")
    (name, signatures, source, target, origin_file, origin_line, helpers, identity, fastmath, fusion,
     stages, derivative_of, wrt, value) = f._state()
    assert [h[0] for h in helpers] == ["pk_twice", "pk_quad"]  # dependencies first, no pk_unused
    assert (name, signatures, target, identity) == ("pk_f", ["float32(float32)"], None, None)
    assert (fastmath, fusion, stages) == (False, "", [])
    assert (derivative_of, wrt, value) == ("", "", False)


def test_fresh_process_rebuilds_from_pickle_and_hits_the_disk_cache(gaussian, tmp_path):
    x = np.linspace(-3, 3, 101, dtype=np.float32)
    expected = gaussian(x, 0.5, 2.0, target="cpu")  # compiled (or found) here: now on disk
    (tmp_path / "f.pkl").write_bytes(pickle.dumps((gaussian, x)))
    script = textwrap.dedent(f"""
        import pickle, json, numpy as np, jitvec
        f, x = pickle.load(open({str(tmp_path / 'f.pkl')!r}, 'rb'))
        y = f(x, 0.5, 2.0, target='cpu')
        np.save({str(tmp_path / 'y.npy')!r}, y)
        print(json.dumps(jitvec.engine_stats()))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=dict(os.environ), timeout=300)
    assert done.returncode == 0, done.stderr
    import json
    stats = json.loads(done.stdout.strip().splitlines()[-1])
    assert stats["compiles"] == 0 and stats["disk_hits"] >= 1, stats
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), expected)


def test_dask_map_blocks_with_meta_inference(gaussian, rng):
    x = rng.uniform(-4, 4, size=(300, 200)).astype(np.float32)
    dx = da.from_array(x, chunks=(70, 60))
    # No dtype/meta given: Dask probes the ufunc with empty arrays to learn the output.
    y = da.map_blocks(gaussian, dx, 0.0, 1.0, target="cpu")
    assert y.dtype == np.float32
    with dask.config.set(scheduler="threads"):
        np.testing.assert_allclose(y.compute(), gaussian_ref(x, 0, 1), rtol=1e-5, atol=1e-9)


def test_dask_blockwise_and_elementwise_probe(add, rng):
    a = rng.uniform(size=(50, 40))
    b = rng.uniform(size=(40,))
    z = da.blockwise(add, "ij", da.from_array(a, chunks=(10, 40)), "ij",
                     da.from_array(b, chunks=40), "j", dtype=np.float64, target="cpu")
    np.testing.assert_array_equal(z.compute(scheduler="sync"), a + b)
    # Dask's own probes: 0-d arrays and size-0 arrays of every rank go through untouched.
    assert add(np.ones((), np.float64), np.ones((), np.float64), target="cpu").shape == ()
    for nd in range(4):
        assert add(np.ones((0,) * nd), np.ones((0,) * nd), target="cpu").shape == (0,) * nd


def test_xarray_apply_ufunc(gaussian, rng):
    xr = pytest.importorskip("xarray")
    data = rng.uniform(-2, 2, size=(20, 30)).astype(np.float32)
    arr = xr.DataArray(data, dims=("t", "x"))
    plain = xr.apply_ufunc(gaussian, arr, 0.0, 1.0, kwargs={"target": "cpu"})
    np.testing.assert_allclose(plain.values, gaussian_ref(data, 0, 1), rtol=1e-5, atol=1e-9)
    lazy = xr.apply_ufunc(gaussian, arr.chunk({"t": 5}), 0.0, 1.0, dask="parallelized",
                          output_dtypes=[np.float32], kwargs={"target": "cpu"})
    # Dask passes the scalars as 0-d arrays there: strong, as in NumPy 2, so the float64 loop.
    np.testing.assert_allclose(lazy.compute().values, gaussian_ref(data, 0, 1), rtol=1e-5, atol=1e-9)
