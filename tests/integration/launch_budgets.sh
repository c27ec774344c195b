# Kernel launches and synchronisations per time step of every shipped deck, held to issue #24's budgets: a
# GPU pays about 4 us per launch and 10 us per synchronisation whatever the grid, so a step over budget is
# launch-bound on any grid a user can afford. One rank, four steps (`meridian run --count-launches`): the
# budgets hold the largest of steps 2-4 (the first may make plans and starts Adams-Bashforth); diagnostics and
# output are counted apart and not budgeted (they run every N steps).
source "$(dirname "$0")/common.sh"
decks=("$SOURCE_DIR"/configs/*/*.toml)
[ ${#decks[@]} -ge 10 ] || fail "found only ${#decks[@]} shipped decks"
for deck in "${decks[@]}"; do
  name=$(basename "$deck" .toml)
  meridian_on 1 run "$deck" --count-launches --set run.max_steps=4 --set run.diagnostics_every=1000000 \
    --set run.write_state=false --output "$work/$name" > "$work/$name.log" 2>&1 \
    || { cat "$work/$name.log" >&2; fail "$name: the run failed"; }
done
"$MERIDIAN_PYTHON" "$SOURCE_DIR/tests/integration/check_launch_budgets.py" "$work" "${decks[@]}"
