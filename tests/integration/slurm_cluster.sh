# A single-node Slurm 22.05 on this machine for a test, without systemd: our own munged (as the
# munge user, its socket in the test's folder), slurmctld and slurmd in the foreground in the
# background, a minimal slurm.conf (SLURM_CONF) with every state, spool and log file in that folder
# and ports that were free. Sourced by tests that need Slurm; they call slurm_cluster_start and
# get slurm_cluster_stop on exit. Without root, or without Slurm and a way to install it, the
# test is skipped (exit 77). Facts behind the settings: shared/docs/mpi.md.

SLURM_PACKAGES=(slurmctld slurmd slurm-client munge)
slurm_pids=()    # the daemons this test started, newest last
slurm_dir=""

skip() {
  echo "SKIP: $*"
  exit 77
}

slurm_log_tails() {
  local f
  for f in "$slurm_dir"/log/*; do
    [ -s "$f" ] || continue
    echo "--- last lines of $f" >&2
    tail -n 15 "$f" >&2
  done
}

slurm_install() {
  local missing=0 tool
  for tool in slurmctld slurmd sbatch squeue scontrol scancel munged; do
    command -v "$tool" > /dev/null || missing=1
  done
  [ "$missing" -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || skip "Slurm is not installed and installing it needs root: apt-get install ${SLURM_PACKAGES[*]}"
  command -v apt-get > /dev/null || skip "Slurm is not installed and there is no apt-get"
  echo "installing ${SLURM_PACKAGES[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! timeout 150 apt-get install -y --no-install-recommends "${SLURM_PACKAGES[@]}" > "$slurm_dir/apt.log" 2>&1; then
    timeout 120 apt-get update > "$slurm_dir/apt.log" 2>&1 &&
      timeout 150 apt-get install -y --no-install-recommends "${SLURM_PACKAGES[@]}" >> "$slurm_dir/apt.log" 2>&1 ||
      { tail -n 5 "$slurm_dir/apt.log"; skip "could not install ${SLURM_PACKAGES[*]} (no network or no package source?)"; }
  fi
  for tool in slurmctld slurmd sbatch squeue scontrol scancel munged; do
    command -v "$tool" > /dev/null || skip "$tool is still missing after installing ${SLURM_PACKAGES[*]}"
  done
}

slurm_free_port() {
  "${MERIDIAN_PYTHON:-python3}" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# slurm_wait SECONDS COMMAND...: poll a command every half second until it succeeds.
slurm_wait() {
  local tries=$(($1 * 2))
  shift
  for _ in $(seq "$tries"); do
    "$@" > /dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}

slurm_queue_empty() {
  [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ]
}

slurm_node_idle() {
  [ "$(timeout 10 sinfo -h -N -o %T 2>/dev/null)" = idle ]
}

# slurm_cluster_start DIR: install if needed, start munged, slurmctld and slurmd; exports SLURM_CONF.
slurm_cluster_start() {
  slurm_dir=$1
  # Run from inside another allocation, its variables would leak into this cluster's jobs.
  unset $(compgen -e | grep -E '^(SLURM_|SBATCH_|SRUN_|SALLOC_)') || true
  mkdir -p "$slurm_dir"/{state,spool,log,munge}
  slurm_install
  [ "$(id -u)" -eq 0 ] || skip "starting slurmd and munged needs root"
  id munge > /dev/null 2>&1 || skip "no munge user (the munge package creates it)"
  # munged checks that every folder above its socket can be traversed by all.
  local d=$slurm_dir
  while [ "$d" != / ]; do
    [ -z "$(find "$d" -maxdepth 0 ! -perm -111)" ] || chmod a+x "$d"
    d=$(dirname "$d")
  done
  if [ ! -s /etc/munge/munge.key ]; then
    install -d -o munge -g munge -m 0700 /etc/munge
    timeout 30 mungekey --create --keyfile=/etc/munge/munge.key 2> /dev/null ||
      dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
  fi
  chown munge:munge "$slurm_dir/munge"
  chmod 0711 "$slurm_dir/munge"
  local socket=$slurm_dir/munge/munge.socket
  setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged --foreground --socket="$socket" \
    --pid-file="$slurm_dir/munge/munged.pid" --log-file="$slurm_dir/munge/munged.log" \
    --seed-file="$slurm_dir/munge/munged.seed" --key-file=/etc/munge/munge.key > "$slurm_dir/log/munged.out" 2>&1 &
  slurm_pids+=($!)
  slurm_wait 10 test -S "$socket" || { slurm_log_tails; fail "munged did not start"; }

  local host node ctld_port slurmd_port
  host=$(hostname -s)
  # slurmd -C: CPUs, sockets, cores, threads and RealMemory of this machine, as Slurm sees them.
  node=$(timeout 30 slurmd -C | sed -n '1s/^NodeName=[^ ]* //p')
  [[ $node == *CPUs=* && $node == *RealMemory=* ]] || fail "slurmd -C said: $node"
  local overrides=""
  if [ "$(sed 's/.*CPUs=\([0-9]*\).*/\1/' <<< "$node")" -lt 2 ]; then
    node="CPUs=2 $(grep -o 'RealMemory=[0-9]*' <<< "$node")"   # a 2-rank job on a 1-core machine
    overrides="SlurmdParameters=config_overrides"
  fi
  ctld_port=$(slurm_free_port)
  slurmd_port=$(slurm_free_port)
  export SLURM_CONF=$slurm_dir/slurm.conf
  cat > "$SLURM_CONF" <<CONF
ClusterName=meridiantest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket,cred_expire=10
MpiDefault=pmi2
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
ReturnToService=2
# A requeued job waits cred_expire seconds (default 120), then the next pass of the scheduler (60).
SchedulerParameters=sched_interval=2
KillWait=10
StateSaveLocation=$slurm_dir/state
SlurmdSpoolDir=$slurm_dir/spool
SlurmctldPidFile=$slurm_dir/slurmctld.pid
SlurmdPidFile=$slurm_dir/slurmd.pid
SlurmctldLogFile=$slurm_dir/log/slurmctld.log
SlurmdLogFile=$slurm_dir/log/slurmd.log
$overrides
NodeName=$host NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  slurmctld -D > "$slurm_dir/log/slurmctld.out" 2>&1 &
  slurm_pids+=($!)
  slurm_wait 20 timeout 5 scontrol ping || { slurm_log_tails; fail "slurmctld did not answer"; }
  slurmd -D -N "$host" > "$slurm_dir/log/slurmd.out" 2>&1 &
  slurm_pids+=($!)
  slurm_wait 30 slurm_node_idle || { timeout 10 sinfo -N -l >&2; slurm_log_tails; fail "the node did not come up idle"; }
  echo "Slurm up: $(timeout 10 sinfo -h -N -o '%N %T %c CPUs %m MB'), ports $ctld_port/$slurmd_port"
}

# Cancels what is left in this cluster, then stops the daemons it started, newest first, by PID.
slurm_cluster_stop() {
  [ -n "$slurm_dir" ] && [ -e "$slurm_dir/slurm.conf" ] || return 0
  local jobs
  jobs=$(timeout 10 squeue -h -o %i 2>/dev/null) || true
  if [ -n "$jobs" ]; then
    timeout 10 scancel --full --signal=KILL $jobs 2>/dev/null || true
    timeout 10 scancel $jobs 2>/dev/null || true
    slurm_wait 20 slurm_queue_empty || true
  fi
  local i pid
  for ((i = ${#slurm_pids[@]} - 1; i >= 0; i--)); do
    pid=${slurm_pids[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    slurm_wait 10 bash -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null || true
  done
  slurm_pids=()
}
