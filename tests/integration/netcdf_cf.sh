# Field and diagnostics files read as netCDF-4 with CF conventions (issue #23), by Debian's xarray (through
# netCDF4), ncdump and cdo: every solver's field file opens with named dimensions and coordinates at the cell
# centres its deck implies, its diagnostics as series over one time dimension; ncdump names the dimensions; cdo
# reads an atmosphere file's grid (x points, z levels) and time; a field written on 1 and on 3 ranks has the same coordinates.
source "$(dirname "$0")/common.sh"
command -v ncdump > /dev/null || fail "ncdump not found: install netcdf-bin (scripts/setup.sh does)"
command -v cdo > /dev/null || fail "cdo not found: install cdo (scripts/setup.sh does)"
"$MERIDIAN_PYTHON" -c "import xarray, netCDF4" || fail "$MERIDIAN_PYTHON imports no xarray or netCDF4: install python3-xarray and python3-netcdf4 (scripts/setup.sh does)"

run_deck() {  # NAME RANKS DECK SETTINGS...: the first step, its fields written at the start
  local name=$1 ranks=$2 deck=$3
  shift 3
  meridian_on "$ranks" run "$SOURCE_DIR/configs/$deck" --set run.max_steps=1 --set run.diagnostics_every=1 --set run.checkpoint_every_minutes=0 \
    "$@" --output "$work/$name" > "$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; fail "$name did not run"; }
}
run_deck advection 2 advection/solid_body_rotation.toml --set mesh.nx=48 --set mesh.ny=40
run_deck advection_one 1 advection/solid_body_rotation.toml --set mesh.nx=48 --set mesh.ny=40
run_deck advection_three 3 advection/solid_body_rotation.toml --set mesh.nx=48 --set mesh.ny=40
run_deck atmosphere 2 atmosphere/density_current.toml --set mesh.nx=64 --set mesh.nz=16 --set 'run.epoch="2024-06-01 12:00:00"'
run_deck cfd_spectral 2 cfd/taylor_green_2d.toml
run_deck cfd_projection 2 cfd/schaefer_turek_2d1.toml --set mesh.nx=88 --set mesh.ny=16
run_deck monte_carlo 2 finance/asian.toml --set finance.paths=65536

"$MERIDIAN_PYTHON" "$SOURCE_DIR/tests/integration/check_cf_output.py" "$work" || fail "the CF layout check failed"

for name in advection atmosphere cfd_projection; do
  ncdump -h "$work/$name/fields_00000.h5" > "$work/$name.cdl" || fail "ncdump -h cannot read $name's field file"
done
grep -q "time = UNLIMITED ; // (1 currently)" "$work/advection.cdl" || fail "ncdump shows no unlimited time: $(head -8 "$work/advection.cdl")"
grep -q "double cosine_bell(time, y, x)" "$work/advection.cdl" || fail "ncdump shows no cosine_bell(time, y, x)"
grep -q "double theta_perturbation(time, z, x)" "$work/atmosphere.cdl" || fail "ncdump shows no theta_perturbation(time, z, x)"
grep -q "u:_FillValue = 9.96920996838687e+36" "$work/cfd_projection.cdl" || fail "ncdump shows no _FillValue on u"

cdo sinfo "$work/atmosphere/fields_00000.h5" > "$work/cdo.txt" 2>&1 || { cat "$work/cdo.txt" >&2; fail "cdo sinfo cannot read an atmosphere field file"; }
cat "$work/cdo.txt"
grep -q "points=64$" "$work/cdo.txt" && grep -q "levels=16$" "$work/cdo.txt" || fail "cdo reports another grid than 64 points x 16 levels"
grep -q "z : 200 to 6200 by 400 m" "$work/cdo.txt" || fail "cdo reports no height axis z at the cell centres"
grep -q "RefTime =  2024-06-01 12:00:00" "$work/cdo.txt" || fail "cdo reports another reference time than the deck's epoch"
grep -q "time : 1 step" "$work/cdo.txt" || fail "cdo reports no time step"
echo "netCDF/CF layout read by xarray, ncdump and cdo"
