# The same deck gives identical output on 1, 2 and 4 ranks: fields bitwise, reduced diagnostics
# to 1e-14 relative. Small grid, few steps: 4 ranks on 2 cores busy-poll.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/advection/slotted_disk_fct.toml"
settings=(--set mesh.nx=64 --set mesh.ny=64 --set run.end_time=0.05 --set run.output_interval=0.025
          --set run.diagnostics_every=5 --set run.progress_every=1000)
for ranks in 1 2 4; do
  meridian_on "$ranks" run "$deck" "${settings[@]}" --output "$work/np$ranks" > "$work/np$ranks.log"
done
$compare "$work/np1" "$work/np2"
$compare "$work/np1" "$work/np4"
