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
