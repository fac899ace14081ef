"""GPU tests of the quick ways in and out of CuPy (python/src/fast_interop.cpp; skipped without
CuPy or a GPU): CuPy arrays read through their members in every layout (views with negative and
gapped strides, transposes, 0-d, empty, broadcast), out= views, each result mode (jitvec's
memory wrapped, CuPy's pool, the DLPack protocol), the stream (a call inside `with stream:` is
captured into that stream's graph, so it was launched on it; stream= another stream waits for
CuPy's current one), results that outlive every other reference to jitvec's memory, and arrays
on GPU 1 while GPU 0 is current. Values against float64 NumPy, outputs poisoned first."""
import numpy as np
import pytest

import jitvec
from jitvec import _jitvec
from conftest import gaussian_ref

cp = pytest.importorskip("cupy")
if jitvec.cuda_device_count() == 0:
    pytest.skip("no usable GPU", allow_module_level=True)

MODES = ["wrap", "pool", "protocol"]


@pytest.fixture(params=MODES)
def result_mode(request):
    before = _jitvec._set_interop(cupy_result=request.param)
    yield request.param
    _jitvec._set_interop(cupy_result=before["cupy_result"])


@pytest.fixture(params=[True, False], ids=["members", "protocol"])
def members(request):
    before = _jitvec._set_interop(cupy_members=request.param)
    yield request.param
    _jitvec._set_interop(cupy_members=before["cupy_members"])


def layouts(rng):
    """(name, host array, the same on the GPU) for views of every kind."""
    grid = rng.uniform(-3, 3, size=(40, 33)).astype(np.float32)
    g = cp.asarray(grid)
    cube = rng.uniform(-3, 3, size=(5, 6, 7)).astype(np.float32)
    c = cp.asarray(cube)
    return [
        ("contiguous", grid, g),
        ("reversed", grid[::-1], g[::-1]),
        ("reversed columns, gapped", grid[:, ::-2], g[:, ::-2]),
        ("transpose", grid.T, g.T),
        ("3-d permuted, sliced", cube.transpose(2, 0, 1)[1:, ::-1], c.transpose(2, 0, 1)[1:, ::-1]),
        ("0-d", np.float32(1.25) * np.ones((), np.float32), cp.full((), 1.25, dtype=cp.float32)),
        ("empty", grid[:0], g[:0]),
        ("one column", grid[:, 7:8], g[:, 7:8]),
    ]


def test_every_layout_in_every_result_mode(gaussian, rng, members, result_mode):
    for name, host, dev in layouts(rng):
        for _ in range(3):  # cold, then warm (the pool mode needs a completed call of the key)
            y = gaussian(dev, 0.25, 1.5)
            assert isinstance(y, cp.ndarray), (name, type(y))
            assert y.shape == host.shape and y.dtype == cp.float32, name
            assert y.device.id == dev.device.id, name
            np.testing.assert_allclose(y.get(), gaussian_ref(host, 0.25, 1.5), rtol=1e-5, atol=1e-9,
                                       err_msg=name)


def test_out_views(add, rng, members):
    a = rng.integers(-1000, 1000, size=(64, 48)).astype(np.int32)
    b = rng.integers(-1000, 1000, size=(48,)).astype(np.int32)  # broadcast along rows
    da, db = cp.asarray(a), cp.asarray(b)
    for view in (lambda o: o, lambda o: o[::-1], lambda o: o[:, ::-1], lambda o: o[::-2]):
        whole = cp.full((64, 96), -7, dtype=cp.int32)  # poison, and columns the view leaves alone
        target = view(whole[:, ::2])
        assert add(view(da), db, out=target) is target
        np.testing.assert_array_equal(target.get(), view(a) + b)
        assert bool((whole[:, 1::2] == -7).all())


def test_dtypes_through_members(add, rng, members):
    for t in (np.uint8, np.uint16, np.int16, np.int64, np.float32, np.float64):
        a = (rng.random(300) * 100).astype(t)
        b = (rng.random(300) * 100).astype(t)
        r = add(cp.asarray(a), cp.asarray(b)[::-1])
        assert r.dtype == t
        np.testing.assert_array_equal(r.get(), (a.astype(np.float64) + b[::-1]).astype(t))


def test_results_keep_jitvec_memory_alive(gaussian, rng, result_mode):
    xh = rng.uniform(-3, 3, size=4099).astype(np.float32)
    x = cp.asarray(xh)
    keep = [gaussian(x, 0.0, 1.0) for _ in range(3)]
    view = keep[1][::-3]  # a CuPy view keeps its base (and so jitvec's block) alive
    del keep[1]
    for _ in range(50):  # would reuse a block freed too early
        gaussian(x, 5.0, 2.0)
    cp.cuda.get_current_stream().synchronize()
    jitvec.release_cached_memory()
    np.testing.assert_allclose(view.get(), gaussian_ref(xh, 0, 1)[::-3], rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(keep[0].get(), gaussian_ref(xh, 0, 1), rtol=1e-5, atol=1e-9)


def test_a_call_inside_with_stream_is_launched_on_that_stream(add, members):
    # Captured into s's graph: had jitvec launched on any other stream, the graph would not
    # hold the kernel (and CuPy would refuse the capture for the legacy stream's use).
    s = cp.cuda.Stream(non_blocking=True)
    x = cp.arange(1 << 16, dtype=cp.float32)
    o = cp.empty_like(x)
    with s:
        add(x, x, out=o)  # warm (loaded) before the capture
        s.synchronize()
        o.fill(cp.nan)
        s.synchronize()
        s.begin_capture()
        add(x, x, out=o)
        graph = s.end_capture()
        assert bool(cp.isnan(o).all()), "the call ran instead of being captured"
        graph.launch(stream=s)
    s.synchronize()
    np.testing.assert_array_equal(o.get(), 2 * np.arange(1 << 16, dtype=np.float32))


def test_stream_argument_waits_for_cupys_current_stream(add, members):
    n = 1 << 26
    s1, s2 = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    for _ in range(3):
        with s1:
            x = cp.zeros(n, dtype=cp.float32)
            for _ in range(4):
                x += 1.0  # queued on s1; far from done when jitvec's call is queued on s2
            y = add(x, x, stream=s2)
            o = cp.full(n, cp.nan, dtype=cp.float32)
            s1.synchronize()  # o's poison is written before s2 writes o
            x += 1.0
            add(x, x, stream=s2, out=o)
        s2.synchronize()
        assert bool((y == 8.0).all()), "the call on s2 read x before s1's work on it"
        assert bool((o == 10.0).all()), "the out= call on s2 read x before s1's work on it"
    del x, y, o
    jitvec.release_cached_memory(s2)


@pytest.mark.skipif(jitvec.cuda_device_count() < 2, reason="needs two GPUs")
def test_arrays_on_gpu_1_while_gpu_0_is_current(gaussian, add, rng, result_mode):
    xh = rng.uniform(-3, 3, size=(257, 129)).astype(np.float32)
    with cp.cuda.Device(1):
        x1 = cp.asarray(xh)
        o1 = cp.full(xh.shape, cp.nan, dtype=cp.float32)
    assert cp.cuda.runtime.getDevice() == 0
    for _ in range(3):
        y = gaussian(x1[:, ::-1], 0.5, 1.25)
        assert y.device.id == 1
        np.testing.assert_allclose(y.get(), gaussian_ref(xh[:, ::-1], 0.5, 1.25), rtol=1e-5, atol=1e-9)
        assert gaussian(x1, 0.5, 1.25, out=o1) is o1
    np.testing.assert_allclose(o1.get(), gaussian_ref(xh, 0.5, 1.25), rtol=1e-5, atol=1e-9)
    with cp.cuda.Device(0):
        x0 = cp.asarray(xh)
    with pytest.raises(jitvec.ArgumentError, match="cuda:"):
        add(x0, x1)


def test_torch_views_in(add, rng):
    torch = pytest.importorskip("torch")
    a = rng.uniform(size=(64, 33))
    t = torch.as_tensor(a, device="cuda")
    for view, ref in ((t.T, a.T), (t.flip(0), a[::-1]), (t[:, ::2], a[:, ::2]), (t[3, 4], a[3, 4])):
        r = add(view, view)
        assert isinstance(r, torch.Tensor) and r.device == t.device
        np.testing.assert_array_equal(r.cpu().numpy(), ref + ref)
