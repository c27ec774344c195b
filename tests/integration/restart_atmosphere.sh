# The atmosphere restarts bitwise: its checkpoint holds the state and which direction the next step sweeps
# first (the splitting alternates); a checkpoint written on 4 ranks continues on 2 bitwise too (a stencil
# solver: every face's flux has the same operands on any decomposition). The density current, small: 38
# steps, so the restart at step 19 starts with the other direction first.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/atmosphere/density_current.toml"
settings=(--set mesh.nx=64 --set mesh.nz=16 --set run.end_time=42 --set run.output_interval=21
          --set run.progress_every=1000 --set run.diagnostics_every=3 --set run.checkpoint_every_minutes=0)
check_restarts "$deck" "" "${settings[@]}"
# In 3-D the checkpoint holds rho v too; 16 x 16 x 8 cells, 14 steps, so the restart at step 7 sweeps z to x.
rm -rf "${work:?}"/*  # check_restarts writes its runs to the same folders
deck="$SOURCE_DIR/configs/atmosphere/rising_thermal_3d.toml"
settings=(--set mesh.nx=16 --set mesh.ny=16 --set mesh.nz=8 --set run.end_time=48 --set run.output_interval=24
          --set run.progress_every=1000 --set run.diagnostics_every=3 --set run.checkpoint_every_minutes=0)
check_restarts "$deck" "" "${settings[@]}"
# With moisture the checkpoint holds the water's partial densities too: the moist bubble, 50 x 25 cells.
rm -rf "${work:?}"/*
deck="$SOURCE_DIR/configs/atmosphere/bryan_fritsch_moist.toml"
settings=(--set mesh.nx=50 --set mesh.nz=25 --set run.end_time=40 --set run.output_interval=20
          --set run.progress_every=1000 --set run.diagnostics_every=3 --set run.checkpoint_every_minutes=0)
check_restarts "$deck" "" "${settings[@]}"
echo "atmosphere restart tests passed"
