"""The DLPack paths of the Python package on the CPU: producers that only speak __dlpack__
(versioned or not) are imported without copies and get their result back through their own
library's from_dlpack; jitvec.Array speaks DLPack to NumPy; capsules are consumed as the
protocol says; lifetimes hold after the producer is gone."""
import ctypes
import sys
import types

import numpy as np
import pytest

import jitvec
from conftest import gaussian_ref

_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]


class Producer:
    """A library's array that speaks only DLPack (no buffer protocol), backed by NumPy."""

    def __init__(self, data, versioned=True):
        self.data = data
        self.versioned = versioned
        self.capsules = []  # what __dlpack__ handed out, to check they were consumed
        self.calls = []

    def __dlpack_device__(self):
        return self.data.__dlpack_device__()

    def __dlpack__(self, stream=None, max_version=None, **kw):
        self.calls.append({"stream": stream, "max_version": max_version})
        if not self.versioned:
            if max_version is not None:
                raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
            capsule = self.data.__dlpack__(stream=stream)
        else:
            capsule = self.data.__dlpack__(stream=stream, max_version=max_version)
        self.capsules.append(capsule)
        return capsule


@pytest.fixture
def fakelib():
    """A module "fakelib" whose arrays are Producers and whose from_dlpack wraps back."""
    mod = types.ModuleType("fakelib")

    class FakeArray(Producer):
        pass

    FakeArray.__module__ = "fakelib"
    mod.FakeArray = FakeArray
    mod.received = []

    def from_dlpack(obj):
        mod.received.append(obj)
        return FakeArray(np.from_dlpack(obj))

    mod.from_dlpack = from_dlpack
    sys.modules["fakelib"] = mod
    yield mod
    del sys.modules["fakelib"]


@pytest.mark.parametrize("versioned", [True, False])
def test_dlpack_producer_is_imported_in_place_and_wrapped_back(gaussian, fakelib, rng, versioned):
    base = rng.uniform(-4, 4, size=(30, 20)).astype(np.float32)
    x = fakelib.FakeArray(base[::-2, ::3], versioned=versioned)
    y = gaussian(x, 0.25, 1.5, target="cpu")
    assert type(y) is fakelib.FakeArray  # the same kind as the input
    assert isinstance(fakelib.received[-1], jitvec.Array)
    np.testing.assert_allclose(y.data, gaussian_ref(base[::-2, ::3], 0.25, 1.5), rtol=1e-5, atol=1e-8)
    # CPU producers are asked with stream=None; versioned ones with max_version=(1, 0).
    assert x.calls[-1]["stream"] is None
    if versioned:
        assert x.calls[-1]["max_version"] == (1, 0)
        assert _get_name(x.capsules[-1]) == b"used_dltensor_versioned"
    else:
        assert len(x.calls) == 1 or x.calls[-1]["max_version"] is None
        assert _get_name(x.capsules[-1]) == b"used_dltensor"


def test_out_into_a_dlpack_producer_writes_its_memory(add, fakelib):
    target = np.full(6, -1.0)
    out = fakelib.FakeArray(target)
    r = add(np.arange(6.0), np.ones(6), out=out, target="cpu")
    assert r is out
    np.testing.assert_array_equal(target, np.arange(6.0) + 1)  # zero-copy: its memory changed


def test_read_only_versioned_producer_cannot_be_out(add):
    ro = np.zeros(3)
    ro.flags.writeable = False
    with pytest.raises(jitvec.ArgumentError, match="read-only"):
        add(np.ones(3), np.ones(3), out=Producer(ro), target="cpu")
    # As an input it is fine.
    np.testing.assert_array_equal(add(Producer(ro), np.ones(3), target="cpu"), np.ones(3))


def test_unknown_library_gets_a_jitvec_array(add):
    class Anonymous(Producer):
        pass

    Anonymous.__module__ = "nolib_without_from_dlpack"
    sys.modules.setdefault("nolib_without_from_dlpack", types.ModuleType("nolib_without_from_dlpack"))
    r = add(Anonymous(np.arange(4.0)), 1.0, target="cpu")
    assert isinstance(r, jitvec.Array)
    assert r.shape == (4,) and r.dtype == "float64" and r.device == "cpu"
    np.testing.assert_array_equal(np.from_dlpack(r), np.arange(4.0) + 1)
    np.testing.assert_array_equal(np.asarray(r), np.arange(4.0) + 1)


def test_jitvec_array_lifetime_after_producer_is_gone(rng):
    data = rng.uniform(size=1000)
    expected = data.copy()
    a = jitvec.from_dlpack(Producer(data))
    del data  # the producer's last handle
    np.testing.assert_array_equal(np.from_dlpack(a), expected)
    capsule = a.__dlpack__()
    assert _get_name(capsule) == b"dltensor"
    del a
    np.testing.assert_array_equal(np.from_dlpack(_Holder(capsule)), expected)


class _Holder:
    """Hands a ready capsule to np.from_dlpack."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kw):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def test_jitvec_array_dlpack_protocol_details(add):
    r = jitvec.from_dlpack(np.arange(6, dtype=np.int32).reshape(2, 3)[:, ::-1])
    assert r.strides == (3, -1) and r.shape == (2, 3) and r.dtype == "int32"
    assert r.__dlpack_device__() == (1, 0)
    v = r.__dlpack__(max_version=(1, 0))
    assert _get_name(v) == b"dltensor_versioned"
    with pytest.raises(BufferError):
        r.__dlpack__(copy=True)
    with pytest.raises(BufferError):
        r.__dlpack__(dl_device=(2, 0))
    with pytest.raises(AttributeError):
        r.__cuda_array_interface__
    back = add(r, r, target="cpu")  # jitvec.Array in, jitvec.Array out
    assert isinstance(back, jitvec.Array)
    np.testing.assert_array_equal(np.from_dlpack(back), np.arange(6).reshape(2, 3)[:, ::-1] * 2)


def test_bad_dlpack_producers(add):
    class NotACapsule(Producer):
        def __dlpack__(self, stream=None, max_version=None):
            return 42

    with pytest.raises(jitvec.ArgumentError, match="capsule"):
        add(NotACapsule(np.ones(3)), 1.0, target="cpu")
    # float16 has a dtype since issue 10: it comes in and casts safely into the float32 loop.
    got = add(Producer(np.full(3, 1.5, np.float16)), 1.0, target="cpu")
    np.testing.assert_array_equal(np.asarray(got), np.full(3, 2.5))
