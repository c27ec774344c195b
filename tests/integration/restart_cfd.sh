# The spectral solver restarts bitwise on the same rank count; a checkpoint written on 4 ranks
# continues on 2 and agrees to round-off (the FFTs split their sums differently on 4 ranks).
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/cfd/taylor_green_re1600.toml"
settings=(--set mesh.nx=16 --set mesh.ny=16 --set mesh.nz=16 --set cfd.dt=0.02 --set run.end_time=0.4 --set run.output_interval=0.2
          --set run.progress_every=1000 --set run.diagnostics_every=2 --set run.checkpoint_every_minutes=0)
check_restarts "$deck" --round-off "${settings[@]}"
