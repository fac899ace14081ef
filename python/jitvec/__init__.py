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

from . import _jitvec
from ._jitvec import (  # noqa: F401
    Array,
    ArgumentError,
    BroadcastError,
    CompileError,
    CudaError,
    DefinitionError,
    Error,
    SignatureError,
    TargetError,
    Ufunc,
    __version__,
    cuda_device_count,
    define_device_function,
    engine_stats,
    from_dlpack,
    load_definitions,
    release_cached_memory,
    synchronize,
    ufunc,
)


def vectorize(signatures, source, name, target=None, identity=None):
    """Defines the ufunc ``name`` from CUDA C++ ``source`` (a function called ``name``: plain,
    overloaded or a template), one loop per signature (``"float32(float32, float32)"`` or
    ``"f4(f4, f4)"``). ``target``: ``"cuda"``, ``"cpu"`` or ``"parallel"`` (default: cuda when
    a GPU is usable, else cpu; ``JITVEC_TARGET`` overrides). ``identity``: the value f(a, identity)
    == a (0 for add), for ``reduce`` of an empty axis and ``reduce(..., where=...)``. Compiles at
    first use. Defining the same name again with the same definition returns the same ufunc."""
    if isinstance(signatures, str):
        signatures = [signatures]
    return _jitvec._vectorize(list(signatures), source, name, target, identity)


def _rebuild_ufunc(state):
    """Unpickles a ufunc: defines it (and the helpers it uses) here unless already defined."""
    return _jitvec._ufunc_from_state(state)


def _reduce_ufunc(self):
    return (_rebuild_ufunc, (self._state(),))


def _ufunc_getattr(self, attr):
    # __name__ and __qualname__ of the instance, as functions have (Dask names tasks by them).
    if attr in ("__name__", "__qualname__"):
        return self.name
    raise AttributeError(f"'jitvec.Ufunc' object has no attribute '{attr}'")


def _module_function(module, name):
    import importlib
    return getattr(importlib.import_module(module), name)


def _reduce_function(f):
    # The extension's functions pickle by name (client.run(jitvec.engine_stats) in Dask).
    return (_module_function, (f.__module__, f.__name__))


Ufunc.__reduce__ = _reduce_ufunc
Ufunc.__getattr__ = _ufunc_getattr
copyreg.pickle(type(_jitvec.engine_stats), _reduce_function)

__all__ = [
    "Array", "ArgumentError", "BroadcastError", "CompileError", "CudaError", "DefinitionError",
    "Error", "SignatureError", "TargetError", "Ufunc", "cuda_device_count",
    "define_device_function", "engine_stats", "from_dlpack", "load_definitions",
    "release_cached_memory", "synchronize",
    "ufunc", "vectorize",
]
