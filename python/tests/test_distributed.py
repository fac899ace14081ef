"""Dask across processes on the CPU: a LocalCluster of worker processes maps a jitvec ufunc
over a chunked array (10^7 float32 in 100 chunks; samples/python/dask_cpu.py does 10^8), results
checked against NumPy in float64, and the workers share the disk cache: the loop is compiled
once (here, in the client), and each worker only reads it (the counters say so)."""
import numpy as np
import pytest

import jitvec
from conftest import gaussian_ref

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

N = 10**7
CHUNKS = 100


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=50)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_local_cluster_map_blocks_one_compile(client, gaussian):
    # Compile (or find) the loop once, in this process: it goes to the shared disk cache.
    gaussian.precompile("cpu")
    before = jitvec.engine_stats()
    seed = int(np.random.SeedSequence().entropy % 2**32)
    print(f"random seed: {seed}")
    x = da.random.default_rng(seed).uniform(-5, 5, size=N, chunks=N // CHUNKS).astype(np.float32)
    y = da.map_blocks(gaussian, x, 0.5, 1.25, target="cpu", dtype=np.float32)
    xs, ys = client.compute([x, y], sync=True)
    assert ys.dtype == np.float32 and ys.shape == (N,)
    np.testing.assert_allclose(ys, gaussian_ref(xs, 0.5, 1.25), rtol=2e-5, atol=1e-9)

    per_worker = client.run(jitvec.engine_stats)
    print("engine counters per worker:", per_worker)
    assert len(per_worker) == 2
    calls = sum(s["calls"] for s in per_worker.values())
    assert calls >= CHUNKS
    for stats in per_worker.values():
        assert stats["compiles"] == 0, per_worker  # nobody compiled but the client
        assert stats["disk_hits"] >= 1 or stats["calls"] == 0, per_worker
    assert jitvec.engine_stats()["compiles"] == before["compiles"]


def test_a_call_on_a_dask_array_runs_lazily_in_the_workers_from_a_precompiled_cache(client):
    # NEP 13: gaussian(dask_array, ...) is a Dask array (no compute), one task per chunk; the
    # parallel loop is precompiled here, each worker runs it on the one thread it was given.
    # (A ufunc whose own target is parallel: Dask passes no keywords it cannot see in a signature.)
    from conftest import GAUSSIAN_SOURCE
    gaussian = jitvec.vectorize(["float32(float32, float32, float32)"],
                                GAUSSIAN_SOURCE.replace("gaussian_pdf", "gaussian_pdf_parallel"),
                                name="gaussian_pdf_parallel", target="parallel")
    gaussian.precompile("parallel")
    client.run(jitvec.set_num_threads, 1)
    assert set(client.run(jitvec.get_num_threads).values()) == {1}
    before = client.run(jitvec.engine_stats)
    seed = int(np.random.SeedSequence().entropy % 2**32)
    print(f"random seed: {seed}")
    x = da.random.default_rng(seed).uniform(-5, 5, size=10**6, chunks=10**5).astype(np.float32)
    y = gaussian(x, 0.5, 1.25)
    assert isinstance(y, da.Array) and y.npartitions == 10 and y.dtype == np.float32
    xs, ys = client.compute([x, y], sync=True)
    np.testing.assert_allclose(ys, gaussian_ref(xs, 0.5, 1.25), rtol=2e-5, atol=1e-9)
    after = client.run(jitvec.engine_stats)
    print("engine counters per worker, before and after:", before, after)
    assert sum(after[w]["calls"] - before[w]["calls"] for w in after) >= 10
    for w in after:
        assert after[w]["compiles"] == before[w]["compiles"], (before, after)  # nothing compiled in workers
    client.run(jitvec.set_num_threads, jitvec.get_max_threads())
