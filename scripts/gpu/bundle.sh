#!/usr/bin/env bash
# Builds Meridian against a Kokkos CUDA install and packs what a bare CUDA machine needs to run it into
# one folder: meridian, the test binaries, the benchmarks, every shared library they use that a CUDA
# image lacks (MPICH with its mpiexec and hydra proxy, UCX and its modules, HDF5, FFTW, libcurl's chain,
# ...; found with ldd), the decks, the gpu-labelled tests, device_check.sh and an env.sh.
#   scripts/gpu/bundle.sh KOKKOS_PREFIX OUT_DIR [--check]
#   scripts/gpu/bundle.sh --from-build BUILD_DIR OUT_DIR [--check]   (pack a build made already; any backend)
#   scripts/gpu/bundle.sh --check OUT_DIR        (only check an existing bundle)
# --check verifies that ldd of every binary resolves inside the bundle, the CUDA libraries and the C
# library every Linux image has, and that the bundle is under 50 MiB as carried (packing fails above it too). It unpacks the bundle it
# checks, so the build's own check runs on a copy. The build goes to build/cuda (BUILD_DIR
# overrides). Files over 1 MiB are stored gzipped (env.sh unpacks them once) to stay under the limit.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
# The device tool carries 64 MiB with the tree: the bundle leaves 14 MiB of that to the tree.
limit_bytes=$((50 * 1024 * 1024))
# Provided by any glibc-based image, or by the CUDA installation and driver there.
system_libraries='^(linux-vdso\.so|ld-linux-x86-64\.so|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libresolv\.so|libgcc_s\.so)'
cuda_libraries='^(libcuda\.so|libcudart\.so|libcufft\.so|libcusparse\.so|libcublas\.so|libcublasLt\.so|libnvJitLink\.so)'

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
  exit 2
}

# check_bundle DIR: every binary's libraries resolve inside DIR, CUDA or the system C library; size.
check_bundle() {
  local bundle=$1 failed=0 binary line name path packed
  [ -f "$bundle/env.sh" ] || { echo "check: $bundle has no env.sh" >&2; return 1; }
  packed=$(du -sb "$bundle" | cut -f1)  # as carried, before env.sh unpacks it
  # shellcheck source=/dev/null
  source "$bundle/env.sh"
  for binary in "$bundle"/libexec/*; do
    while read -r line; do
      name=$(basename "${line%% *}")
      path=$(awk '{ for (i = 1; i <= NF; ++i) if ($i == "=>") print $(i + 1) }' <<<"$line")
      if [[ $name =~ $system_libraries || $name =~ $cuda_libraries ]]; then continue; fi
      # libstdc++ is the image's where new enough, else the bundle's fallback copy (env.sh chooses).
      [[ $name == libstdc++.so* && -f $bundle/lib/fallback/$name ]] && continue
      if [[ $path != "$bundle"/lib/* ]]; then
        echo "check: $(basename "$binary") needs $name, found at ${path:-nowhere} (not in the bundle)" >&2
        failed=1
      fi
    done < <(ldd "$binary" | sed 's/^[[:space:]]*//')
  done
  if [ "$packed" -gt "$limit_bytes" ]; then
    echo "check: the bundle is $packed bytes packed, over $limit_bytes" >&2
    failed=1
  fi
  [ $failed -eq 0 ] && echo "check: every library resolves inside $bundle or CUDA; $packed bytes as carried"
  return $failed
}

# copy_libraries DEST BINARY...: the non-system, non-CUDA libraries of the binaries, into DEST/lib.
copy_libraries() {
  local dest=$1 name path
  shift
  ldd "$@" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u | while read -r name path; do
    if [[ $name =~ $system_libraries || $name =~ $cuda_libraries ]]; then continue; fi
    if [[ $name == libstdc++.so* ]]; then
      cp -L "$path" "$dest/lib/fallback/$name"  # used only where the image's is older (env.sh)
    else
      cp -L "$path" "$dest/lib/$name"
    fi
  done
}

if [ "${1:-}" = "--check" ]; then
  [ $# -eq 2 ] || usage
  check_bundle "$(cd "$2" && pwd)"
  exit
fi
if [ "${1:-}" = "--from-build" ]; then
  [ $# -ge 3 ] && [ -d "$2" ] || usage
  build_dir=$(cd "$2" && pwd)
  shift
else
  [ $# -ge 2 ] && [ -d "$1" ] || usage
  build_dir=${BUILD_DIR:-$source_dir/build/cuda}
  "$source_dir/scripts/gpu/build.sh" "$1" "$build_dir"
fi
out=$2
check=0
[ "${3:-}" = "--check" ] && check=1

rm -rf "$out"
mkdir -p "$out/libexec" "$out/bin" "$out/lib/fallback" "$out/lib/ucx" "$out/share"
out=$(cd "$out" && pwd)
binaries=("$build_dir/apps/meridian" "$build_dir/tests/meridian_tests" "$build_dir/tests/meridian_allocation_tests")
for target in stream_triad fftw_reference mc_reference_loop device_copy_bandwidth cufft_pair poisson_benchmark; do
  [ -x "$build_dir/bench/$target" ] && binaries+=("$build_dir/bench/$target")
done
mpiexec_binary=$(readlink -f "$(command -v mpiexec)")
binaries+=("$mpiexec_binary" "$(dirname "$mpiexec_binary")/hydra_pmi_proxy")
for binary in "${binaries[@]}"; do
  cp "$binary" "$out/libexec/"
  strip --strip-unneeded "$out/libexec/$(basename "$binary")" 2>/dev/null || true
done
mv "$out/libexec/$(basename "$mpiexec_binary")" "$out/libexec/mpiexec"
copy_libraries "$out" "${binaries[@]}"
# The Kokkos Tools kernel timer the device check loads into one direct solve (it needs only CUDA's runtime).
[ -f "$build_dir/bench/libkernel_timer.so" ] && cp "$build_dir/bench/libkernel_timer.so" "$out/lib/"
# UCX loads its transports as modules from the folder beside libucs; shared-memory copies need cma.
ucx_modules=$(dirname "$(ldd "$build_dir/apps/meridian" | awk '$1 ~ /^libucs\.so/ { print $3 }')")/ucx
cp -L "$ucx_modules"/libuct_cma.so.0 "$out/lib/ucx/" 2>/dev/null || true
strip --strip-unneeded "$out"/lib/*.so* "$out"/lib/fallback/* "$out"/lib/ucx/* 2>/dev/null || true
# hydra looks for its proxy beside mpiexec, so the real binaries stay together in libexec/ and bin/
# holds the names to call.
for binary in "$out"/libexec/*; do ln -s "../libexec/$(basename "$binary")" "$out/bin/$(basename "$binary")"; done
cp -r "$source_dir/configs" "$out/share/"
# The published reference tables some gpu-labelled tests read (the build host's tree is not there).
cp -r "$source_dir/tests/data" "$out/share/test_data"
# The Taylor-Green validation script, which the device check runs on its 256^3 run.
cp "$source_dir/scripts/validation/taylor_green_re1600.py" "$out/share/"
cp "$source_dir/scripts/gpu/device_check.sh" "$out/"
# The gpu-labelled tests, with the build's paths turned into the bundle's (one test a line: the name, its
# processes and the words of its command, its ENVIRONMENT property first through env, separated by tabs).
(cd "$build_dir" && ctest -L gpu --show-only=json-v1) | /usr/bin/python3 -c '
import json, sys, os
build, mpiexec = sys.argv[1], sys.argv[2]
for test in json.load(sys.stdin)["tests"]:
    properties = {p["name"]: p["value"] for p in test.get("properties", [])}
    words = ["env"] + list(properties.get("ENVIRONMENT", []))
    for w in test["command"]:
        if w == mpiexec or os.path.realpath(w) == os.path.realpath(mpiexec):
            w = "@BUNDLE@/bin/mpiexec"
        elif w.startswith(build + "/"):
            w = "@BUNDLE@/bin/" + os.path.basename(w)
        words.append(w)
    print("\t".join([test["name"], str(properties.get("PROCESSORS", 1))] + words))
' "$build_dir" "$(command -v mpiexec)" >"$out/share/gpu_tests.txt"
# The newest libstdc++ symbol version the binaries and bundled libraries need (GCC 12 builds may need
# GLIBCXX_3.4.30): env.sh takes the image's libstdc++ only where it has that version.
needed_cxx=$(strings -a "$out"/libexec/* "$out"/lib/*.so* 2>/dev/null | grep -o 'GLIBCXX_[0-9.]*[0-9]' | sort -uV | tail -n 1)
echo "needed_cxx=$needed_cxx" >"$out/env.sh"
cat >>"$out/env.sh" <<'EOF'
# Sourced: puts the bundle's programs and libraries first. Large files were stored gzipped; the first
# source unpacks them in place.
bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for stored in "$bundle"/lib/*.gz "$bundle"/libexec/*.gz; do
  [ -e "$stored" ] || continue
  # Said, not fatal: a failure here would end a caller under set -e before it wrote any result.
  gzip -d -f "$stored" || echo "env.sh: cannot unpack $stored (a read-only bundle? copy it somewhere writable)" >&2
done
# The CUDA libraries (libcudart.so.13, libcufft.so.12, libcusparse.so.12, ...) are the image's: the toolkit's
# folders, or the nvidia/*/lib folders of its Python packages (pip's CUDA wheels).
python_cuda=$(python3 -c 'import glob, os, nvidia; print(" ".join(d for p in nvidia.__path__ for d in sorted(glob.glob(os.path.join(p, "*", "lib")))))' 2>/dev/null || true)
cuda_libs=
for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib $python_cuda; do
  if [ -d "$dir" ]; then cuda_libs=$cuda_libs:$dir; fi
done
library_path=$bundle/lib$cuda_libs
# The image's libstdc++ serves unless it lacks $needed_cxx (written above when the bundle was made).
# (awk reads all of ldconfig's output: an early exit would fail the pipe under pipefail.)
system_cxx=$(ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/ && !found { print $NF; found = 1 }')
if [ -z "$system_cxx" ] || ! grep -qa "$needed_cxx" "$system_cxx"; then library_path=$bundle/lib/fallback:$library_path; fi
export LD_LIBRARY_PATH=$library_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$bundle/bin:$PATH
export UCX_MODULE_DIR=$bundle/lib/ucx
export MERIDIAN_BUNDLE=$bundle
export MERIDIAN_TEST_DATA=$bundle/share/test_data
EOF
find "$out/lib" "$out/libexec" -maxdepth 1 -type f -size +1M -exec gzip -9 {} \;
echo "bundle in $out ($(du -sh "$out" | cut -f1) packed)"
packed=$(du -sb "$out" | cut -f1)
if [ "$packed" -gt "$limit_bytes" ]; then
  echo "$0: the bundle is $((packed / 1024 / 1024)) MiB packed, over the $((limit_bytes / 1024 / 1024)) MiB limit" >&2
  exit 1
fi
if [ $check -eq 1 ]; then
  probe=$(mktemp -d)
  cp -a "$out" "$probe/bundle"
  check_bundle "$probe/bundle"
  rm -rf "$probe"
fi
