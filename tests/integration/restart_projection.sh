# The projection solver restarts bitwise on the same rank count (the pressure, AB2's previous tendency and
# whether the next step is a first one are in the checkpoint; an outflow face's velocity is rebuilt from its
# cell's continuity); a checkpoint written on 4 ranks continues on 2 and agrees to round-off (CG's sums split
# differently). A coarse Schaefer-Turek 2D-2 (cylinder, ramped parabolic inflow, convective outflow,
# Crank-Nicolson viscosity), both solves to 1e-13.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/cfd/schaefer_turek_2d2.toml"
settings=(--set mesh.nx=88 --set mesh.ny=16 --set run.end_time=0.12 --set run.output_interval=0.06
          --set run.progress_every=1000 --set run.diagnostics_every=2 --set run.checkpoint_every_minutes=0
          --set projection.poisson_tolerance=1e-13 --set projection.inflow_ramp_time=0.06)
check_restarts "$deck" --round-off "${settings[@]}"
