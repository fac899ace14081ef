"""CuPy arrays read through their members (python/src/fast_interop.cpp), checked without a GPU:
a stand-in `cupy` package (written to a temporary folder and imported in a child interpreter,
so the real CuPy of the GPU tests is never shadowed) has an `ndarray` class with the members
jitvec reads (data -> MemoryPointer .ptr/.device_id, dtype, shape, strides, _c_contiguous) over
a NumPy array's host memory and a made-up device id (and a variant without the optional
_c_contiguous, ndim and size). What the binding makes of it
(_jitvec._describe_import: the Array it would hand the library) is checked against NumPy's own
view of the same memory: addresses, strides in elements (negative ones too), 0-d, dtypes, the
device id, CuPy's current stream asked for that device; and that the protocol takes over for a
subclass, an unknown dtype, or with the fast path switched off. Where the real CuPy is
importable (no GPU needed), the same layout, dtype and error checks run on real cupy.ndarray
objects made over host memory (cupy.cuda.UnownedMemory with a made-up device id), with only
cupy.cuda.get_current_stream replaced (it needs a driver)."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

import jitvec

FAKE_CUPY = '''
"""A stand-in for CuPy's members (tests only)."""
import os as _os

import numpy as _np

from . import cuda


class ndarray:
    def __init__(self, base, device_id=3, dtype=None, strides=None, c_contiguous=None, offset=0):
        self._base = base
        self._mp = cuda.MemoryPointer(base.__array_interface__["data"][0] + offset, device_id)
        self._dtype = base.dtype if dtype is None else dtype
        self._strides = base.strides if strides is None else strides
        self._c = base.flags.c_contiguous and strides is None if c_contiguous is None else c_contiguous

    data = property(lambda self: self._mp)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._base.shape)
    strides = property(lambda self: self._strides)

    def __dlpack__(self, stream=None, max_version=None):
        cuda.calls.append(("__dlpack__", stream))
        return self._base.__dlpack__(max_version=max_version)

    def __dlpack_device__(self):
        return self._base.__dlpack_device__()


if _os.environ.get("FAKE_CUPY_MINIMAL") != "1":  # the members jitvec can do without
    ndarray._c_contiguous = property(lambda self: self._c)
    ndarray.ndim = property(lambda self: self._base.ndim)
    ndarray.size = property(lambda self: self._base.size)
'''

# CuPy's current stream on a device, as a stand-in: 1000 + the device, each query logged.
STREAM_STANDIN = '''
calls = []


class Stream:
    def __init__(self, ptr):
        self.ptr = ptr


def get_current_stream(device_id=-1):
    calls.append(("get_current_stream", device_id))
    return Stream(1000 + device_id)
'''

FAKE_CUPY_CUDA = '''


class MemoryPointer:
    def __init__(self, ptr, device_id):
        self._ptr, self._device_id = ptr, device_id

    ptr = property(lambda self: self._ptr)
    device_id = property(lambda self: self._device_id)


class UnownedMemory:
    pass


STREAM_STANDIN


class runtime:
    @staticmethod
    def getDevice():
        return 0
'''

CHECKS = '''
import sys

import numpy as np
import cupy
import jitvec
from jitvec import _jitvec

rng = np.random.default_rng(int(sys.argv[1]))
REAL = sys.argv[2] == "real"
describe = _jitvec._describe_import


def address(a):
    return a.__array_interface__["data"][0]


def elements(a):
    return tuple(s // a.itemsize for s in a.strides)


if REAL:  # real cupy.ndarray objects over host memory; only the stream query is replaced
    STREAM_STANDIN
    cupy.cuda.get_current_stream = get_current_stream

    def make(base, device_id=3, strides=None, offset=0):
        extents = [(n - 1) * s for n, s in zip(base.shape, base.strides) if n > 0]
        low = sum(e for e in extents if e < 0)
        span = sum(e for e in extents if e > 0) - low + base.itemsize
        memory = cupy.cuda.UnownedMemory(address(base) + low, span, base, device_id)
        return cupy.ndarray(base.shape, base.dtype, cupy.cuda.MemoryPointer(memory, offset - low),
                            strides=base.strides if strides is None else strides)
else:
    calls = cupy.cuda.calls

    def make(base, **kw):
        return cupy.ndarray(base, **kw)


def check(base, **kw):
    x = make(base, **kw)
    assert type(x) is cupy.ndarray
    calls.clear()
    d = describe(x)
    assert d["kind"] == "cupy", d
    assert d["data"] == address(base), (d, address(base))
    assert d["dtype"] == base.dtype.name, d
    assert d["shape"] == base.shape, d
    if base.size:
        assert d["strides"] == elements(base) or base.flags.c_contiguous, (d, elements(base))
    assert d["device"] == kw.get("device_id", 3), d
    assert d["stream"] == 1000 + kw.get("device_id", 3), d
    assert calls == [("get_current_stream", kw.get("device_id", 3))], calls
    return d


# Contiguous, 1-d and N-d, on another made-up device.
d = check(rng.random(37).astype(np.float32))
assert d["strides"] == (1,)
check(rng.random((4, 5, 6)), device_id=1)
# Views: negative and gapped strides, a transpose; element (0, ..., 0) is where data points.
grid = rng.random((6, 10))
check(grid[::-1, ::3])
check(grid.T)
check(grid[:, ::-1][2:5])
d = check(np.arange(24, dtype=np.int16).reshape(2, 3, 4)[:, ::-2, 1::2])
assert d["strides"] == (12, -8, 2), d
# 0-d and empty.
d = check(np.array(2.5, dtype=np.float32))
assert d["shape"] == () and d["strides"] == ()
check(np.zeros((0, 3), dtype=np.float64))
# Every dtype the members path knows, twice (the second time from the binding's dtype cache).
for _ in range(2):
    for t in (np.bool_, np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32,
              np.int64, np.float16, np.float32, np.float64, np.complex64, np.complex128):
        check((rng.random(9) * 100).astype(t))

# Strides that are not whole items, and an unaligned address: errors naming the argument.
try:
    describe(make(np.zeros(8, np.float32), strides=(6,)))
    raise SystemExit("a 6-byte stride of float32 was accepted")
except jitvec.ArgumentError as e:
    assert "argument 1: stride of 6 bytes is not a multiple of the item size 4" in str(e), e
try:
    describe(make(np.zeros(8, np.float32), offset=2))
    raise SystemExit("an unaligned float32 address was accepted")
except jitvec.ArgumentError as e:
    assert "argument 1" in str(e) and "not aligned" in str(e), e

if REAL:  # the rest needs the stand-in (the protocol on real CuPy arrays needs a GPU)
    print("checks passed")
    sys.exit(0)

# The protocol takes over: a dtype the members path does not know (a 2-byte void standing in
# for bfloat16) is imported through __dlpack__, on CuPy's stream (-1: the consumer orders it).
half = rng.random(11).astype(np.float16)
cupy.cuda.calls.clear()
d = describe(cupy.ndarray(half, dtype=np.dtype("V2")))
assert ("__dlpack__", -1) in cupy.cuda.calls, cupy.cuda.calls
assert d["dtype"] == "float16" and d["data"] == address(half) and d["shape"] == (11,), d


# A subclass: the protocol (its device from __dlpack_device__: the host here).
class Sub(cupy.ndarray):
    pass


d = describe(Sub(half))
assert d["kind"] == "dlpack" and d["device"] == -1 and d["data"] == address(half), d

# Switched off: the protocol for cupy.ndarray too.
before = _jitvec._set_interop(cupy_members=False)
assert before == {"cupy_members": True, "cupy_result": "wrap", "cupy_fast_new": True}, before
d = describe(cupy.ndarray(half))
assert d["kind"] == "dlpack", d
_jitvec._set_interop(cupy_members=True)
assert describe(cupy.ndarray(half))["kind"] == "cupy"
try:
    _jitvec._set_interop(cupy_result="cheap")
    raise SystemExit("an unknown result mode was accepted")
except jitvec.ArgumentError as e:
    assert "wrap, pool or protocol" in str(e)
print("checks passed")
'''


def run_checks(tmp_path, extra_env=None, real=False):
    package = tmp_path / "fake" / "cupy"
    (package / "cuda").mkdir(parents=True)
    (package / "__init__.py").write_text(FAKE_CUPY)
    (package / "cuda" / "__init__.py").write_text(FAKE_CUPY_CUDA.replace("STREAM_STANDIN", STREAM_STANDIN))
    script = tmp_path / "checks.py"
    script.write_text(CHECKS.replace("    STREAM_STANDIN", textwrap.indent(STREAM_STANDIN, "    ")))
    jitvec_root = os.path.dirname(os.path.dirname(os.path.abspath(jitvec.__file__)))
    path = [jitvec_root] if real else [str(tmp_path / "fake"), jitvec_root]
    if os.environ.get("PYTHONPATH"):
        path.append(os.environ["PYTHONPATH"])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path),
               JITVEC_TARGET="cpu", **(extra_env or {}))
    seed = int.from_bytes(os.urandom(4), "little")
    r = subprocess.run([sys.executable, str(script), str(seed), "real" if real else "fake"], env=env, capture_output=True,
                       text=True, timeout=300, cwd=str(tmp_path))
    assert r.returncode == 0 and "checks passed" in r.stdout, (
        f"seed {seed}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")


def test_cupy_members_are_read_as_numpy_sees_the_memory(tmp_path):
    run_checks(tmp_path)


def test_without_the_optional_members_shape_and_strides_are_read(tmp_path):
    # No _c_contiguous, ndim, size: the shape tuple and the strides are read for every array.
    run_checks(tmp_path, {"FAKE_CUPY_MINIMAL": "1"})


@pytest.mark.skipif(importlib.util.find_spec("cupy") is None, reason="CuPy is not installed")
def test_real_cupy_members_over_host_memory(tmp_path):
    run_checks(tmp_path, real=True)


@pytest.mark.parametrize("typestr, expected", [
    ("<f4", "float32"), ("|b1", "bool"), ("=i8", "int64"), ("<u2", "uint16"), ("<c16", "complex128"),
    ("<f2", "float16"), ("|u1", "uint8"),
])
def test_cuda_array_interface_typestrs(typestr, expected):
    # The typestr table shared by __cuda_array_interface__ and the CuPy members path (an empty
    # array at address 0 needs no device to be described).
    class Cai:
        __cuda_array_interface__ = {"shape": (0,), "typestr": typestr, "data": (0, False),
                                    "version": 3, "strides": None}

    d = jitvec._jitvec._describe_import(Cai())
    assert d["kind"] == "cai" and d["dtype"] == expected and d["shape"] == (0,), d


@pytest.mark.parametrize("typestr", [">f4", "<f3", "<V2", "|O8", "<f", "<i16"])
def test_cuda_array_interface_typestrs_refused(typestr):
    class Cai:
        __cuda_array_interface__ = {"shape": (0,), "typestr": typestr, "data": (0, False),
                                    "version": 3, "strides": None}

    with pytest.raises(jitvec.ArgumentError, match=f"argument 1: jitvec has no dtype for __cuda_array_interface__ typestr '{typestr}'"):
        jitvec._jitvec._describe_import(Cai())


VIEW_CHECKS = '''
import sys

import numpy as np
import cupy
from jitvec import _jitvec

# CuPy results made as the binding makes them (_cupy_view: its base's tp_new then _init) equal
# the ones CuPy's public constructor makes, member by member, over host memory.
rng = np.random.default_rng(int(sys.argv[1]))
members = ("shape", "strides", "dtype", "size", "_c_contiguous", "_f_contiguous", "_index_32_bits")
owner = np.zeros(4096, dtype=np.float64)
start = owner.__array_interface__["data"][0]
cases = [("float32", (1024,), ()), ("float64", (3, 5), ()), ("int16", (), ()), ("uint8", (7, 1, 9), ()),
         ("complex64", (4, 6), (-6, 1)), ("float32", (5, 4), (1, 5)), ("int64", (6,), (-2,)),
         ("bool", (2, 3, 4), (12, -4, 2)), ("float16", (0, 3), ())]
for fast in (True, False, True):
    _jitvec._set_interop(cupy_fast_new=fast)
    for dtype, shape, strides in cases:
        item = np.dtype(dtype).itemsize
        data = start + 8 * int(rng.integers(512, 1024))  # room before and after for negative strides
        got = _jitvec._cupy_view(data, dtype, list(shape), list(strides), 2, owner)
        assert type(got) is cupy.ndarray, type(got)
        memory = cupy.cuda.UnownedMemory(start, owner.nbytes, owner, 2)
        want = cupy.ndarray(shape, np.dtype(dtype), cupy.cuda.MemoryPointer(memory, data - start),
                            tuple(s * item for s in strides) if strides else None)
        for m in members:
            assert getattr(got, m) == getattr(want, m), (fast, dtype, shape, strides, m, getattr(got, m), getattr(want, m))
        assert got.data.ptr == data and got.data.device_id == 2 and got.base is None, (fast, dtype, shape)
        assert got.data.mem._owner is owner
print("checks passed")
'''


@pytest.mark.skipif(importlib.util.find_spec("cupy") is None, reason="CuPy is not installed")
def test_cupy_results_made_in_cpp_equal_cupys_own(tmp_path):
    script = tmp_path / "view_checks.py"
    script.write_text(VIEW_CHECKS)
    jitvec_root = os.path.dirname(os.path.dirname(os.path.abspath(jitvec.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([jitvec_root, os.environ.get("PYTHONPATH", "")]))
    seed = int.from_bytes(os.urandom(4), "little")
    r = subprocess.run([sys.executable, str(script), str(seed)], env=env, capture_output=True, text=True,
                       timeout=300, cwd=str(tmp_path))
    assert r.returncode == 0 and "checks passed" in r.stdout, f"seed {seed}\n{r.stdout}\n{r.stderr}"
