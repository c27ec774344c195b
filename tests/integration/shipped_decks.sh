# Every shipped deck is valid, runs its first steps on 2 ranks, and records finite diagnostics:
# a deck that drifted from the schema, or a solver path only a shipped deck takes, fails here.
source "$(dirname "$0")/common.sh"
decks=("$SOURCE_DIR"/configs/*/*.toml)
[ ${#decks[@]} -ge 10 ] || fail "found only ${#decks[@]} shipped decks"
for deck in "${decks[@]}"; do
  name=$(basename "$deck" .toml)
  "$MERIDIAN" check "$deck" > "$work/$name.check" || fail "meridian check $deck"
  grep -q ": valid;" "$work/$name.check" || fail "meridian check $deck did not say valid"
  meridian_on 2 run "$deck" --set run.max_steps=2 --set run.diagnostics_every=1 --output "$work/$name" > "$work/$name.log" 2>&1 \
    || { cat "$work/$name.log" >&2; fail "$name: the first two steps failed"; }
  "$MERIDIAN_PYTHON" - "$work/$name/diagnostics.h5" <<'PY' || fail "$name: diagnostics missing or not finite"
import sys, h5py, numpy
with h5py.File(sys.argv[1]) as f:
    d = f["diagnostics"]
    steps = list(d["step"][:])
    assert steps == [0, 1, 2], steps  # one record per step, none twice
    # After the steps every value is finite (error norms are NaN only while a solution has no exact
    # value; prices before the first path)
    bad = [k for k in d if not k.endswith("_error") and not numpy.isfinite(d[k][-1])]
    assert not bad, bad
    unitless = [k for k in d if not d[k].attrs.get("units")]
    assert not unitless, f"no units: {unitless}"
PY
  echo "$name: valid, 2 steps"
done
