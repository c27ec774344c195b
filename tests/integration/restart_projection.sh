# The projection solver restarts bitwise on the same rank count (the pressure, AB2's previous tendency and
# whether the next step is a first one are in the checkpoint); a checkpoint written on 4 ranks continues on
# 2 and agrees to round-off (CG's sums split differently). A small cavity, Poisson tolerance 1e-13.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/cfd/lid_driven_cavity_re100.toml"
settings=(--set mesh.nx=32 --set mesh.ny=32 --set run.end_time=0.25 --set run.output_interval=0.125
          --set run.progress_every=1000 --set run.diagnostics_every=5 --set run.checkpoint_every_minutes=0
          --set projection.poisson_tolerance=1e-13)
check_restarts "$deck" --round-off "${settings[@]}"
