# Bad input: every case exits with code 2, names the key (or file) at fault, and writes nothing.
source "$(dirname "$0")/common.sh"
head='[solver]
kind = "advection"
'
cases=0
# expect_rejected NAME EXPECTED_TEXT DECK_TEXT [ARGS...]
expect_rejected() {
  local name=$1 expected=$2 text=$3
  shift 3
  local deck="$work/$name.toml" out="$work/out_$name"
  [ "$text" = "-" ] || printf '%s\n' "$text" > "$deck"
  set +e
  meridian_on 2 run "$deck" --output "$out" "$@" > "$work/$name.log" 2>&1
  local code=$?
  set -e
  [ "$code" -eq 2 ] || { cat "$work/$name.log"; fail "$name: exit code $code, expected 2"; }
  grep -qF -- "$expected" "$work/$name.log" || { cat "$work/$name.log"; fail "$name: message does not name '$expected'"; }
  grep -q "Segmentation\|BAD TERMINATION" "$work/$name.log" && fail "$name: crashed"
  [ ! -e "$out" ] || fail "$name: wrote output"
  # `check` runs the same validation as `run`.
  if [ "$text" != "-" ]; then
    set +e
    meridian_on 2 check "$deck" "$@" > "$work/$name.check.log" 2>&1
    code=$?
    set -e
    [ "$code" -eq 2 ] || { cat "$work/$name.check.log"; fail "$name: check exited $code where run refused the deck"; }
    grep -qF -- "$expected" "$work/$name.check.log" || fail "$name: check does not name '$expected'"
  fi
  cases=$((cases + 1))
}

expect_rejected epoch_not_a_date "run.epoch" "$head
[run]
epoch = \"2000-13-01 00:00:00\""

projection='[solver]
kind = "cfd_projection"
'
expect_rejected wall_velocity_on_periodic_axis "projection.wall_velocity" "$projection
[mesh]
boundary_x = \"open\"
[projection]
wall_velocity = [0.0, 0.0, 0.0, 1.0]"
expect_rejected inflow_on_periodic_face "projection.faces" "$projection
[mesh]
boundary_y = \"open\"
[projection]
faces = [\"inflow\", \"outflow\", \"wall\", \"wall\"]"
expect_rejected body_outside_domain "bodies.centres" "$projection
[mesh]
boundary_x = \"open\"
boundary_y = \"open\"
[bodies]
shapes = [\"circle\"]
centres = [0.95, 0.5]
sizes = [0.2]"
expect_rejected bad_naca_code "bodies.naca_code" "$projection
[mesh]
boundary_x = \"open\"
boundary_y = \"open\"
[bodies]
shapes = [\"naca\"]
centres = [0.5, 0.5]
sizes = [0.5]
naca_code = \"12\""
# The direct solver takes any grid; the Krylov path's multigrid needs one it can coarsen.
expect_rejected multigrid_cannot_coarsen "multigrid: the grid 65 x 65" "$projection
[mesh]
nx = 65
ny = 65
[projection]
pressure_solver = \"krylov\""
expect_rejected zero_poisson_tolerance "projection.poisson_tolerance" "$projection
[projection]
poisson_tolerance = 0.0"
atmosphere='[solver]
kind = "atmosphere"
'
expect_rejected atmosphere_negative_temperature "atmosphere.surface_theta" "$atmosphere
[atmosphere]
surface_theta = -10.0"
expect_rejected atmosphere_bubble_below_absolute_zero "negative absolute temperature" "$atmosphere
[atmosphere]
case = \"colliding_thermals\"
surface_theta = 15.0"
# Moist air (#26): negative water, vapour above saturation without the adjustment, a saturated column whose
# pressure falls to the vapour's own below the lid, and a case the saturated state does not have.
expect_rejected moisture_negative_vapour "moisture.vapour" "$atmosphere
[moisture]
water = \"uniform_vapour\"
vapour = -0.001"
expect_rejected moisture_negative_total_water "moisture.total_water" "$atmosphere
[moisture]
water = \"saturated_neutral\"
total_water = -0.02"
expect_rejected moisture_supersaturated_without_adjustment "moisture.vapour" "$atmosphere
[moisture]
water = \"uniform_vapour\"
vapour = 0.01
saturation_adjustment = false"
expect_rejected moisture_sounding_below_the_lid "atmosphere.height" "$atmosphere
[mesh]
nz = 60
[atmosphere]
case = \"rest\"
height = 60000.0
[moisture]
water = \"saturated_neutral\""
expect_rejected moisture_case_without_saturated_form "atmosphere.case" "$atmosphere
[atmosphere]
case = \"density_current\"
[moisture]
water = \"saturated_neutral\""
expect_rejected atmosphere_courant_above_limit "atmosphere.courant" "$atmosphere
[atmosphere]
courant = 1.4"
expect_rejected atmosphere_fixed_dt_above_limit "atmosphere.dt" "$atmosphere
[atmosphere]
dt = 1.0"
expect_rejected atmosphere_rayleigh_deeper_than_domain "atmosphere.rayleigh_depth" "$atmosphere
[atmosphere]
rayleigh_depth = 20000.0
rayleigh_rate = 0.01"
expect_rejected atmosphere_fifth_order_on_two_levels "mesh.nz" "$atmosphere
[mesh]
nz = 2
[atmosphere]
reconstruction = \"fifth_order_upwind\""
expect_rejected atmosphere_domain_too_high "atmosphere.height" "$atmosphere
[atmosphere]
height = 40000.0"
expect_rejected atmosphere_stratified_domain_too_high "cannot support" "$atmosphere
[atmosphere]
buoyancy_frequency = 0.01
height = 38000.0"
expect_rejected atmosphere_linear_wave_without_isothermal_background "atmosphere.background" "$atmosphere
[atmosphere]
case = \"linear_gravity_wave\""
expect_rejected atmosphere_isothermal_with_buoyancy_frequency "atmosphere.buoyancy_frequency" "$atmosphere
[atmosphere]
background = \"isothermal\"
buoyancy_frequency = 0.01"
expect_rejected atmosphere_one_sided_walls_with_fifth_order "atmosphere.wall_closure" "$atmosphere
[atmosphere]
wall_closure = \"one_sided\"
reconstruction = \"fifth_order_upwind\""
expect_rejected atmosphere_slice_cut_along_y "mesh.process_grid" "$atmosphere
[mesh]
process_grid = [1, 2, 1]"
# A 2-D deck with cells along y: the message names the file, the key and the one value allowed.
expect_rejected atmosphere_slice_with_cells_along_y "atmosphere_slice_with_cells_along_y.toml:6: key 'mesh.ny' = 4: a 2-D atmosphere (mesh.dimensions = 2) is an x-z slice: allowed is ny = 1 only" "$atmosphere
[mesh]
dimensions = 2
ny = 4"
expect_rejected typo_key "mesh.nxx" "$head
[mesh]
nxx = 64"
expect_rejected wrong_type "mesh.nx" "$head
[mesh]
nx = \"64\""
expect_rejected negative_size "mesh.ny" "$head
[mesh]
ny = -8"
expect_rejected zero_courant "advection.courant" "$head
[advection]
courant = 0.0"
expect_rejected unknown_solver "solver.kind" '[solver]
kind = "spectral_magic"'
expect_rejected no_such_deck "no_such_deck.toml" -
expect_rejected unknown_section "[mesh2]" "$head
[mesh2]
nx = 3"
expect_rejected bad_choice "advection.wind" "$head
[advection]
wind = \"hurricane\""
expect_rejected syntax_error "syntax_error.toml" "$head
[mesh]
nx = = 3"
expect_rejected cannot_decompose "mesh.nx" "$head
[mesh]
nx = 4
ny = 4
process_grid = [2, 1, 1]"
expect_rejected too_large_for_memory "mesh.nx" "$head
[mesh]
nx = 40000
ny = 40000"
expect_rejected overflowing_grid "over 1.7e10 GiB" "$head
[mesh]
nx = 1000000000
ny = 1000000000"
expect_rejected projection_too_large "mesh.nx" '[solver]
kind = "cfd_projection"
[mesh]
dimensions = 3
nx = 2048
ny = 2048
nz = 2048'
# 1024^3 on 2 ranks: past the assembled operator's 32-bit indices, within the direct solver's, so only a Krylov
# deck meets that limit and a direct one the memory's.
big_projection='[solver]
kind = "cfd_projection"
[mesh]
dimensions = 3
nx = 1024
ny = 1024
nz = 1024
[projection]'
expect_rejected krylov_past_32_bit_indices "32-bit indices" "$big_projection
pressure_solver = \"krylov\""
expect_rejected direct_needs_memory "pressure and viscous solvers, more than" "$big_projection
pressure_solver = \"direct\""
expect_rejected spectral_too_large "mesh.nx" '[solver]
kind = "cfd_spectral"
[mesh]
dimensions = 3
nx = 2048
ny = 2048
nz = 2048'
expect_rejected process_grid_not_the_ranks "mesh.process_grid" "$head
[mesh]
process_grid = [1, 1, 1]"
expect_rejected process_grid_z_in_2d "mesh.process_grid" "$head
[mesh]
process_grid = [2, 0, 5]"
expect_rejected spectral_process_grid "mesh.process_grid" '[solver]
kind = "cfd_spectral"
[mesh]
dimensions = 3
nx = 16
ny = 16
nz = 16
process_grid = [1, 1, 1]'
expect_rejected fct_above_courant_one "advection.courant" "$head
[advection]
limiter = \"fct\"
courant = 1.2"
expect_rejected bad_message_path "run.gpu_aware_mpi" "$head
[run]
gpu_aware_mpi = \"sometimes\""
expect_rejected no_solver_kind "solver.kind" '[mesh]
nx = 8'
expect_rejected unknown_override "--set advection.speed" "$head" --set advection.speed=3
expect_rejected nz_in_2d "mesh.nz" "$head
[mesh]
nz = 4"
expect_rejected negative_end_time "run.end_time" "$head
[run]
end_time = -1.0"
expect_rejected repeated_tracer "advection.tracers" "$head
[advection]
tracers = [\"gaussian\", \"gaussian\"]"
finance='[solver]
kind = "monte_carlo"
[finance]'
expect_rejected not_positive_definite "not positive definite" "$finance
spot = [100.0, 100.0, 100.0]
volatility = [0.2, 0.2, 0.2]
dividend_yield = [0.0, 0.0, 0.0]
correlation = [1.0, 0.9, -0.9, 0.9, 1.0, 0.9, -0.9, 0.9, 1.0]"
expect_rejected negative_volatility "finance.volatility" "$finance
volatility = [-0.2]"
expect_rejected barrier_wrong_side "finance.barrier" "$finance
products = [\"barrier_down_out_call\"]
barrier = 120.0"
expect_rejected zero_paths "finance.paths" "$finance
paths = 0"
expect_rejected paths_beyond_all "run.end_time" "[solver]
kind = \"monte_carlo\"
[run]
end_time = 2.0"
expect_rejected spectral_one_cell "mesh.nx" '[solver]
kind = "cfd_spectral"
[mesh]
dimensions = 3
nx = 1
ny = 16
nz = 16'
expect_rejected no_spots "finance.spot" "$finance
spot = []"
expect_rejected no_volatilities "finance.volatility" "$finance
volatility = []"
expect_rejected correlation_not_a_matrix "finance.correlation" "$finance
correlation = [-1.0]"
expect_rejected down_barrier_at_zero "finance.barrier" "$finance
products = [\"barrier_down_out_call\"]
barrier = 0.0"
expect_rejected exercise_on_a_barrier "finance.exercise_dates_per_year" "$finance
products = [\"barrier_down_out_call\"]
barrier = 90.0
exercise_dates_per_year = 12"
expect_rejected bermudan_without_dates "finance.exercise_dates_per_year" "$finance
products = [\"bermudan_put\"]"
expect_rejected exercise_dates_not_whole "finance.exercise_dates_per_year" "$finance
products = [\"bermudan_put\"]
maturity = 0.3
exercise_dates_per_year = 12"
expect_rejected exercise_dates_not_dividing_steps "finance.steps" "$finance
products = [\"bermudan_put\"]
exercise_dates_per_year = 50
steps = 252"
expect_rejected basis_order_above_limit "finance.regression_order" "$finance
products = [\"bermudan_put\"]
exercise_dates_per_year = 4
steps = 4
regression_order = 9"
expect_rejected basis_too_large_for_assets "finance.regression_order" "$finance
products = [\"bermudan_max_call\"]
spot = [100.0, 100.0, 100.0, 100.0, 100.0]
volatility = [0.2, 0.2, 0.2, 0.2, 0.2]
dividend_yield = [0.0, 0.0, 0.0, 0.0, 0.0]
exercise_dates_per_year = 4
steps = 4
regression_order = 3"
expect_rejected calibration_beyond_memory "finance.calibration_paths" "$finance
products = [\"bermudan_max_call\"]
spot = [100.0, 100.0, 100.0, 100.0, 100.0]
volatility = [0.2, 0.2, 0.2, 0.2, 0.2]
dividend_yield = [0.0, 0.0, 0.0, 0.0, 0.0]
exercise_dates_per_year = 252
steps = 252
regression_order = 2
calibration_paths = 16777216"
expect_rejected exercise_date_after_maturity "finance.exercise_dates" "$finance
products = [\"bermudan_put\"]
steps = 4
exercise_dates = [0.5, 1.5]"
expect_rejected exercise_date_at_the_start "finance.exercise_dates" "$finance
products = [\"bermudan_put\"]
steps = 4
exercise_dates = [0.0, 1.0]"
expect_rejected exercise_date_off_the_steps "finance.exercise_dates" "$finance
products = [\"bermudan_put\"]
steps = 4
exercise_dates = [0.3, 1.0]"
expect_rejected richardson_on_a_dates_list "finance.exercise_extrapolation" "$finance
products = [\"bermudan_put\"]
steps = 4
exercise_dates = [0.5, 1.0]
exercise_extrapolation = \"richardson\""
expect_rejected richardson_finest_dates_off_the_steps "finance.steps" "$finance
products = [\"bermudan_put\"]
steps = 100
exercise_dates_per_year = 50
exercise_extrapolation = \"richardson\""
expect_rejected exercise_dates_both_ways "finance.exercise_dates" "$finance
products = [\"bermudan_put\"]
steps = 4
exercise_dates_per_year = 4
exercise_dates = [0.5, 1.0]"
expect_rejected heston_two_spots "finance.spot" "$finance
model = \"heston\"
spot = [100.0, 90.0]"
expect_rejected zero_strike "finance.strike" "$finance
strike = 0.0"
expect_rejected zero_volatility "finance.volatility" "$finance
volatility = [0.0]"
expect_rejected heston_zero_variance "finance.heston_v0" "$finance
model = \"heston\"
heston_v0 = 0.0
heston_theta = 0.0"
# A team shape the GPU kernels do not take, from the environment: refused before anything runs, naming it.
MERIDIAN_TEAM_WARPS=3 expect_rejected team_warps_not_offered "MERIDIAN_TEAM_WARPS='3'" \
  "$(cat "$SOURCE_DIR/configs/advection/solid_body_rotation.toml")"
[ "$cases" -ge 10 ] || fail "only $cases cases ran"
echo "$cases bad decks rejected cleanly"
