#!/usr/bin/env bash
# selection_cases.sh CASE RADIAL_BINARY SOURCE_DIR WORK_DIR — the host's refusals of the
# selection (framework/src/training/selection.hpp), with the test penalties of
# tests/selection/CMakeLists.txt on the plugin path.
set -u
case_name=$1 radial=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
source "$src/tests/cli_harness.sh"
export RADIAL_PLUGIN_PATH="$(dirname "$radial")/../lib/radial/test-penalties"

case "$case_name" in
choose-non-ridge)
  cat > p.toml <<TOML
[data]
train = "$src/docs/examples/data/sine.train.csv"
target = "y"
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = 10
[output]
plugin = "least-squares"
[weight-penalty]
plugin = "pseudo-l1"
lambda = "choose"
TOML
  run 2 train p.toml --model m.model --quiet
  err_has "weight-penalty.lambda = \"choose\", but weight-penalty plugin 'pseudo-l1' is not a ridge"
  [ ! -e m.model ] || fail "a model was written"
  ;;
*) fail "unknown case" ;;
esac
