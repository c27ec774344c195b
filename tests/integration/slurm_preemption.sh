# A real Slurm on this machine runs scripts/slurm/advection.sbatch on 2 ranks; SIGUSR1 to the
# batch shell (what #SBATCH --signal=B:USR1@... sends before the time limit) is forwarded to the
# ranks, which checkpoint and exit 75; the script requeues its job, the second start resumes from
# the checkpoint, and the result equals an uninterrupted run bitwise. Skipped (77) where Slurm is
# missing and cannot be installed. Every Slurm command runs under timeout; the daemons this test
# started are stopped by PID on exit. MERIDIAN_LAUNCHER=mpirun in the environment runs the job's
# ranks through mpirun instead of srun.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/slurm_cluster.sh"
trap 'slurm_cluster_stop; rm -rf "$work"' EXIT
trap 'exit 143' TERM   # a test timeout still stops the daemons
trap 'exit 130' INT
started=$SECONDS
slurm_cluster_start "$work/slurm"
echo "Slurm started in $((SECONDS - started)) s"

templates=$SOURCE_DIR/scripts/slurm
# Every template sources the same machinery; this test runs advection.sbatch.
for script in advection.sbatch atmosphere.sbatch cfd_projection.sbatch cfd_spectral.sbatch monte_carlo.sbatch meridian_job.sh; do
  bash -n "$templates/$script" || fail "$script does not parse"
done

deck="$SOURCE_DIR/configs/advection/deformational_flow.toml"
# Long enough (about 1250 steps, seconds on a fast build) that the signal, which slurmd delivers up to a
# second late, lands mid-run.
settings=(--set mesh.nx=512 --set mesh.ny=512 --set run.end_time=1.5 --set run.checkpoint_every_steps=0
          --set run.progress_every=10)
t=$SECONDS
meridian_on 2 run "$deck" "${settings[@]}" --output "$work/whole" > "$work/whole.log"
echo "uninterrupted run on 2 ranks (mpirun): $((SECONDS - t)) s"

# job_field NAME: one field of `scontrol show job` for our job.
job_field() {
  timeout 10 scontrol -o show job "$job" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$1=//p"
}
show_job() {
  echo "--- $work/job.out" >&2
  cat "$work/job.out" >&2 || true
  timeout 10 scontrol show job "$job" >&2 || true
  slurm_log_tails
}

t=$SECONDS
job=$(cd "$work" && timeout 30 sbatch --parsable -N 1 -n 2 --ntasks-per-node=2 --time=10 --job-name=preemption --output="$work/job.out" \
        "$templates/advection.sbatch" "$deck" "${settings[@]}" --output "$work/job") || fail "sbatch failed"
job=${job%%;*}
echo "submitted job $job"
slurm_wait 60 grep -q "^step  *10 " "$work/job.out" || { show_job; fail "job $job did not reach step 10 in 60 s"; }
echo "job $job at step 10 after $((SECONDS - t)) s: scancel --signal=USR1 --batch $job"
timeout 10 scancel --signal=USR1 --batch "$job" || { show_job; fail "scancel failed"; }

state=""
for _ in $(seq 360); do
  state=$(job_field JobState)
  case $state in
    COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED) break ;;
  esac
  sleep 0.5
done
echo "job $job $state after $((SECONDS - t)) s, restarts $(job_field Restarts), exit code $(job_field ExitCode)"
[ "$state" = COMPLETED ] || { show_job; fail "job $job ended $state (or not within 180 s), expected COMPLETED"; }
[ "$(job_field Restarts)" = 1 ] || { show_job; fail "job $job was started $(job_field Restarts)+1 times, expected 2"; }
grep -q "stopped by signal after writing" "$work/job.out" || { show_job; fail "the first start did not stop by signal"; }
grep -q "requeueing job $job" "$work/job.out" || { show_job; fail "the script did not requeue its job"; }
grep -q "^restarting from .*checkpoint_" "$work/job.out" || { show_job; fail "the second start did not restart from a checkpoint"; }
grep -q "run finished" "$work/job.out" || { show_job; fail "the second start did not finish"; }
grep "^\[meridian-slurm\|^restarting from\|^stopped by signal" "$work/job.out"
$compare "$work/whole" "$work/job"
echo "total $((SECONDS - started)) s"
