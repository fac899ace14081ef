"""Module load time of two generated module sources, alternating in one process (issue 9).

Compiles each source with NVRTC (jitvec's options) into a cubin, then times, on the GPU,
cuModuleLoadData + cuModuleGetFunction(jitvec_contig) + cuModuleUnload of each cubin, the two
alternating, and prints the median and minimum of each, their ELF sections that the driver sets
up (.nv.global, .nv.constant4) and the cubin sizes. Session 5 uses it to check that the module
load lost the 20 device globals the types prelude used to put into every module:

    git show 33d7402:tests/golden/gaussian_pdf_f32.cu > /tmp/old.cu    # before session 5
    python3 bench/probes/module_load_ab.py /tmp/old.cu tests/golden/gaussian_pdf_f32.cu sm_90 200

usage: module_load_ab.py OLD.cu NEW.cu [ARCH (sm_90)] [RUNS (200)]
Needs libnvrtc (CUDA_HOME/lib64 or the loader's path) and libcuda; only ctypes.
"""
import ctypes
import ctypes.util
import os
import statistics
import sys
import time


def load(names):
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    sys.exit(f"cannot load any of {names}")


cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
nvrtc = load(["libnvrtc.so", f"{cuda_home}/lib64/libnvrtc.so", f"{cuda_home}/lib/libnvrtc.so"])


def compile_cubin(path, arch):
    source = open(path, "rb").read()
    program = ctypes.c_void_p()
    if nvrtc.nvrtcCreateProgram(ctypes.byref(program), source, b"module.cu", 0, None, None):
        sys.exit("nvrtcCreateProgram failed")
    options = [f"--gpu-architecture={arch}".encode(), b"--std=c++17", b"--minimal", b"-default-device"]
    array = (ctypes.c_char_p * len(options))(*options)
    result = nvrtc.nvrtcCompileProgram(program, len(options), array)
    if result:
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(program, log)
        sys.exit(f"NVRTC failed on {path}:\n{log.value.decode()}")
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetCUBINSize(program, ctypes.byref(size))
    cubin = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetCUBIN(program, cubin)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    return cubin.raw


def section_names(cubin):
    import struct
    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    entsize, count, strndx = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * entsize) for i in range(count)]
    names_at = headers[strndx][4]
    names = []
    for header in headers:
        start = names_at + header[0]
        names.append(cubin[start:cubin.index(b"\0", start)].decode())
    return names


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    old_path, new_path = sys.argv[1], sys.argv[2]
    arch = sys.argv[3] if len(sys.argv) > 3 else "sm_90"
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    cubins = {"old": compile_cubin(old_path, arch), "new": compile_cubin(new_path, arch)}
    for name, cubin in cubins.items():
        setup = [s for s in section_names(cubin) if s in (".nv.global", ".nv.global.init", ".nv.constant4")]
        print(f"{name}: cubin {len(cubin)} bytes; sections the driver sets up: {setup or 'none'}")

    cuda = load(["libcuda.so.1", "libcuda.so"])
    context = ctypes.c_void_p()
    device = ctypes.c_int()
    if cuda.cuInit(0) or cuda.cuDeviceGet(ctypes.byref(device), 0):
        sys.exit("no usable GPU")
    cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
    cuda.cuCtxSetCurrent(context)
    times = {"old": [], "new": []}
    for run in range(runs + 5):
        for name in (("old", "new") if run % 2 == 0 else ("new", "old")):
            module, function = ctypes.c_void_p(), ctypes.c_void_p()
            cuda.cuCtxSynchronize()
            started = time.perf_counter()
            if cuda.cuModuleLoadData(ctypes.byref(module), cubins[name]):
                sys.exit(f"cuModuleLoadData failed for {name}")
            if cuda.cuModuleGetFunction(ctypes.byref(function), module, b"jitvec_contig"):
                sys.exit(f"no jitvec_contig in {name}")
            elapsed = time.perf_counter() - started
            cuda.cuModuleUnload(module)
            if run >= 5:  # the first loads warm the driver up
                times[name].append(elapsed * 1e3)
    for name in ("old", "new"):
        print(f"{name}: load + lookup median {statistics.median(times[name]):.3f} ms, "
              f"min {min(times[name]):.3f} ms ({runs} runs)")
    print(f"new - old (medians): {statistics.median(times['new']) - statistics.median(times['old']):+.3f} ms")


if __name__ == "__main__":
    main()
