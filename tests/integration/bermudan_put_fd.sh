# Bermudan puts by Longstaff-Schwartz against QuantLib's finite-difference engines with the same exercise dates,
# computed side by side (bench/quantlib_bermudan): under Black-Scholes Longstaff & Schwartz's grid, K = 40,
# r = 0.06, 50 dates a year, spots 36-44, volatilities 0.2 and 0.4, maturities 1 and 2; under Heston the set of
# Ikonen & Toivanen (2009, Numer. Methods Partial Differential Eq. 25): K = 10, r = 0.1, T = 0.25, v0 = 0.0625,
# kappa = 5, theta = 0.16, sigma = 0.9, rho = 0.1, spots 8-12 (their American values 2.0000, 1.1076, 0.5200,
# 0.2137, 0.0820; here 100 dates a year, 4 QE steps between dates, and FdHestonVanillaEngine on 200 x 200 x 100,
# within 4e-5 of 400 x 400 x 200 at S = 10). The out-of-sample price is low-biased, so it must lie in
# [reference - 3 SE - max(0.02, 1% of the reference), reference + 3 SE]. American puts
# (finance.exercise_extrapolation = "richardson" over 50, 100 and 200 dates a year) against the FD engine with an
# AmericanExercise, at S = 36 and 44, sigma 0.2 and 0.4, T = 1: an extrapolation of low-biased estimates need not
# stay low, so within 3 SE + max(0.02, 1%) on either side.
source "$(dirname "$0")/common.sh"
[ -x "${QUANTLIB_BERMUDAN:-}" ] || fail "no bench/quantlib_bermudan (QUANTLIB_BERMUDAN): QuantLib is not installed"
deck="$SOURCE_DIR/configs/finance/bermudan_put.toml"
# priced ROW SETTINGS...: the deck at CI-sized path counts with SETTINGS, its price and error appended to ROW.
priced() {
  local row=$1
  shift
  meridian_on 1 run "$deck" "$@" --set finance.paths=65536 --set finance.calibration_paths=32768 \
    --set finance.block_size=4096 --set finance.blocks_per_step=16 --set run.write_state=false \
    --set run.output_interval=0 --set run.progress_every=1000 --output "$work/run" > "$work/run.log"
  read -r price error < <(awk '$1 == "bermudan_put" && NF == 3 { print $2, $3 }' "$work/run.log")
  echo "$row $price $error" >> "$work/table"
}
: > "$work/table"
for spot in 36 38 40 42 44; do
  for volatility in 0.2 0.4; do
    for maturity in 1 2; do
      reference=$("$QUANTLIB_BERMUDAN" fd put "$spot" 40 0.06 "$volatility" "$maturity" 50 1000 400)
      priced "gbm $spot $volatility $maturity $reference" --set "finance.spot=[$spot.0]" \
        --set "finance.volatility=[$volatility]" --set "finance.maturity=$maturity.0" --set "finance.steps=$((50 * maturity))"
    done
  done
done
for spot in 36 44; do
  for volatility in 0.2 0.4; do
    reference=$("$QUANTLIB_BERMUDAN" fd put "$spot" 40 0.06 "$volatility" 1 0 1000 400)
    priced "american $spot $volatility 1 $reference" --set "finance.spot=[$spot.0]" \
      --set "finance.volatility=[$volatility]" --set finance.steps=200 --set 'finance.exercise_extrapolation="richardson"'
  done
done
heston=(0.1 0.0625 0.25 100 5 0.16 0.9 0.1)  # rate, v0, maturity, dates a year, kappa, theta, sigma, rho
for spot in 8 9 10 11 12; do
  reference=$("$QUANTLIB_BERMUDAN" fd-heston put "$spot" 10 "${heston[@]}")
  priced "heston $spot v0=.0625 0.25 $reference" --set finance.model=heston --set "finance.spot=[$spot.0]" \
    --set finance.strike=10.0 --set finance.rate=0.1 --set finance.heston_v0=0.0625 --set finance.maturity=0.25 \
    --set finance.exercise_dates_per_year=100 --set finance.steps=100 --set finance.heston_kappa=5.0 \
    --set finance.heston_theta=0.16 --set finance.heston_sigma=0.9 --set finance.heston_rho=0.1
done
"$MERIDIAN_PYTHON" - "$work/table" <<'PY' || fail "a Bermudan put outside its bound"
import sys
bad = 0
print("model     S    sigma T  QuantLib FD  meridian LSM    SE     (LSM - FD) / SE")
for line in open(sys.argv[1]):
    model, s, v, t, ref, price, se = line.split()
    ref, price, se = float(ref), float(price), float(se)
    slack = max(0.02, 0.01 * ref)
    ok = ref - 3 * se - slack <= price <= ref + 3 * se + (slack if model == "american" else 0)
    bad += not ok
    print(f"{model:8} {s:>3} {v:>5} {t:>4} {ref:11.4f} {price:13.4f} {se:8.4f} {(price - ref) / se:8.2f}{'' if ok else '  OUT OF BOUNDS'}")
sys.exit(1 if bad else 0)
PY
