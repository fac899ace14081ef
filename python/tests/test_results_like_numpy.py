"""What calls give back and take, as NumPy does (issue 25), on every target this machine has:
a 0-d result is a NumPy scalar (one output or several, as reduce's), an empty out= (NumPy gives
its dimensions zero strides) is no broadcast view, bfloat16 comes and goes as ml_dtypes.bfloat16
(a jitvec.Array without ml_dtypes: the import is hidden here with monkeypatch), and a ufunc's
identity is exact (2**64 - 1, a 17-digit int64, False), also through pickle, old pickles too."""
import pickle
import sys

import numpy as np
import pytest

import jitvec
from conftest import targets

ADD = "template <typename T> __device__ T rl_add(T a, T b) { return a + b; }"
POLAR = """
template <typename T> void rl_polar(T r, T theta, T& x, T& y) {
    x = r * cos(theta);
    y = r * sin(theta);
}
"""
AND = "__device__ unsigned long long rl_and(unsigned long long a, unsigned long long b) { return a & b; }"
MIN = "__device__ long long rl_min(long long a, long long b) { return a < b ? a : b; }"
BF16 = "__device__ __nv_bfloat16 rl_bf(__nv_bfloat16 a, __nv_bfloat16 b) { return a * b; }"


@pytest.fixture(scope="module")
def add():
    return jitvec.vectorize(["float32(float32, float32)", "float64(float64, float64)", "int64(int64, int64)"],
                            ADD, name="rl_add", identity=0)


@pytest.fixture(scope="module")
def polar():
    return jitvec.vectorize(["(float64, float64)(float64, float64)"], POLAR, "rl_polar")


@pytest.fixture(scope="module")
def bf16():
    return jitvec.vectorize(["bfloat16(bfloat16, bfloat16)"], BF16, name="rl_bf")


@pytest.mark.parametrize("target", targets())
def test_zero_d_results_are_numpy_scalars(add, polar, rng, target):
    a, b = rng.integers(-50, 50, size=2).astype(np.float64)
    got = add(np.array(a), np.array(b), target=target)
    want = np.add(np.array(a), np.array(b))
    assert type(got) is type(want) is np.float64 and got == want
    got = add(np.array(a, np.float32), 2.5, target=target)
    assert type(got) is np.float32 and got == np.float32(a) + np.float32(2.5)
    x, y = polar(np.array(2.0), np.array(a), target=target)
    assert type(x) is np.float64 and type(y) is np.float64
    assert abs(x - 2.0 * np.cos(a)) < 1e-12 and abs(y - 2.0 * np.sin(a)) < 1e-12
    # out= returns the out array itself, 0-d, as NumPy does.
    out = np.full((), np.nan)
    assert add(np.array(a), np.array(b), out=out, target=target) is out and out == a + b
    # Not 0-d: arrays, as before.
    assert isinstance(add(np.array([a]), b, target=target), np.ndarray)


@pytest.mark.parametrize("target", targets())
def test_an_empty_out_is_no_broadcast_view(add, target):
    out = np.empty((3, 0, 4))
    assert 0 in out.strides  # NumPy gives an empty array zero strides
    assert add(np.ones((3, 0, 4)), 1.0, out=out, target=target) is out
    reduced = np.empty((0, 4))
    assert add.reduce(np.ones((3, 0, 4)), axis=0, out=reduced, target=target) is reduced
    # With elements, a broadcast out= is still refused.
    with pytest.raises(jitvec.ArgumentError, match=r"out= has stride 0 in dimension 0 \(a broadcast view\)"):
        add(np.ones((3, 4)), 1.0, out=np.lib.stride_tricks.as_strided(np.empty(4), (3, 4), (0, 8)), target=target)


def hide_ml_dtypes(monkeypatch):
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # `import ml_dtypes` raises ImportError


@pytest.mark.parametrize("target", targets())
def test_bfloat16_with_ml_dtypes(bf16, rng, target):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = rng.integers(-16, 17, size=(5, 7)).astype(ml_dtypes.bfloat16)
    b = rng.integers(-16, 17, size=(7,)).astype(ml_dtypes.bfloat16)
    got = bf16(a, b, target=target)
    assert isinstance(got, np.ndarray) and got.dtype == ml_dtypes.bfloat16 and got.shape == (5, 7)
    np.testing.assert_array_equal(got.astype(np.float64), a.astype(np.float64) * b.astype(np.float64))
    # out= of bfloat16 (poisoned, strided), and a 0-d result as a scalar.
    buf = np.full((5, 14), np.nan, dtype=ml_dtypes.bfloat16)
    out = buf[:, ::2]
    assert bf16(a, b, out=out, target=target) is out
    np.testing.assert_array_equal(out.astype(np.float64), a.astype(np.float64) * b.astype(np.float64))
    assert np.isnan(buf[:, 1::2].astype(np.float64)).all()
    s = bf16(a[0, 0], np.array(b[0]), target=target)
    assert isinstance(s, ml_dtypes.bfloat16) and float(s) == float(a[0, 0]) * float(b[0])
    # jitvec.Array's to_numpy speaks ml_dtypes too.
    assert jitvec.from_dlpack(np.ones(3, np.float32)).to_numpy().dtype == np.float32


@pytest.mark.parametrize("target", targets())
def test_bfloat16_without_ml_dtypes_is_a_jitvec_array(bf16, monkeypatch, target):
    ml_dtypes = pytest.importorskip("ml_dtypes")  # to make the input; then hidden
    a = np.arange(6).astype(ml_dtypes.bfloat16)
    hide_ml_dtypes(monkeypatch)
    got = bf16(a, a, target=target)
    assert isinstance(got, jitvec.Array) and got.dtype == "bfloat16" and got.shape == (6,)
    assert got.device == "cpu"
    with pytest.raises(jitvec.ArgumentError, match="a bfloat16 array has no NumPy dtype without ml_dtypes "
                                                   r"\(pip install ml_dtypes"):
        got.to_numpy()
    monkeypatch.undo()  # its bits are right: read back through ml_dtypes
    np.testing.assert_array_equal(got.to_numpy().astype(np.float64), np.arange(6.0) ** 2)


def test_bfloat16_without_ml_dtypes_from_torch_is_unchanged(bf16, monkeypatch):
    torch = pytest.importorskip("torch")
    hide_ml_dtypes(monkeypatch)
    t = torch.arange(4, dtype=torch.bfloat16)
    got = bf16(t, t, target="cpu")
    assert isinstance(got, torch.Tensor) and got.dtype == torch.bfloat16
    assert got.float().tolist() == [0.0, 1.0, 4.0, 9.0]


def test_identity_is_exact_and_pickles_exactly(rng):
    ones = jitvec.vectorize(["uint64(uint64, uint64)"], AND, name="rl_and", identity=2**64 - 1)
    lowest = jitvec.vectorize(["int64(int64, int64)"], MIN, name="rl_min", identity=9223372036854775807)
    for f in (ones, pickle.loads(pickle.dumps(ones))):
        empty = f.reduce(np.zeros(0, np.uint64), target="cpu")
        assert isinstance(empty, np.uint64) and empty == 2**64 - 1
        x = rng.integers(0, 2**64 - 1, size=(4, 50), dtype=np.uint64, endpoint=True)
        mask = rng.random((4, 50)) < 0.05
        np.testing.assert_array_equal(f.reduce(x, axis=1, where=mask, target="cpu"),
                                      np.bitwise_and.reduce(x, axis=1, where=mask))
    state = pickle.loads(pickle.dumps(ones))._state()
    assert state[7] == 2**64 - 1 and isinstance(state[7], int)
    for f in (lowest, pickle.loads(pickle.dumps(lowest))):
        assert f.reduce(np.zeros(0, np.int64), target="cpu") == 9223372036854775807
    with pytest.raises(jitvec.ArgumentError, match="identity=: the integer 18446744073709551616 fits neither "
                                                   "int64 nor uint64"):
        jitvec.vectorize(["uint64(uint64, uint64)"], AND, name="rl_and_too_big", identity=2**64)
    with pytest.raises(jitvec.ArgumentError, match="identity=: must be a number"):
        jitvec.vectorize(["uint64(uint64, uint64)"], AND, name="rl_and_text", identity="1")


def test_old_pickles_still_load():
    def state(name, *identity):  # (name, signatures, source, target, file, line, helpers[, identity])
        source = f"double {name}(double a, double b) {{ return a + b; }}"
        return (name, ["float64(float64, float64)"], source, None, "", 1, []) + identity
    # 8 fields with the float identity pickles held before, and 7 (before identities).
    old = pickle.loads(pickle.dumps(jitvec._jitvec._ufunc_from_state(state("rl_old8", 0.0))))
    assert old.reduce(np.zeros(0), target="cpu") == 0.0
    assert old._state()[7] == 0.0 and isinstance(old._state()[7], float)
    older = jitvec._jitvec._ufunc_from_state(state("rl_old7"))
    assert older.reduce(np.ones(3), target="cpu") == 3.0
    assert older._state()[7] is None


def test_bool_identity_and_initial():
    logical_or = jitvec.vectorize(["bool(bool, bool)"], "bool rl_or(bool a, bool b) { return a || b; }",
                                  name="rl_or", identity=False)
    assert logical_or.reduce(np.zeros(0, bool), target="cpu") == np.logical_or.reduce(np.zeros(0, bool))
    assert logical_or.reduce(np.array([True, False]), initial=False, target="cpu") == True  # noqa: E712
    # An int identity 0 serves a bool accumulator, as NumPy's add.identity does.
    zero = jitvec.vectorize(["bool(bool, bool)"], "bool rl_or0(bool a, bool b) { return a || b; }",
                            name="rl_or0", identity=0)
    assert zero.reduce(np.zeros((2, 0), bool), axis=1, target="cpu").tolist() == [False, False]


def test_the_differences_from_numpy_the_readme_lists():
    """Each "unlike NumPy, by design" line of README holds (Loop choice, out=, Reductions)."""
    f = jitvec.vectorize(["int8(int8, int8)", "int16(int16, int16)", "float32(float32, float32)",
                          "float64(float64, float64)", "int64(int64, int64)"], ADD.replace("rl_add", "rl_add_many"),
                         name="rl_add_many", identity=0)
    with pytest.raises(jitvec.ArgumentError, match="cannot be represented as int16"):
        f(np.arange(3, dtype=np.int16), 15.5, target="cpu")  # NumPy 2: float64
    assert np.add(np.arange(3, dtype=np.int16), 15.5).dtype == np.float64
    assert type(f(0.5, 1.0, target="cpu")) is np.float32  # scalars only: the first loop that holds them
    assert type(np.add(0.5, 1.0)) is np.float64
    with pytest.raises(jitvec.BroadcastError, match=r"out= has shape \(2, 3\), but the inputs broadcast to \(3,\)"):
        f(np.ones(3), 1.0, out=np.empty((2, 3)), target="cpu")  # NumPy broadcasts the inputs to out=
    assert np.add(np.ones(3), 1.0, out=np.empty((2, 3))).shape == (2, 3)
    big = np.full(300, 100, np.int8)
    assert f.reduce(big, target="cpu") == np.array(30000).astype(np.int8) == 48  # wraps in int8
    assert np.add.reduce(big) == 30000  # NumPy: int64
    assert f.reduce(big, dtype=np.int64, target="cpu") == 30000
    with pytest.raises(jitvec.ArgumentError, match=r"a float32 input cannot be accumulated in int8 \(casting='same_kind'\)"):
        f.reduce(np.ones(3, np.float32), dtype=np.int8, target="cpu")
    assert np.add.reduce(np.ones(3, np.float32), dtype=np.int8) == 3  # NumPy: an unsafe cast
    with pytest.raises(jitvec.ArgumentError, match="the initial 0.5 .float64. does not fit the accumulator type int64"):
        f.reduce(np.zeros(3, np.int64), dtype=np.int64, initial=0.5, target="cpu")  # (float64 comes first)
    assert np.add.reduce(np.zeros(3, np.int64), initial=0.5) == 0  # NumPy truncates
    with pytest.raises(jitvec.ArgumentError, match=r"the initial 9007199254740993 \(int64\) does not fit the "
                                                   "accumulator type float64: float64 cannot hold this integer exactly"):
        f.reduce(np.zeros(3), initial=2**53 + 1, target="cpu")
    maximum = jitvec.vectorize(["float64(float64, float64)"], "double rl_max(double a, double b) { return a > b ? a : b; }",
                               name="rl_max")
    with pytest.raises(jitvec.ArgumentError, match="where= needs the ufunc's identity"):
        maximum.reduce(np.ones(3), where=np.ones(3, bool), initial=0.0, target="cpu")
    assert np.maximum.reduce(np.ones(3), where=np.ones(3, bool), initial=0.0) == 1.0
