"""jitvec: elementwise ufuncs from scalar CUDA C++ functions.

Write a scalar function in CUDA C++, give it type signatures, and call it on NumPy arrays
(cpu targets, or host -> GPU -> host), CuPy or PyTorch CUDA tensors (zero-copy, on the
caller's current stream) or anything with ``__dlpack__`` / ``__cuda_array_interface__``::

    import jitvec, numpy as np
    gaussian_pdf = jitvec.vectorize(["float32(float32, float32, float32)"], source,
                                    name="gaussian_pdf")
    y = gaussian_pdf(x, 0.0, 1.0)

Everything happens in the C++ library (``jitvec._jitvec``); this file only names it. Ufuncs
pickle by definition, so Dask and multiprocessing can send them to other processes, which
share the on-disk cache of compiled code.
"""

import copyreg
import linecache
import sys

from . import _jitvec
from . import _numpy_api
from ._jitvec import (  # noqa: F401
    Array,
    ArgumentError,
    BroadcastError,
    CompileError,
    CudaError,
    DefinitionError,
    DeviceFunction,
    Error,
    Graph,
    Gufunc,
    SignatureError,
    TargetError,
    Ufunc,
    __version__,
    capture,
    cuda_device_count,
    define_device_function,
    engine_stats,
    from_dlpack,
    get_max_threads,
    get_num_threads,
    gufunc,
    load_definitions,
    release_cached_memory,
    set_num_threads,
    synchronize,
    ufunc,
)


def _source_origin(source, depth):
    """(file, line) where the caller `depth` frames up wrote `source`: the .py file and the line
    of the string's first line, found by its first non-blank line near the call; ("", 0) when
    it cannot be found (an exec'd string, an interactive prompt)."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:
        return "", 0
    file, call_line = frame.f_code.co_filename, frame.f_lineno
    lines = linecache.getlines(file)
    body = source.split("\n")
    first = next((i for i, line in enumerate(body) if line.strip()), None)
    if not lines or first is None:
        return "", 0
    wanted = body[first].strip()
    # The nearest file line ending with the string's first non-blank line, the call's line first
    # then outwards (the string is usually just above the call, or is its argument).
    for distance in range(len(lines)):
        for index in (call_line - 1 - distance, call_line - 1 + distance):
            if 0 <= index < len(lines) and lines[index].rstrip("\n").rstrip().endswith(wanted):
                return file, index + 1 - first
    return "", 0


def vectorize(signatures, source, name, target=None, identity=None, fastmath=False, eager=False):
    """Defines the ufunc ``name`` from CUDA C++ ``source`` (a function called ``name``: plain,
    overloaded or a template), one loop per signature (``"float32(float32, float32)"`` or
    ``"f4(f4, f4)"``). ``target``: ``"cuda"``, ``"cpu"`` or ``"parallel"`` (default: cuda when
    a GPU is usable, else cpu; ``JITVEC_TARGET`` overrides). ``identity``: the value f(a, identity)
    == a (0 for add), for ``reduce`` of an empty axis and ``reduce(..., where=...)``.
    ``fastmath``: lets the compilers contract a * b + c into one FMA (off: NumPy's bits).
    Compiles each loop at its first use, or every loop now with ``eager=True`` (errors then show
    here). Compile errors name the .py file and line where ``source`` was written. Defining the
    same name again with the same definition returns the same ufunc; with another, the new
    definition replaces it (ufuncs held from before keep working as they were)."""
    if isinstance(signatures, str):
        signatures = [signatures]
    file, line = _source_origin(source, 1)
    made = _jitvec._vectorize(list(signatures), source, name, target, identity, fastmath, file, line)
    if eager:
        made.precompile(target)
    return made


def guvectorize(signatures, layout, source, name, target=None, eager=False):
    """Defines the generalized ufunc ``name`` (Numba's ``guvectorize``): ``layout`` is NumPy's
    signature string (``"(n),(n)->()"``), each of ``signatures`` lists every operand, inputs
    then outputs (``"void(float32[:], float32[:], float32[:])"``), and ``source`` defines a void
    function ``name`` taking one ``jitvec::View<T, N>`` per operand (README, Generalized
    ufuncs). Returns a ``jitvec.Gufunc``; calls broadcast the loop dimensions and allocate the
    outputs (or write ``out=``)."""
    if isinstance(signatures, str):
        signatures = [signatures]
    file, line = _source_origin(source, 1)
    made = _jitvec._guvectorize(list(signatures), layout, source, name, target, file, line)
    if eager:
        made.precompile(target)
    return made


def fuse(name, expression, target=None):
    """Composes defined ufuncs into one that runs as one kernel (one pass over memory):
    ``fuse("softplus_scaled", "mul(softplus(x), s)")``; its inputs are the expression's names in
    order of first appearance, numbers are weak scalars. Each call gives what the separate calls
    would (README, Fusion)."""
    return _jitvec._fuse(name, expression, target)


def derivative(ufunc, wrt, name=None, target=None):
    """The partial derivative of ``ufunc`` (a ``jitvec.Ufunc`` or its name) with respect to input
    ``wrt`` (its index, or its parameter's name in the source) as a ``jitvec.Ufunc``, by forward
    mode: the ufunc's template function runs with ``jitvec::dual<T>`` (README, Derivatives).
    ``derivative(gaussian_pdf, "x")(x, mean, sigma)`` is d pdf / dx. Named ``d_<ufunc>_d<input>``
    unless ``name`` is given."""
    return _jitvec._derivative(ufunc, wrt, False, name, target)


def value_and_derivative(ufunc, wrt, name=None, target=None):
    """As ``derivative``, with two outputs: the ufunc's value and its derivative, in one pass
    (a call returns the tuple ``(value, derivative)``). Named ``value_and_d_<ufunc>_d<input>``
    unless ``name`` is given."""
    return _jitvec._derivative(ufunc, wrt, True, name, target)


def _rebuild_ufunc(state):
    """Unpickles a ufunc: defines it (and the helpers it uses) here unless already defined."""
    return _jitvec._ufunc_from_state(state)


def _rebuild_gufunc(state):
    return _jitvec._gufunc_from_state(state)


def _reduce_ufunc(self):
    return (_rebuild_ufunc, (self._state(),))


def _reduce_gufunc(self):
    return (_rebuild_gufunc, (self._state(),))


def _ufunc_getattr(self, attr):
    # __name__ and __qualname__ of the instance, as functions have (Dask names tasks by them).
    if attr in ("__name__", "__qualname__"):
        return self.name
    raise AttributeError(f"'{type(self).__module__}.{type(self).__name__}' object has no attribute '{attr}'")


def _module_function(module, name):
    import importlib
    return getattr(importlib.import_module(module), name)


def _reduce_function(f):
    # The extension's functions pickle by name (client.run(jitvec.engine_stats) in Dask).
    return (_module_function, (f.__module__, f.__name__))


def _tokenize(self):
    # Dask's deterministic token: the definition, as a pickle would carry it.
    return (type(self).__name__, self._state())


Ufunc.__reduce__ = _reduce_ufunc
Ufunc.__getattr__ = _ufunc_getattr
Ufunc.__dask_tokenize__ = _tokenize
Ufunc.reduce = _numpy_api.reduce
Ufunc.accumulate = _numpy_api.accumulate
Ufunc.outer = _numpy_api.outer
Ufunc.at = _numpy_api.at
Ufunc.resolve_dtypes = _numpy_api.resolve_dtypes
Ufunc.nargs = property(lambda self: self.nin + self.nout, doc="nin + nout, as NumPy's ufunc.nargs")
Ufunc.ntypes = property(lambda self: len(self.signatures), doc="The number of loops, as NumPy's ufunc.ntypes")
Ufunc.types = property(_numpy_api.types, doc="The loops as 'ff->f', as NumPy's ufunc.types")
Ufunc.signature = property(lambda self: None, doc="None: an elementwise ufunc (a Gufunc has its layout)")
Gufunc.__call__ = _numpy_api.gufunc_call
Gufunc.__reduce__ = _reduce_gufunc
Gufunc.__getattr__ = _ufunc_getattr
Gufunc.__dask_tokenize__ = _tokenize
Gufunc.nargs = property(lambda self: self.nin + self.nout)
Gufunc.ntypes = property(lambda self: len(self.signatures))
Gufunc.identity = property(lambda self: None)
copyreg.pickle(type(_jitvec.engine_stats), _reduce_function)

__all__ = [
    "Array", "ArgumentError", "BroadcastError", "CompileError", "CudaError", "DefinitionError",
    "DeviceFunction", "Error", "Graph", "Gufunc", "SignatureError", "TargetError", "Ufunc",
    "capture", "cuda_device_count", "define_device_function", "derivative", "engine_stats",
    "from_dlpack", "fuse",
    "get_max_threads", "get_num_threads", "gufunc", "guvectorize", "load_definitions",
    "release_cached_memory", "set_num_threads", "synchronize", "ufunc", "value_and_derivative",
    "vectorize",
]
