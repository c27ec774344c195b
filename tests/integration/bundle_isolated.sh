#!/usr/bin/env bash
# The GPU bundle's dry run where the build machine's libraries are hidden, as on the bare CUDA image it is
# made for: a library bundle.sh forgot fails here, not on the GPU machine. A private mount namespace puts a
# minimal folder over /usr/lib/x86_64-linux-gnu (where Debian keeps MPICH, HDF5, FFTW, UCX and the rest).
# That folder holds the loader and the C and C++ runtime every glibc image has, and the libraries of the
# shell tools and Python the check itself runs, which the image has as its own; /usr/local/cuda stays, as
# the image's toolkit. A bind mount over a folder, not a cached root filesystem: nothing to download or
# keep, and every tool is the one the check really calls. ctest is hidden too (the image has none), so the
# test runner the image uses is the one checked.
# Needs root (mount namespaces); skipped (77) otherwise. Labelled bundle and left out of the CI suite.
# The build packed: MERIDIAN_BUNDLE_BUILD (the CUDA build, build/cuda, is the one that matters), else this
# suite's own build.
source "$(dirname "$0")/common.sh"
[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root for a mount namespace"; exit 77; }
unshare -m true 2>/dev/null || { echo "skipped: no mount namespaces here"; exit 77; }
build_dir=${MERIDIAN_BUNDLE_BUILD:-$(cd "$(dirname "$MERIDIAN")/.." && pwd)}
"$SOURCE_DIR/scripts/gpu/bundle.sh" --from-build "$build_dir" "$work/bundle" > "$work/bundle.log" 2>&1 ||
  { cat "$work/bundle.log"; fail "bundle.sh --from-build $build_dir failed"; }

system=/usr/lib/x86_64-linux-gnu
minimal=$work/minimal_lib
mkdir -p "$minimal"
for lib in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libresolv.so.2 \
           libgcc_s.so.1 libstdc++.so.6; do
  cp -L "$system/$lib" "$minimal/"
done
tools=(bash sh env timeout date awk sed grep python3 gzip mktemp cat tail head wc sort uniq tr cut du dirname
       basename mkdir rm cp ln ls sleep printf tee ldconfig mount)
for tool in "${tools[@]}"; do
  path=$(command -v "$tool") || continue
  { ldd "$path" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r lib; do
    cp -Ln "$lib" "$minimal/"
  done
done

OUT=$work/out unshare -m bash -c '
  set -e
  mount --bind "$1" /usr/lib/x86_64-linux-gnu
  if [ -e /usr/bin/ctest ]; then mount --bind /dev/null /usr/bin/ctest; fi
  timeout 120 "$2/device_check.sh" "$2" --dry-run' hidden "$minimal" "$work/bundle" > "$work/check.log" 2>&1 ||
  { cat "$work/check.log"; cat "$work/out/results.txt" 2>/dev/null; fail "the dry run failed with the build host's libraries hidden"; }
results=$work/out/results.txt
grep -q "^stage libraries status 0$" "$results" || fail "libraries the image lacks: $(cat "$results")"
tests=$(wc -l < "$work/bundle/share/gpu_tests.txt")
grep -q "^gpu tests: $tests$" "$results" || fail "the dry run did not list the $tests tests: $(cat "$results")"
grep -q "^launcher: 2 ranks ran stream_triad, 2 reports$" "$results" || fail "the bundled launcher: $(cat "$results")"
echo "bundle of $build_dir: its dry run passed with only $(ls "$minimal" | wc -l) system libraries visible"
