"""Derivative ufuncs from Python (jitvec.derivative, jitvec.value_and_derivative, a definition
file's [derivatives]): gaussian_pdf's partial derivatives against their NumPy closed forms on
every target this machine has, out= poisoned with NaN; the value output equal to the ufunc's;
the refusals as jitvec.DefinitionError; pickling by definition."""
import os
import pickle

import numpy as np
import pytest

import jitvec
from conftest import gaussian_ref, targets

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def closed_forms(x, mean, sigma):
    x = np.asarray(x, np.float64)
    z = (x - mean) / sigma
    p = gaussian_ref(x, mean, sigma)
    return {"x": -z / sigma * p, "mean": z / sigma * p, "sigma": (z * z - 1.0) / sigma * p}


@pytest.mark.parametrize("target", targets())
@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 2e-5)])
def test_gaussian_derivatives_match_closed_forms(gaussian, rng, target, dtype, rtol):
    n = 5003
    x = rng.uniform(-4, 4, n).astype(dtype)
    mean = rng.uniform(-1, 1, n).astype(dtype)
    sigma = rng.uniform(0.3, 2.5, n).astype(dtype)
    want = closed_forms(x, mean.astype(np.float64), sigma.astype(np.float64))
    for k, wrt in enumerate(("x", "mean", "sigma")):
        d = jitvec.derivative(gaussian, wrt if k != 1 else 1)  # by name and by index
        out = np.full(n, np.nan, dtype)
        d(x, mean, sigma, out=out, target=target)
        np.testing.assert_allclose(out, want[wrt], rtol=rtol, atol=1e-7 if dtype == np.float32 else 1e-15)


@pytest.mark.parametrize("target", targets())
def test_value_and_derivative_has_two_outputs(gaussian, rng, target):
    x = rng.uniform(-3, 3, 1000)
    vd = jitvec.value_and_derivative("gaussian_pdf", "x")
    assert vd.name == "value_and_d_gaussian_pdf_dx"
    assert vd.nout == 2
    value, slope = np.full(1000, np.nan), np.full(1000, np.nan)
    vd(x, 0.5, 1.25, out=(value, slope), target=target)
    np.testing.assert_array_equal(value, gaussian(x, 0.5, 1.25, target=target))
    np.testing.assert_allclose(slope, closed_forms(x, 0.5, 1.25)["x"], rtol=1e-12, atol=1e-15)


def test_derivative_is_an_ordinary_ufunc(gaussian):
    d = jitvec.derivative(gaussian, "x")
    assert d.name == "d_gaussian_pdf_dx"
    assert jitvec.ufunc("d_gaussian_pdf_dx").name == d.name
    assert d.signatures == ["float32(float32, float32, float32)", "float64(float64, float64, float64)"]
    assert jitvec.derivative("gaussian_pdf", 0).name == d.name  # the same request again
    named = jitvec.derivative(gaussian, "sigma", name="py_dgauss_dsigma")
    assert named.name == "py_dgauss_dsigma"
    back = pickle.loads(pickle.dumps(d))
    x = np.linspace(-2, 2, 11)
    np.testing.assert_array_equal(back(x, 0.0, 1.0, target="cpu"), d(x, 0.0, 1.0, target="cpu"))


def test_derivative_refusals():
    jitvec.load_definitions(os.path.join(REPO, "samples", "polar_distance.toml"))
    with pytest.raises(jitvec.DefinitionError, match="is not a template.*template <typename T> __device__ T "
                                                     r"polar_distance\(T rho1, T theta1, T rho2, T theta2\)"):
        jitvec.derivative("polar_distance", 0)
    with pytest.raises(jitvec.DefinitionError, match=r"it takes 3 inputs \(x, mean, sigma\)"):
        jitvec.derivative("gaussian_pdf", 7)
    with pytest.raises(jitvec.DefinitionError, match="wrt must be an input's index"):
        jitvec.derivative("gaussian_pdf", 1.5)
    with pytest.raises(jitvec.DefinitionError, match="no ufunc named 'py_no_such_ufunc'"):
        jitvec.derivative("py_no_such_ufunc", 0)


def test_definition_file_derivatives(tmp_path, rng):
    toml = tmp_path / "py_derivs.toml"
    toml.write_text("""
[ufuncs.py_softplus]
signatures = ["float64(float64)"]
source = '''
template <typename T> T py_softplus(T x) { return log1p(exp(x)); }
'''

[derivatives.py_dsoftplus]
of = "py_softplus"
wrt = "x"
""")
    defined = jitvec.load_definitions(str(toml))
    assert set(defined) == {"py_softplus", "py_dsoftplus"}
    x = rng.uniform(-5, 5, 100)
    np.testing.assert_allclose(defined["py_dsoftplus"](x, target="cpu"), 1 / (1 + np.exp(-x)), rtol=1e-14)
