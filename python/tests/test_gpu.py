"""GPU tests of the Python package (run on the GPU machine; skipped here): CuPy and PyTorch CUDA
arrays in, the same kind out, zero-copy, on the caller's current stream; __cuda_array_interface__
producers; and on two GPUs, arrays on GPU 1 computed on GPU 1 while mixing GPUs is an error."""
import threading

import numpy as np
import pytest

import jitvec
from conftest import gaussian_ref

cp = pytest.importorskip("cupy")
if jitvec.cuda_device_count() == 0:
    pytest.skip("no usable GPU", allow_module_level=True)


def test_cupy_in_cupy_out_zero_copy(gaussian, rng):
    xh = rng.uniform(-4, 4, size=(300, 257)).astype(np.float32)
    x = cp.asarray(xh)
    y = gaussian(x, 0.5, 1.5)
    assert isinstance(y, cp.ndarray) and y.dtype == cp.float32 and y.shape == x.shape
    assert y.device.id == x.device.id
    np.testing.assert_allclose(y.get(), gaussian_ref(xh, 0.5, 1.5), rtol=1e-5, atol=1e-9)
    out = cp.full(x.shape, cp.nan, dtype=cp.float32)
    ptr = out.data.ptr
    r = gaussian(x[::-1, ::2], 0.5, 1.5, out=out[:, : (257 + 1) // 2])
    assert r.data.ptr == ptr  # written in place
    np.testing.assert_allclose(out[:, : (257 + 1) // 2].get(), gaussian_ref(xh[::-1, ::2], 0.5, 1.5),
                               rtol=1e-5, atol=1e-9)
    assert bool(cp.isnan(out[:, 129:]).all())  # untouched past the view


def test_current_stream_is_used(add):
    n = 1 << 25
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        for _ in range(3):
            x = cp.zeros(n, dtype=cp.float32)
            x += 1.0  # queued on s, maybe not done when jitvec's call is queued
            y = add(x, x)  # must run on s, after the increment
            assert bool((y == 2.0).all())
    s.synchronize()
    del x, y
    jitvec.release_cached_memory(s)  # before the stream goes away


def test_stream_argument(add):
    s = cp.cuda.Stream(non_blocking=True)
    x = cp.arange(1000, dtype=cp.float64)
    with s:
        y = add(x, 1.0, stream=s)
        z = add(y, 1.0, stream=s.ptr)
    s.synchronize()
    np.testing.assert_array_equal(z.get(), np.arange(1000.0) + 2)
    del y, z
    jitvec.release_cached_memory(s.ptr)


def test_numpy_and_cupy_mixed_gives_cupy(add, rng):
    a, b = rng.uniform(size=100), rng.uniform(size=100)
    r = add(a, cp.asarray(b))
    assert isinstance(r, cp.ndarray)
    np.testing.assert_array_equal(r.get(), a + b)
    h = add(a, b)  # NumPy in: NumPy out, through the GPU when the default target is cuda
    assert isinstance(h, np.ndarray)
    np.testing.assert_array_equal(h, a + b)


def test_cuda_array_interface_producer(add):
    class OnlyCai:
        def __init__(self, a):
            self.a = a

        @property
        def __cuda_array_interface__(self):
            return self.a.__cuda_array_interface__

    x = cp.arange(64, dtype=cp.int32)
    r = add(OnlyCai(x), 5)
    assert isinstance(r, jitvec.Array) and r.device == "cuda:0"
    np.testing.assert_array_equal(cp.asarray(r).get(), np.arange(64) + 5)


def test_torch_cuda_in_torch_out(add, rng):
    torch = pytest.importorskip("torch")
    a = torch.as_tensor(rng.uniform(size=(64, 33)), device="cuda")
    b = torch.as_tensor(rng.uniform(size=(33,)), device="cuda")
    r = add(a, b)
    assert isinstance(r, torch.Tensor) and r.device == a.device
    np.testing.assert_array_equal(r.cpu().numpy(), a.cpu().numpy() + b.cpu().numpy())
    out = torch.empty_like(a)
    assert add(a, b, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), r.cpu().numpy())


@pytest.mark.skipif(jitvec.cuda_device_count() < 2, reason="needs two GPUs")
def test_two_gpus(gaussian, add, rng):
    xh = rng.uniform(-3, 3, size=1 << 20).astype(np.float32)
    with cp.cuda.Device(1):
        x1 = cp.asarray(xh)
        y1 = gaussian(x1, 0.0, 1.0)
        assert y1.device.id == 1
        np.testing.assert_allclose(y1.get(), gaussian_ref(xh, 0, 1), rtol=1e-5, atol=1e-9)
    with cp.cuda.Device(0):
        x0 = cp.asarray(xh)
    with pytest.raises(jitvec.ArgumentError, match="cuda:"):
        add(x0, x1)

    # A thread per GPU, at the same time: each result on its own GPU, right.
    results = {}

    def work(dev):
        with cp.cuda.Device(dev):
            x = cp.asarray(xh)
            for _ in range(20):
                y = gaussian(x, 0.0, 1.0)
            cp.cuda.get_current_stream().synchronize()
            results[dev] = (y.device.id, y.get())

    threads = [threading.Thread(target=work, args=(d,)) for d in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for dev in (0, 1):
        assert results[dev][0] == dev
        np.testing.assert_allclose(results[dev][1], gaussian_ref(xh, 0, 1), rtol=1e-5, atol=1e-9)
