#!/usr/bin/env bash
# Regenerates every image in docs/images from the example pipelines (docs/examples) and the
# paper experiments (docs/experiments), with `radial train`, `radial experiment` and `radial plot`.
#
#   docs/images/make-images.sh [path/to/radial]     (default: build/bin/radial)
#
# Needs gnuplot (Debian: gnuplot-nox). Takes about half a minute; runs happen in a temporary
# folder, only the SVGs are written here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
radial=${1:-$root/build/bin/radial}
examples=$root/docs/examples
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

train() { "$radial" train "$@" --quiet --json > /dev/null; }
plot() { echo "docs/images/$(basename "${*: -1}")"; "$radial" plot "$@"; }

# Nabney's comparison (papers 000/003): IRLS, SCG and BFGS on the same logistic RBF network.
for o in irls scg bfgs; do train "$examples/synth3-thin-plate-$o.toml" --report $o.json --model $o.model; done
plot learning-curve irls.json scg.json bfgs.json --label IRLS --label SCG --label BFGS \
  --title "Nabney's synthetic problem: output-layer optimisers by iteration" \
  --logx --output "$here/learning-curve-iterations.svg"
plot learning-curve irls.json scg.json bfgs.json --label IRLS --label SCG --label BFGS --x flops --logx \
  --title "Nabney's synthetic problem: output-layer optimisers by flops" \
  --output "$here/learning-curve-flops.svg"

# The two-class problem's decision regions and posterior (thin-plate basis, IRLS).
plot decision-regions irls.model "$examples/data/synth3_test.csv" --probabilities \
  --output "$here/decision-regions-thin-plate.svg"

# Full-covariance Gaussian centres from EM (gmm) with their one-standard-deviation ellipses.
train "$examples/synth3-thin-plate-irls.toml" --set basis.plugin=gaussian --set centres.plugin=gmm \
  --set centres.count=4 --set centres.covariance=full --model gmm.model --report gmm.json
plot decision-regions gmm.model "$examples/data/synth3_test.csv" \
  --title "Decision regions: Gaussian basis on 4 full-covariance EM centres, IRLS" \
  --output "$here/decision-regions-gmm-full.svg"

# Regression: the fitted sine curve (Gaussian basis on a random subset, ridge output).
train "$examples/regression-gaussian-subset.toml" --model sine.model --report sine.json
plot decision-regions sine.model "$examples/data/sine.test.csv" --output "$here/regression-sine.svg"

# Klautau's figure 4: DEM's log R^d and learning rate eta per iteration on waveform.
train "$examples/waveform-dem-bayes.toml" --set evaluate.folds=0 --report dem.json
plot series dem.json --stage centres --names log_Rd,eta \
  --title "Discriminative EM on waveform: log R^d and learning rate per iteration" \
  --output "$here/dem-series.svg"

# Constantinopoulos's table 4, reduced to 3 seeds and alpha 5 and 20: error against the number
# of kernels, PRBF with and without the Bhattacharyya prior.
prbf=$root/docs/experiments/prbf/pipelines
cat > table4.toml <<TOML
name = "PRBF on ionosphere (table 4, 3 seeds)"
seeds = [1, 2, 3]
[[datasets]]
name = "ionosphere"
file = "$examples/data/ionosphere.csv"
split = { folds = 5 }
[[pipelines]]
name = "PRBF"
file = "$prbf/prbf.toml"
[[pipelines]]
name = "PRBF + prior"
file = "$prbf/prbf-bhattacharyya.toml"
[grid]
"centres.count" = [4, 6, 8, 10, 12]
"kernel-prior.alpha" = [5, 20]
TOML
"$radial" experiment table4.toml --results table4.sqlite --quiet > /dev/null
plot results table4.sqlite --rows centres.count --columns pipeline+kernel-prior.alpha \
  --value test.error_rate --title "PRBF on ionosphere: 5-fold CV error against the number of kernels" \
  --output "$here/prbf-table4.svg"
