#!/usr/bin/env bash
# A failure on any rank ends the whole job promptly, never a hang: an exception, an I/O error, a device
# fault and a non-finite state injected on rank 1 (MERIDIAN_FAULT=RANK:STEP:KIND) and a full disk each end a
# 2-rank run within 10 s with exit code 1 and a message naming the rank; a write cut short leaves a
# .tmp file, and the outputs and checkpoints written before it stay whole.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/advection/solid_body_rotation.toml"

# ends_promptly NAME EXPECTED_TEXT COMMAND...: COMMAND must exit 1 within 10 s, printing EXPECTED_TEXT.
ends_promptly() {
  local name=$1 text=$2 start=$SECONDS code=0
  shift 2
  timeout 30 "$@" > "$work/$name.log" 2>&1 || code=$?
  [ "$code" -eq 1 ] || { cat "$work/$name.log"; fail "$name: exit code $code, expected 1"; }
  [ $((SECONDS - start)) -le 10 ] || fail "$name: took $((SECONDS - start)) s to end"
  grep -q "$text" "$work/$name.log" || { cat "$work/$name.log"; fail "$name: no '$text' in the output"; }
  echo "$name: exit 1 after $((SECONDS - start)) s"
}

for kind in throw io nan; do
  ends_promptly "fault-$kind" "meridian: rank 1: " env MERIDIAN_FAULT="1:5:$kind" "$MPIEXEC" -n 2 "$MERIDIAN" run \
    "$deck" --set mesh.nx=64 --set mesh.ny=64 --output "$work/fault-$kind"
done

# A device fault (as a sticky CUDA error: every later fence throws, finalize's included, and the timers
# fence) ends the job the same way, not in std::terminate, and the output written before it reads back.
ends_promptly fault-device "meridian: rank 1: error: device fault" env MERIDIAN_FAULT=1:5:device "$MPIEXEC" -n 2 \
  "$MERIDIAN" run "$deck" --set mesh.nx=64 --set mesh.ny=64 --output "$work/fault-device"
[ -f "$work/fault-device/fields_00000.h5" ] || fail "the output written before the device fault is gone"
all_readable "$work/fault-device" || fail "a file written before the device fault does not read back whole"

full=$work/full
mkdir -p "$full"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=3M tmpfs "$full" 2>/dev/null; then
  trap 'umount -l "$full" 2>/dev/null; rm -rf "$work"' EXIT  # lazy: a killed rank may still hold it
  # Two outputs and three checkpoints fit, the fourth checkpoint does not.
  ends_promptly full-disk "rank [01]: file error: .*checkpoint_000000400.h5.tmp" "$MPIEXEC" -n 2 "$MERIDIAN" run \
    "$deck" --set mesh.nx=256 --set mesh.ny=256 --set run.end_time=0.5 --set run.output_interval=0.1 \
    --set run.checkpoint_every_steps=100 --output "$full/run"
  [ -f "$full/run/checkpoints/checkpoint_000000400.h5.tmp" ] || fail "the cut-short checkpoint is not a .tmp"
  [ -f "$full/run/checkpoints/checkpoint_000000300.h5" ] || fail "the previous checkpoint is gone"
  [ -f "$full/run/fields_00001.h5" ] || fail "the previous output is gone"
  all_readable "$full/run" || fail "a file written before the disk filled does not read back whole"
else
  # No tmpfs to fill here: a file-size limit makes every write past 16 MB fail with EFBIG instead.
  (trap '' XFSZ
   ulimit -f 16384
   ends_promptly file-size-limit "rank [01]: file error: .*fields_00000.h5.tmp" "$MPIEXEC" -n 2 "$MERIDIAN" run \
     "$deck" --set mesh.nx=1536 --set mesh.ny=1536 --set run.end_time=0.001 --output "$full/run")
  [ ! -e "$full/run/fields_00000.h5" ] || fail "a half-written output has the real name"
fi

# A rank that never gets out of the job's end (MPI finalization stuck, as MPICH 4.0.2 does over
# TCP) is ended by the watchdog with the run's own code, 0 here, logged, on every rank. The watchdogs
# fire 2 s apart (rank 0 waiting in finalize first, the stuck rank 1 later): a rank leaving must not
# get the launcher to kill the ones still there (hydra does when a rank exits unannounced).
start=$SECONDS
code=0
stuck=(run "$deck" --set mesh.nx=32 --set mesh.ny=32 --set run.end_time=0.05 --output "$work/stuck")
MERIDIAN_FAULT=1:0:hang_in_finalize timeout 30 "$MPIEXEC" -n 1 -env MERIDIAN_FINALIZE_TIMEOUT 2 "$MERIDIAN" "${stuck[@]}" \
  : -n 1 -env MERIDIAN_FINALIZE_TIMEOUT 4 "$MERIDIAN" "${stuck[@]}" > "$work/stuck.log" 2>&1 || code=$?
[ "$code" -eq 0 ] || { cat "$work/stuck.log"; fail "a stuck finalization exited $code, not the run's 0"; }
[ $((SECONDS - start)) -le 10 ] || fail "a stuck finalization took $((SECONDS - start)) s to end"
for seconds in 2 4; do
  grep -q "did not end within $seconds s of its last output .*exiting with the run's code 0" "$work/stuck.log" \
    || fail "the rank with a ${seconds} s watchdog did not say why it ended: $(cat "$work/stuck.log")"
done
echo "stuck finalization: exit 0 after $((SECONDS - start)) s"
