# Ranks on different hosts: three "hosts" on this machine, each a network namespace with its own
# address on a bridge and its own boot_id (so UCX talks TCP between them instead of shared memory),
# the proxies started by hydra's rsh launcher through `ip netns exec` (../shared/docs/mpi.md). A
# 3-rank advection run and a 3-rank Monte Carlo run across them must write what the same runs write
# on one host, bitwise, and so must a run stopped at a checkpoint and continued across the hosts.
# MPICH 4.0.2 hangs in MPI_Finalize over TCP (every time for three hosts here), and a rank cut out of
# it makes mpiexec fail: on several hosts meridian skips it, so every run here must exit 0 promptly.
# Needs root and network namespaces: skipped (77) where either is missing.
source "$(dirname "$0")/common.sh"
[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root for network namespaces"; exit 77; }
tag=m$$
net=10.$((100 + $$ % 100)).$((($$ / 100) % 250)).
hosts=()
cleanup() {
  for i in 1 2 3; do ip netns del "$tag-$i" 2> /dev/null || true; done
  ip link del "${tag}br" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
if ! ip link add "${tag}br" type bridge 2> /dev/null || ! ip netns add "$tag-probe" 2> /dev/null; then
  echo "skipped: cannot create network namespaces here"
  exit 77
fi
ip netns del "$tag-probe"
ip addr add "${net}1/24" dev "${tag}br"
ip link set "${tag}br" up
for i in 1 2 3; do
  ip netns add "$tag-$i"
  ip link add "${tag}v$i" type veth peer name eth0 netns "$tag-$i"
  ip link set "${tag}v$i" master "${tag}br" up
  ip -n "$tag-$i" addr add "${net}1$i/24" dev eth0
  ip -n "$tag-$i" link set eth0 up
  ip -n "$tag-$i" link set lo up
  cat /proc/sys/kernel/random/uuid > "$work/boot_id.$i"
  hosts+=("${net}1$i")
done
# hydra calls this as `launcher HOST COMMAND...` with the command quoted for a shell, as rsh would.
cat > "$work/launcher" <<LAUNCHER
#!/bin/bash
host=\$1; shift
i=\${host: -1}
exec ip netns exec "$tag-\$i" unshare -m bash -c "mount --bind $work/boot_id.\$i /proc/sys/kernel/random/boot_id && exec \$*"
LAUNCHER
chmod +x "$work/launcher"
# across_hosts COMMAND...: three ranks of COMMAND, one on each host.
across_hosts() {
  timeout 60 "$MPIEXEC" -iface "${tag}br" -launcher rsh -launcher-exec "$work/launcher" \
    -hosts "$(IFS=,; echo "${hosts[*]}")" -n 3 -genv MERIDIAN_FINALIZE_TIMEOUT 3 "$@"
}
across_hosts "$MERIDIAN" --version > /dev/null 2>&1 || fail "mpiexec could not start ranks in the namespaces"
# The ranks really are apart: three boot_ids.
seen=$(across_hosts cat /proc/sys/kernel/random/boot_id | sort -u | wc -l)
[ "$seen" -eq 3 ] || fail "the three ranks saw $seen boot_ids, not 3"

advection=("$SOURCE_DIR/configs/advection/deformational_flow.toml" --set mesh.nx=48 --set mesh.ny=48
           --set run.end_time=0.3 --set run.output_interval=0.15)
meridian_on 3 run "${advection[@]}" --output "$work/advection_one_host" > "$work/advection_one_host.log"
across_hosts "$MERIDIAN" run "${advection[@]}" --output "$work/advection_hosts" > "$work/advection_hosts.log" 2>&1 \
  || { cat "$work/advection_hosts.log"; fail "the advection run across hosts failed"; }
$compare "$work/advection_one_host" "$work/advection_hosts"

finance=("$SOURCE_DIR/configs/finance/portfolio.toml" --set finance.paths=30000 --set finance.steps=12
         --set finance.target_standard_error=0)
meridian_on 3 run "${finance[@]}" --output "$work/finance_one_host" > "$work/finance_one_host.log"
across_hosts "$MERIDIAN" run "${finance[@]}" --output "$work/finance_hosts" > "$work/finance_hosts.log" 2>&1 \
  || { cat "$work/finance_hosts.log"; fail "the Monte Carlo run across hosts failed"; }
$compare "$work/finance_one_host" "$work/finance_hosts"

# Preempted at a checkpoint and continued, both parts across the hosts.
across_hosts "$MERIDIAN" run "${advection[@]}" --set run.max_steps=20 --output "$work/continued" > "$work/first.log" 2>&1 \
  || { cat "$work/first.log"; fail "the first part across hosts failed"; }
across_hosts "$MERIDIAN" run "${advection[@]}" --restart latest --output "$work/continued" > "$work/second.log" 2>&1 \
  || { cat "$work/second.log"; fail "the restart across hosts failed"; }
grep -q "restarting from" "$work/second.log" || fail "the second part did not restart"
$compare "$work/advection_one_host" "$work/continued"
echo "three hosts: advection, Monte Carlo and a restart bitwise as on one host"
