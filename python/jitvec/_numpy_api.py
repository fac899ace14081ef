"""NumPy's ufunc protocol for jitvec's ufuncs and gufuncs.

A ufunc call is C++ (python/src/call.cpp) as long as it is one of jitvec's own: arrays it reads
by a protocol (NumPy buffers, DLPack, ``__cuda_array_interface__``, CuPy), scalars, and the
keywords ``out``, ``dtype``, ``casting`` (no, equiv, safe, same_kind), ``stream``, ``target``.
Everything else comes here and goes back to C++ once it is one of those:

- NEP 13: an argument (or out=) whose type overrides ``__array_ufunc__`` (a Dask array, an
  xarray object, a pandas Series, ...) gets the call, as ``numpy.ufunc`` would give it, in
  NEP 13's order (subclasses before their bases, else left to right); the override calls the
  ufunc again on what it holds (Dask per chunk, lazily). The same for the methods (reduce,
  accumulate, outer, at) and for gufuncs.
- outputs given by position, ``where=``, ``casting='unsafe'``, ``order=``, ``subok=``.

The methods jitvec adds to its Ufunc class (``reduce``, ``accumulate``, ``outer``, ``at``,
``resolve_dtypes``) and the NumPy attributes (``nargs``, ``ntypes``, ``types``, ``signature``)
are defined here too.
"""

import numpy as np

from . import _jitvec

_NOT_GIVEN = object()
_CALL_KEYWORDS = frozenset({"out", "where", "casting", "order", "dtype", "subok", "signature",
                            "stream", "target"})
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _defers(obj):
    """Whether `obj` takes a ufunc call through its own __array_ufunc__ (NEP 13): its type
    overrides it and jitvec reads none of its array protocols (the C++ side's TypeInfo::defers)."""
    if obj is None or isinstance(obj, (np.ndarray, np.generic, int, float, complex, _jitvec.Array)):
        return False
    kind = type(obj)
    if getattr(kind, "__array_ufunc__", _NOT_GIVEN) is _NOT_GIVEN:
        return False
    if hasattr(obj, "__dlpack__") or hasattr(obj, "__cuda_array_interface__"):
        return False
    try:
        memoryview(obj).release()
        return False  # a buffer: jitvec reads it
    except TypeError:
        return True


def _overrides(objects):
    """The arguments whose __array_ufunc__ is tried, one per type, in NEP 13's order."""
    chosen = []
    for obj in objects:
        if _defers(obj) and all(type(obj) is not type(c) for c in chosen):
            for i, earlier in enumerate(chosen):
                if issubclass(type(obj), type(earlier)):
                    chosen.insert(i, obj)
                    break
            else:
                chosen.append(obj)
    return chosen


def _dispatch(ufunc, method, inputs, kwargs, overrides):
    for obj in overrides:
        override = type(obj).__array_ufunc__
        if override is None:
            raise TypeError(f"jitvec ufunc '{ufunc.name}': operand of type '{type(obj).__name__}' does not "
                            f"support ufuncs (__array_ufunc__ = None)")
        result = override(obj, ufunc, method, *inputs, **kwargs)
        if result is not NotImplemented:
            return result
    names = ", ".join(f"'{type(o).__name__}'" for o in overrides)
    raise TypeError(f"operand type(s) all returned NotImplemented from __array_ufunc__({ufunc!r}, "
                    f"'{method}', ...): {names}")


def _outs(out):
    if out is None:
        return ()
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _copy_where(out, result, where):
    """out[where] = result[where], NumPy's where= on an output, for the array kinds jitvec returns."""
    module = type(out).__module__.split(".")[0]
    if isinstance(out, np.ndarray):
        np.copyto(out, result, where=np.asarray(where, dtype=bool), casting="unsafe")
    elif module == "cupy":
        import cupy
        cupy.copyto(out, result, where=cupy.asarray(where, dtype=bool), casting="unsafe")
    elif module == "torch":
        import torch
        mask = torch.as_tensor(where, dtype=torch.bool, device=out.device)
        out.copy_(torch.where(mask, torch.as_tensor(result, device=out.device).to(out.dtype), out))
    else:
        raise _jitvec.ArgumentError(f"where= with out= of type '{type(out).__name__}': jitvec merges "
                                    f"NumPy, CuPy and PyTorch arrays (give one of those)")


def _astype(x, dtype):
    """x cast to `dtype` by NumPy's unsafe rule (casting='unsafe'), in its own library."""
    if isinstance(x, (int, float, complex, np.generic)) or x is None:
        return x
    if isinstance(x, np.ndarray) or not (hasattr(x, "__dlpack__") or hasattr(x, "__cuda_array_interface__")):
        return np.asarray(x).astype(dtype, casting="unsafe", copy=False)
    if hasattr(x, "astype"):
        return x.astype(dtype)  # CuPy, and libraries with NumPy's method
    if type(x).__module__.split(".")[0] == "torch":
        import torch
        return x.to(getattr(torch, np.dtype(dtype).name))
    raise _jitvec.ArgumentError(f"casting='unsafe': cannot cast a '{type(x).__name__}' (give a NumPy, CuPy or PyTorch array)")


def _parse_loop(text):
    """'float32(float32, int8)' or '(float32, float32)(float64)' -> ([args], [results])."""
    text = text.replace(" ", "")
    if text.startswith("("):
        close = text.index(")")
        results, rest = text[1:close].split(","), text[close + 1:]
    else:
        open_ = text.index("(")
        results, rest = [text[:open_]], text[open_:]
    args = [a for a in rest[1:-1].split(",") if a]
    return args, results


def _numpy_dtype(name):
    try:
        return np.dtype(name)
    except TypeError:
        return name  # bfloat16 without ml_dtypes


def _loops(ufunc):
    return [_parse_loop(s) for s in ufunc._loop_signatures]


def ufunc_call(ufunc, *args, **kwargs):
    """A ufunc call the C++ path handed over (see the module's docstring)."""
    nin, nout = ufunc.nin, ufunc.nout
    if len(args) > nin:
        if kwargs.get("out") is not None:
            raise TypeError(f"ufunc '{ufunc.name}': cannot specify 'out' as both a positional and keyword argument")
        if len(args) != nin + nout:
            raise TypeError(f"ufunc '{ufunc.name}' takes from {nin} to {nin + nout} positional arguments but "
                            f"{len(args)} were given")
        kwargs["out"] = args[nin:] if nout > 1 else args[nin]
        args = args[:nin]
    unknown = sorted(set(kwargs) - _CALL_KEYWORDS)
    if unknown:
        raise TypeError(f"ufunc '{ufunc.name}' got an unexpected keyword argument '{unknown[0]}' (it takes out=, "
                        f"where=, dtype=, casting=, order=, subok=, stream=, target=)")
    outs = _outs(kwargs.get("out"))
    overrides = _overrides(args + outs)
    if overrides:
        if outs:
            kwargs["out"] = outs
        return _dispatch(ufunc, "__call__", args, kwargs, overrides)

    where = kwargs.pop("where", True)
    order = kwargs.pop("order", "K")
    kwargs.pop("subok", True)  # jitvec's results are base arrays already
    if order not in ("K", "A", "C"):
        raise _jitvec.ArgumentError(f"ufunc '{ufunc.name}': order={order!r}: jitvec allocates C-contiguous results "
                                    f"(order='K', 'A' or 'C'); pass an out= of the layout you want")
    if kwargs.pop("signature", None) is not None:
        raise _jitvec.ArgumentError(f"ufunc '{ufunc.name}': signature= is not supported; dtype= chooses the loop "
                                    f"by its output type")
    casting = kwargs.get("casting", "same_kind")
    if casting not in _CASTINGS:
        raise ValueError(f"casting must be one of {', '.join(repr(c) for c in _CASTINGS)}, not {casting!r}")
    out_result = None
    if casting == "unsafe":
        kwargs["casting"] = "no"
        dtype = kwargs.get("dtype")
        if dtype is not None:
            want = _numpy_dtype(dtype)
            for loop_args, results in _loops(ufunc):
                if len(loop_args) == nin and all(_numpy_dtype(r) == want for r in results):
                    args = tuple(_astype(a, arg) for a, arg in zip(args, loop_args))
                    break
            else:
                raise _jitvec.ArgumentError(f"ufunc '{ufunc.name}': no loop returns {want} (its loops: "
                                            f"{'; '.join(ufunc._loop_signatures)})")
        else:
            del kwargs["casting"]  # the loop NumPy's rule picks takes the inputs safely
        if outs:
            out_result = kwargs.pop("out")  # results are cast into it by NumPy's unsafe rule
    if where is not True and out_result is None and outs:
        out_result = kwargs.pop("out")
    if out_result is None:
        return ufunc(*args, **kwargs)
    results = ufunc(*args, **kwargs)
    results = results if nout > 1 else (results,)
    for o, r in zip(_outs(out_result), results):
        if where is True:
            _copy_where(o, r, True)
        else:
            _copy_where(o, r, where)
    return out_result


# -- the methods, with NEP 13 for arguments that override __array_ufunc__ --------------------

def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NOT_GIVEN, where=True, *,
           stream=None, target=None):
    """NumPy's ufunc.reduce: folds `array` along `axis` (an int, a tuple, or None for all) with
    the function, for ufuncs of two inputs and one output. where= (a bool array broadcast to the
    array's shape) folds only the selected elements and needs the ufunc's identity (vectorize's
    identity=); the fold order is fixed (README, Reductions). stream= and target= as a call's."""
    outs = _outs(out)
    overrides = _overrides((array,) + outs)
    if overrides:
        kwargs = {"axis": axis, "dtype": dtype, "keepdims": keepdims}
        if outs:
            kwargs["out"] = outs
        if initial is not _NOT_GIVEN:
            kwargs["initial"] = initial
        if where is not True:
            kwargs["where"] = where
        return _dispatch(self, "reduce", (array,), kwargs, overrides)
    if len(outs) > 1:
        raise _jitvec.ArgumentError(f"ufunc '{self.name}': reduce() has one output; out= gives {len(outs)}")
    return self._reduce(array, axis, dtype, outs[0] if outs else None, keepdims,
                        None if initial is _NOT_GIVEN else initial, None if where is True else where, stream, target)


def accumulate(self, array, axis=0, dtype=None, out=None, *, stream=None, target=None):
    """NumPy's ufunc.accumulate: the inclusive scan along `axis`, of the array's shape, for
    ufuncs of two inputs and one output (the function taken to be associative; README, Scans)."""
    outs = _outs(out)
    overrides = _overrides((array,) + outs)
    if overrides:
        kwargs = {"axis": axis, "dtype": dtype}
        if outs:
            kwargs["out"] = outs
        return _dispatch(self, "accumulate", (array,), kwargs, overrides)
    if axis is None:
        raise _jitvec.ArgumentError(f"ufunc '{self.name}': accumulate() needs an axis (an int), as NumPy's does")
    return self._accumulate(array, int(axis), dtype, outs[0] if outs else None, stream, target)


def outer(self, A, B, /, **kwargs):
    """NumPy's ufunc.outer: f(A[i...], B[j...]) for every pair, of shape A.shape + B.shape, with
    a call's keywords (out=, dtype=, casting=, where=, stream=, target=)."""
    outs = _outs(kwargs.get("out"))
    overrides = _overrides((A, B) + outs)
    if overrides:
        if outs:
            kwargs["out"] = outs
        return _dispatch(self, "outer", (A, B), kwargs, overrides)
    unknown = sorted(set(kwargs) - {"out", "dtype", "casting", "where", "stream", "target"})
    if unknown:
        raise TypeError(f"ufunc '{self.name}': outer() got an unexpected keyword argument '{unknown[0]}'")
    where = kwargs.pop("where", True)
    if where is not True and outs:
        result = self._outer(A, B, None, kwargs.get("dtype"), kwargs.get("casting"), kwargs.get("stream"),
                             kwargs.get("target"))
        _copy_where(outs[0], result, where)
        return outs[0]
    return self._outer(A, B, outs[0] if outs else None, kwargs.get("dtype"), kwargs.get("casting"),
                       kwargs.get("stream"), kwargs.get("target"))


def _simple_index(indices):
    """Whether `indices` picks positions along the first axis as jitvec's at() takes them: an
    int, or a 1-d sequence or array of ints."""
    if isinstance(indices, (int, np.integer)):
        return True
    if isinstance(indices, (tuple, slice, type(Ellipsis))) or indices is None:
        return False
    shape = getattr(indices, "shape", None)
    dtype = getattr(indices, "dtype", None)
    if shape is not None and dtype is not None:
        return len(shape) == 1 and np.dtype(str(dtype).replace("torch.", "")).kind in "iu"
    try:
        arr = np.asarray(indices)
    except Exception:
        return False
    return arr.ndim == 1 and arr.dtype.kind in "iu"


def at(self, a, indices, b=None, *, stream=None, target=None):
    """NumPy's ufunc.at: a[indices] = f(a[indices], b) in place and unbuffered, so a repeated
    index is updated every time (add.at counts every hit). Any NumPy index expression on a NumPy
    array (ints, slices, tuples of index arrays, boolean masks); on device arrays an int or a 1-d
    integer array along the first axis."""
    overrides = _overrides((a, indices, b))
    if overrides:
        return _dispatch(self, "at", (a, indices) + (() if b is None else (b,)), {}, overrides)
    if b is None:
        raise _jitvec.ArgumentError(f"ufunc '{self.name}': at() takes b (jitvec's at() is for ufuncs of two "
                                    f"inputs)")
    if _simple_index(indices):
        if isinstance(indices, (int, np.integer)):
            indices = np.asarray([indices], dtype=np.int64)
            b = b if np.ndim(b) == 0 or not isinstance(b, np.ndarray) else b[np.newaxis, ...]
        elif not hasattr(indices, "shape"):
            indices = np.asarray(indices, dtype=np.int64)
        self._at(a, indices, b, stream, target)
        return None
    if not isinstance(a, np.ndarray):
        raise _jitvec.ArgumentError(f"ufunc '{self.name}': at() with the index {indices!r} needs a NumPy array; "
                                    f"on device arrays give an int or a 1-d integer array (positions along the "
                                    f"first axis)")
    positions = np.arange(a.size, dtype=np.int64).reshape(a.shape)[indices]
    values = b if np.ndim(b) == 0 else np.broadcast_to(np.asarray(b), positions.shape).reshape(-1)
    flat = a.reshape(-1) if a.flags.c_contiguous else np.ascontiguousarray(a).reshape(-1)
    self._at(flat, positions.reshape(-1), values, stream, target)
    if not np.shares_memory(flat, a):
        a[...] = flat.reshape(a.shape)
    return None


def resolve_dtypes(self, dtypes, *, signature=None, casting=None, reduction=False):
    """NumPy's ufunc.resolve_dtypes: the loop's dtypes (inputs, then outputs) for inputs of
    `dtypes` (a tuple of nin + nout entries; the outputs None or their dtypes), by jitvec's rule."""
    if signature is not None or reduction:
        raise _jitvec.ArgumentError("resolve_dtypes(): signature= and reduction=True are not supported")
    dtypes = tuple(dtypes)
    if len(dtypes) != self.nin + self.nout:
        raise TypeError(f"resolve_dtypes(): ufunc '{self.name}' needs {self.nin + self.nout} dtypes, got {len(dtypes)}")
    names = [np.dtype(d).name for d in dtypes[:self.nin]]
    index = self._loop_for_dtypes(names)
    loop_args, results = _loops(self)[index]
    return tuple(_numpy_dtype(d) for d in loop_args + results)


def types(self):
    """NumPy's ufunc.types: each loop as 'ff->f' (NumPy's type characters)."""
    def char(name):
        dtype = _numpy_dtype(name)
        return dtype.char if isinstance(dtype, np.dtype) else name
    return ["".join(char(a) for a in loop_args) + "->" + "".join(char(r) for r in results)
            for loop_args, results in _loops(self)]


def gufunc_call(self, *args, **kwargs):
    """A gufunc call: NEP 13 for arguments that override __array_ufunc__ (a Dask array runs it
    per chunk through dask.array.apply_gufunc), else jitvec's own (out=, stream=, target=)."""
    outs = _outs(kwargs.get("out"))
    overrides = _overrides(args + outs)
    if overrides:
        if outs:
            kwargs["out"] = outs
        return _dispatch(self, "__call__", args, kwargs, overrides)
    return self._call(*args, **kwargs)
