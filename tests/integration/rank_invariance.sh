# The same deck gives identical output on 1, 2 and 4 ranks: fields bitwise, reduced diagnostics
# to 1e-14 relative. Small grids, few steps: 4 ranks on 2 cores busy-poll.
source "$(dirname "$0")/common.sh"
deck="$SOURCE_DIR/configs/advection/slotted_disk_fct.toml"
settings=(--set mesh.nx=64 --set mesh.ny=64 --set run.end_time=0.05 --set run.output_interval=0.025
          --set run.diagnostics_every=5 --set run.progress_every=1000)
for ranks in 1 2 4; do
  meridian_on "$ranks" run "$deck" "${settings[@]}" --output "$work/np$ranks" > "$work/np$ranks.log"
done
$compare "$work/np1" "$work/np2"
$compare "$work/np1" "$work/np4"

# The atmosphere: the density current between side walls with eddy viscosity, cut along the vertical on
# 2 ranks and both ways on 4; the periodic thermal cut along x only, split and unsplit.
deck="$SOURCE_DIR/configs/atmosphere/density_current.toml"
settings=(--set mesh.nx=64 --set mesh.nz=16 --set run.end_time=40 --set run.output_interval=20
          --set run.diagnostics_every=5 --set run.progress_every=1000)
meridian_on 1 run "$deck" "${settings[@]}" --output "$work/atm1" > "$work/atm1.log"
meridian_on 2 run "$deck" "${settings[@]}" --set mesh.process_grid=[1,1,2] --output "$work/atm2" > "$work/atm2.log"
meridian_on 4 run "$deck" "${settings[@]}" --set mesh.process_grid=[2,1,2] --output "$work/atm4" > "$work/atm4.log"
$compare "$work/atm1" "$work/atm2"
$compare "$work/atm1" "$work/atm4"
# WRF's 5th-order fluxes: a 3-cell halo, cut both ways.
meridian_on 1 run "$deck" "${settings[@]}" --set atmosphere.reconstruction=\"fifth_order_upwind\" --output "$work/fifth1" > "$work/fifth1.log"
meridian_on 4 run "$deck" "${settings[@]}" --set atmosphere.reconstruction=\"fifth_order_upwind\" \
  --set mesh.process_grid=[2,1,2] --output "$work/fifth4" > "$work/fifth4.log"
$compare "$work/fifth1" "$work/fifth4"
deck="$SOURCE_DIR/configs/atmosphere/rising_thermal.toml"
settings=(--set mesh.nx=48 --set mesh.nz=24 --set run.end_time=60 --set run.output_interval=30
          --set run.diagnostics_every=5 --set run.progress_every=1000)
meridian_on 1 run "$deck" "${settings[@]}" --output "$work/thermal1" > "$work/thermal1.log"
meridian_on 4 run "$deck" "${settings[@]}" --set mesh.process_grid=[4,1,1] --output "$work/thermal4" > "$work/thermal4.log"
$compare "$work/thermal1" "$work/thermal4"
meridian_on 1 run "$deck" "${settings[@]}" --set atmosphere.splitting=\"unsplit\" --output "$work/unsplit1" > "$work/unsplit1.log"
meridian_on 2 run "$deck" "${settings[@]}" --set atmosphere.splitting=\"unsplit\" --set mesh.process_grid=[2,1,1] \
  --output "$work/unsplit2" > "$work/unsplit2.log"
$compare "$work/unsplit1" "$work/unsplit2"

# Moist air: Bryan & Fritsch's moist bubble between walls (water carried, adjusted each step), 50 x 25 cells,
# cut along the vertical on 2 ranks and both ways on 4.
deck="$SOURCE_DIR/configs/atmosphere/bryan_fritsch_moist.toml"
settings=(--set mesh.nx=50 --set mesh.nz=25 --set run.end_time=120 --set run.output_interval=60
          --set run.diagnostics_every=5 --set run.progress_every=1000)
meridian_on 1 run "$deck" "${settings[@]}" --output "$work/moist1" > "$work/moist1.log"
meridian_on 2 run "$deck" "${settings[@]}" --set mesh.process_grid=[1,1,2] --output "$work/moist2" > "$work/moist2.log"
meridian_on 4 run "$deck" "${settings[@]}" --set mesh.process_grid=[2,1,2] --output "$work/moist4" > "$work/moist4.log"
$compare "$work/moist1" "$work/moist2"
$compare "$work/moist1" "$work/moist4"
# And in 3-D, 20^3 cells of 1 km x 1 km x 500 m, cut along x and y on 4 ranks.
deck="$SOURCE_DIR/configs/atmosphere/rising_thermal_3d.toml"
settings=(--set mesh.nx=20 --set mesh.ny=20 --set mesh.nz=20 --set atmosphere.case=\"bryan_fritsch\"
          --set atmosphere.sides=\"wall\" --set moisture.water=\"saturated_neutral\" --set run.end_time=200
          --set run.output_interval=100 --set run.diagnostics_every=5 --set run.progress_every=1000)
meridian_on 1 run "$deck" "${settings[@]}" --output "$work/moist3d1" > "$work/moist3d1.log"
meridian_on 4 run "$deck" "${settings[@]}" --set mesh.process_grid=[2,2,1] --output "$work/moist3d4" > "$work/moist3d4.log"
$compare "$work/moist3d1" "$work/moist3d4"

# The atmosphere in 3-D: the thermal between side walls in x and y with eddy viscosity, cut along y; the
# periodic thermal unsplit, cut along x and z. 16 x 16 x 8 cells.
deck="$SOURCE_DIR/configs/atmosphere/rising_thermal_3d.toml"
settings=(--set mesh.nx=16 --set mesh.ny=16 --set mesh.nz=8 --set run.end_time=60 --set run.output_interval=30
          --set run.diagnostics_every=5 --set run.progress_every=1000)
walls=(--set atmosphere.sides=\"wall\" --set atmosphere.viscosity=75.0 --set atmosphere.diffusivity=75.0)
meridian_on 1 run "$deck" "${settings[@]}" "${walls[@]}" --output "$work/box1" > "$work/box1.log"
meridian_on 2 run "$deck" "${settings[@]}" "${walls[@]}" --set mesh.process_grid=[1,2,1] --output "$work/box2" > "$work/box2.log"
$compare "$work/box1" "$work/box2"
meridian_on 1 run "$deck" "${settings[@]}" --set atmosphere.splitting=\"unsplit\" --output "$work/box_unsplit1" > "$work/box_unsplit1.log"
meridian_on 2 run "$deck" "${settings[@]}" --set atmosphere.splitting=\"unsplit\" --set mesh.process_grid=[2,1,1] \
  --output "$work/box_unsplit2x" > "$work/box_unsplit2x.log"
meridian_on 2 run "$deck" "${settings[@]}" --set atmosphere.splitting=\"unsplit\" --set mesh.process_grid=[1,1,2] \
  --output "$work/box_unsplit2z" > "$work/box_unsplit2z.log"
$compare "$work/box_unsplit1" "$work/box_unsplit2x"
$compare "$work/box_unsplit1" "$work/box_unsplit2z"
