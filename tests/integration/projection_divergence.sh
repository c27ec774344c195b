# After each projection with the direct pressure solver, max |div u| <= 1e-12 max|u| / h on every shipped
# projection deck without bodies, at its own grid and at 512^2 (2-D) or 64^3 (3-D), on 2 ranks: the solve is
# exact to round-off, where CG stopped at its tolerance.
source "$(dirname "$0")/common.sh"
checked=0
for deck in "$SOURCE_DIR"/configs/cfd/*.toml; do
  grep -q 'kind = "cfd_projection"' "$deck" || continue
  grep -q '^\[bodies\]' "$deck" && continue
  name=$(basename "$deck" .toml)
  if grep -q '^nz' "$deck"; then large=(--set mesh.nx=64 --set mesh.ny=64 --set mesh.nz=64); else large=(--set mesh.nx=512 --set mesh.ny=512); fi
  for size in shipped large; do
    settings=()
    [ "$size" = large ] && settings=("${large[@]}")
    out="$work/$name.$size"
    meridian_on 2 run "$deck" "${settings[@]}" --set projection.pressure_solver=direct --set run.max_steps=3 \
      --set run.diagnostics_every=1 --set run.output_interval=0 --output "$out" > "$out.log" 2>&1 \
      || { cat "$out.log" >&2; fail "$name ($size grid): the run failed"; }
    grep -q "pressure by the direct solver" "$out.log" || fail "$name: the run did not use the direct solver"
    "$MERIDIAN_PYTHON" - "$out" <<'PY' || fail "$name ($size grid): the divergence after the projection is not round-off"
import glob, sys, h5py, numpy
folder = sys.argv[1]
with h5py.File(f"{folder}/diagnostics.h5") as f:
    d = f["diagnostics"]
    steps, divergence = d["step"][:], d["divergence_residual"][:]
# The face velocities after the last step are the checkpoint's; the spacing is the field files'.
with h5py.File(sorted(glob.glob(f"{folder}/checkpoints/*.h5"))[-1]) as f:
    speed = max(numpy.abs(f["state"][c][...]).max() for c in ("u", "v", "w") if c in f["state"])
with h5py.File(f"{folder}/fields_00000.h5") as f:
    u = f["fields"]["u"]
    h = min(u.attrs[f"spacing_{a}"] for a in "xyz" if f"spacing_{a}" in u.attrs)
bound = 1e-12 * speed / h
worst = divergence[steps > 0].max()
print(f"{folder}: max |div u| {worst:.3e} after the projections, bound 1e-12 max|u|/h = {bound:.3e}")
assert speed > 0 and worst <= bound
PY
    checked=$((checked + 1))
  done
done
[ "$checked" -ge 10 ] || fail "checked only $checked deck sizes; expected the 5 body-free projection decks at two sizes each"
