#!/usr/bin/env bash
# Builds a fake libcuda.so.1 in this directory: the driver API calls of the
# gpump CUDA backend (and of gorgonia.org/cu's init) with device memory in
# host memory, and the kernels of kernels/gpump.cu run by the CPU emulator of
# kernels/testdata/emu. Every driver entry point the fake does not implement
# returns CUDA_ERROR_NOT_SUPPORTED (801). It lets CI run the CUDA backend end
# to end without a GPU; it says nothing about speed or a real driver's JIT.
#
# Needs g++ and the CUDA headers and driver stub (.ci/install-cuda).
#
#   tensorops/testdata/fakecuda/build.sh
#   LD_LIBRARY_PATH=tensorops/testdata/fakecuda go test -tags cuda ./tensorops/
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
k=$here/../../../kernels
out=${FAKECUDA_OUT:-$here}
stub=/usr/lib/x86_64-linux-gnu/stubs/libcuda.so
# The toolkit brings a versioned host compiler (g++-11 or a clang); use it
# when no plain g++ is installed.
pick() { for c in "$@"; do if command -v "$c" >/dev/null 2>&1; then echo "$c"; return; fi; done; echo "fakecuda: no C++ compiler (tried $*)" >&2; exit 1; }
cxx=${CXX:-$(pick g++ g++-12 g++-11 clang++-14 clang++)}
cc=${CC:-$(pick gcc gcc-12 gcc-11 clang-14 clang cc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cxx" -std=c++17 -O2 -fPIC -Wall -Wno-unknown-pragmas -c -I"$k/testdata/emu" -I"$k" "$here/fake.cc" -o "$tmp/fake.o"
"$cxx" -std=c++17 -O2 -fPIC -c "$k/testdata/emu/cuda_emu.cc" -o "$tmp/emu.o"
nm -D --defined-only "$stub" | awk '$2=="T"{print $3}' | sort >"$tmp/all.txt"
nm --defined-only -g "$tmp/fake.o" | awk '{print $3}' | grep '^cu' | sort >"$tmp/impl.txt"
comm -23 "$tmp/all.txt" "$tmp/impl.txt" | awk '{printf "int %s(void) { return 801; }\n", $1}' >"$tmp/stubs.c"
"$cc" -O2 -fPIC -c "$tmp/stubs.c" -o "$tmp/stubs.o"
"$cxx" -shared -Wl,-soname,libcuda.so.1 -o "$out/libcuda.so.1" "$tmp/fake.o" "$tmp/emu.o" "$tmp/stubs.o" -lpthread
ln -sf libcuda.so.1 "$out/libcuda.so"
echo "built $out/libcuda.so.1"
