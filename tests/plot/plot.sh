#!/usr/bin/env bash
# plot.sh CASE RADIAL_BINARY SOURCE_DIR WORK_DIR — one case of `radial plot` / `train --plots`
# through the real host. Images are checked by check_image.py and region_pixels.py (/usr/bin/python3
# with PIL), never by reading back Radial's own numbers. Exit 0 kept, 1 broken, 77 skipped.
set -u
case_name=$1 radial=$2 src=$3 work=$4
here="$src/tests/plot"
examples="$src/docs/examples"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
source "$src/tests/cli_harness.sh"
run_timeout=60

skip() { echo "SKIP [$case_name]: $*"; exit 77; }
if [ "$case_name" != no-gnuplot ]; then
  command -v gnuplot >/dev/null || skip "gnuplot is not installed (Debian: gnuplot-nox)"
fi
/usr/bin/python3 -c 'import PIL' 2>/dev/null || skip "python3-pil is not installed"
check() { /usr/bin/python3 "$here/check_image.py" "$@" || fail "image check failed: $*"; }
no_leftovers() {
  local left
  left=$(find "${1:-.}" -maxdepth 1 -name '.*.tmp-*' | head -5)
  [ -z "$left" ] || fail "temporaries left: $left"
}
# pipeline NAME FILE [KEY=VALUE override lines appended]: an example with absolute data paths.
example() { sed "s#data/#$examples/data/#" "$examples/$1" > "$2"; }

# Nabney's synthetic two-class problem: scg, irls and bfgs reports for the learning curves.
synth_reports() {
  example synth3-thin-plate-scg.toml scg.toml
  example synth3-thin-plate-irls.toml irls.toml
  example synth3-thin-plate-bfgs.toml bfgs.toml
  for o in scg irls bfgs; do run 0 train $o.toml --quiet --report $o.json --model $o.model; done
}

case "$case_name" in
learning-curve)
  synth_reports
  run 0 plot learning-curve scg.json irls.json bfgs.json --output curves.svg
  check svg curves.svg 3 scg irls bfgs iteration "training error"
  run 0 plot learning-curve scg.json irls.json --label "SCG run" --label "IRLS run" --x flops --logx --logy \
    --title "error against flops" --output curves.png --width 640 --height 480
  check png curves.png 640 480
  run 0 plot learning-curve scg.json --x seconds --output curves.pdf --title "by time"
  check pdf curves.pdf
  run 0 plot learning-curve scg.json irls.json --label "SCG run" --label "IRLS run" --x flops --output c2.svg \
    --title "error against flops"
  check svg c2.svg 2 "SCG run" "IRLS run" "floating-point operations" "error against flops"
  # Whole-network training's curve, from the example that refines DEM centres.
  example iris-dem-refine-lbfgs.toml refine.toml
  run 0 train refine.toml --quiet --report refine.json
  run 0 plot learning-curve refine.json --stage refine --output refine.svg
  check svg refine.svg 1 "Whole-network training" "training error"
  run 2 plot learning-curve scg.json --stage refine --output none.svg
  err_has "no 'refine' stage"
  no_leftovers
  ;;
series)
  # DEM (Klautau): log R^d and eta per iteration on two y axes.
  cat > dem.toml <<TOML
name = "dem series"
seed = 1
[data]
train = "$examples/data/waveform.csv"
standardize = true
[basis]
plugin = "gaussian"
density = true
[centres]
plugin = "dem"
count = 2
iterations = 6
learning_rate = 0.1
[output]
plugin = "bayes"
TOML
  run 0 train dem.toml --quiet --report dem.json
  names=$(json dem.json "','.join(sorted(j['centres']['series']))")
  echo "series in the report: $names"
  run 0 plot series dem.json --stage centres --names log_Rd,eta --output dem.svg
  check svg dem.svg 2 "log_Rd (left axis)" "eta (right axis)" iteration
  run 0 plot series dem.json --stage centres --names log_Rd --output dem1.png --width 500 --height 400
  check png dem1.png 500 400
  # Values gnuplot cannot draw (issue 25, defect 13: "internal error: gnuplot exited with status
  # 1"): refused first, exit 2, naming the place; null in some places is a gap.
  for bad in 1e308 -1e308 null text some-null; do
    /usr/bin/python3 - "$bad" <<'PY'
import json, sys
bad = sys.argv[1]
j = json.load(open("dem.json"))
s = j["centres"]["series"]["log_Rd"]
if bad == "some-null":
    s[1] = None
elif bad in ("null", "text"):
    s[:] = [None if bad == "null" else "x" for _ in s]
else:
    s[2] = float(bad)
json.dump(j, open("bad-%s.json" % bad, "w"))
PY
    if [ "$bad" = some-null ]; then
      run 0 plot series bad-$bad.json --stage centres --names log_Rd --output gap.svg
      continue
    fi
    run 2 plot series bad-$bad.json --stage centres --names log_Rd --output bad.svg
    err_has "centres.series.log_Rd"
    [ ! -e bad.svg ] || fail "a figure was written for series value $bad"
  done
  ;;
selection)
  # The leave-one-out curves a default Gaussian pipeline chose its width and penalty from: one
  # line per width scale, the chosen point; a report that chose nothing is refused, exit 2.
  cat > select.toml <<TOML
name = "selection curves"
seed = 1
[data]
train = "$examples/data/iris.csv"
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
[output]
plugin = "least-squares"
TOML
  run 0 train select.toml --quiet --report select.json
  run 0 plot selection select.json --output select.svg
  # One line per width the report holds: the prescreen's (the grid's 8 on a subset of the
  # centres, and past its end while it improves), dashed, then the two scored with all of them,
  # and the chosen point.
  widths=$(/usr/bin/python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["selection"]; print(len(s["prescreen"]["curves"]), len(s["curves"]))' select.json)
  read -r pre full <<<"$widths"
  [ "$pre" -ge 8 ] || fail "the report holds $pre prescreen curves, expected at least 8"
  [ "$full" -eq 2 ] || fail "the report holds $full selection curves on all the centres, expected 2"
  check svg select.svg $((pre + full + 1)) "width scale 0.25" "width scale 32" "(prescreen)" chosen "leave-one-out error" "weight-penalty alpha"
  # Chosen on a centre subset (more than 800 centres), alpha is carried to all of them x
  # alpha_transfer: the point is drawn on the subset's curve, at alpha / alpha_transfer.
  /usr/bin/python3 - <<'PY'
import json
j = json.load(open("select.json"))
s = j["selection"]
s["alpha_transfer"] = 0.25
s["chosen"]["weight-penalty.alpha"] *= 0.25
json.dump(j, open("carried.json", "w"))
PY
  run 0 plot selection carried.json --output carried.svg
  check svg carried.svg $((pre + full + 1)) "chosen (alpha x 0.25 on all the centres)"
  example synth3-thin-plate-irls.toml irls.toml
  run 0 train irls.toml --quiet --report irls.json
  run 2 plot selection irls.json --output none.svg
  err_has "no selection curves"
  [ ! -e none.svg ] || fail "a refused plot wrote none.svg"
  ;;
decision-regions-pixels)
  # A two-class logistic model; the PNG's region pixels must agree with radial predict.
  example synth3-thin-plate-irls.toml irls.toml
  run 0 train irls.toml --quiet --model irls.model --report irls.json
  W=700 H=560 range="-1.4 1.1 -0.3 1.2"
  run 0 plot decision-regions irls.model "$examples/data/synth3_train.csv" --output regions.png \
    --width $W --height $H --xrange -1.4:1.1 --yrange -0.3:1.2
  check png regions.png $W $H
  /usr/bin/python3 "$here/region_pixels.py" points regions.png $W $H $range points.csv || fail "sampling failed"
  "$radial" predict irls.model points.csv --output predicted.csv 2>err.txt || { cat err.txt; fail "predict failed"; }
  /usr/bin/python3 "$here/region_pixels.py" check regions.png $W $H $range points.csv predicted.csv 0 1 ||
    fail "region colours disagree with radial predict"
  # With --probabilities the same model shades by the posterior (still a valid image).
  run 0 plot decision-regions irls.model "$examples/data/synth3_train.csv" --probabilities --output p.svg
  check svg p.svg 6 "class 0" "class 1" "error rate" "centres (10)"
  ;;
decision-regions-shapes)
  # Full-covariance Gaussian centres (gmm): one ellipse per centre, the error rate in the legend.
  cat > gmm.toml <<TOML
name = "gmm full shapes"
seed = 2
[data]
train = "$examples/data/synth3_train.csv"
target = "label"
standardize = true
[basis]
plugin = "gaussian"
width_rule = "shapes"
[centres]
plugin = "gmm"
count = 3
covariance = "full"
[output]
plugin = "irls"
link = "logistic"
TOML
  run 0 train gmm.toml --quiet --model gmm.model
  run 0 plot decision-regions gmm.model "$examples/data/synth3_test.csv" --output gmm.svg
  check svg gmm.svg 7 "class 0" "class 1" "misclassified" "error rate" "centres (3)" "one-sd ellipses (full)" x1 x2
  # Three ellipses, each a closed polyline of 73 points (72 segments), plus the legend's sample.
  /usr/bin/python3 - gmm.svg <<'PY' || fail "ellipse paths"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
group = [g for g in root.iter(ns + "g") if g.get("id") == "gnuplot_plot_7"][0]
d = " ".join(p.get("d", "") for p in group.iter(ns + "path"))
moves, lines = d.count("M"), d.count("L")
print(moves - 1, "ellipses,", lines - 1, "segments")
sys.exit(0 if (moves - 1, lines - 1) == (3, 3 * 72) else 1)
PY
  # Ellipses where they belong: fixed centres with known spherical variances (raw units), the
  # SVG's path points mapped back through the documented plot geometry must lie on
  # (x - c)^2 / sigma^2 = 1.
  printf 'x1,x2,variance\n0,1,0.25\n1.5,-1,1.0\n' > centres.csv
  cat > fixed.toml <<TOML
name = "fixed spherical centres"
[data]
train = "$examples/data/synth3_train.csv"
target = "label"
standardize = false
[basis]
plugin = "gaussian"
width_rule = "shapes"
[centres]
plugin = "fixed"
file = "$work/centres.csv"
[output]
plugin = "irls"
link = "logistic"
TOML
  run 0 train fixed.toml --quiet --model fixed.model
  run 0 plot decision-regions fixed.model "$examples/data/synth3_train.csv" --output fixed.svg \
    --xrange -4:4 --yrange -3:4 --width 800 --height 600
  /usr/bin/python3 - fixed.svg <<'PY' || fail "ellipses are not the centres' one-sd circles"
import re, sys, xml.etree.ElementTree as ET
W, H, xlo, xhi, ylo, yhi = 800, 600, -4, 4, -3, 4
centres = [((0, 1), 0.25), ((1.5, -1), 1.0)]
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
group = [g for g in root.iter(ns + "g") if g.get("id") == "gnuplot_plot_7"][0]
d = " ".join(p.get("d", "") for p in group.iter(ns + "path"))
polylines = [re.findall(r"(-?[\d.]+),(-?[\d.]+)", part) for part in d.split("M")[1:]]
polylines = [[(float(a), float(b)) for a, b in pl] for pl in polylines if len(pl) > 20]
assert len(polylines) == 2, len(polylines)
for (c, var), pl in zip(centres, polylines):
    worst = 0
    for px, py in pl:
        x = xlo + (px - 0.11 * W) / (0.59 * W) * (xhi - xlo)
        y = ylo + (0.88 * H - py) / (0.78 * H) * (yhi - ylo)
        worst = max(worst, abs(((x - c[0]) ** 2 + (y - c[1]) ** 2) / var - 1))
    print("centre", c, "variance", var, "largest |r^2 - 1|", round(worst, 4))
    assert worst < 0.03
PY
  # The shapes are drawn only when the basis measures distances under them: the same gmm
  # centres (full covariances) under the thin-plate basis, of Euclidean distances, get none.
  sed 's/^plugin = "gaussian"/plugin = "thin-plate"/; /^width_rule/d' gmm.toml > euclid.toml
  run 0 train euclid.toml --quiet --model euclid.model
  run 0 plot decision-regions euclid.model "$examples/data/synth3_test.csv" --output euclid.svg
  check svg euclid.svg 6 "class 0" "class 1" "centres (3)" x1 x2
  ! grep -q "one-sd ellipses" euclid.svg || fail "ellipses drawn for a basis that ignores shapes"
  # More than two inputs: refused, naming the model file.
  example iris-gmm-pooled-irls.toml iris.toml
  run 0 train iris.toml --quiet --model iris.model
  run 2 plot decision-regions iris.model "$examples/data/iris.csv" --output iris.svg
  err_has "iris.model"; err_has "4 inputs"
  [ ! -e iris.svg ] || fail "an image was left by a refused plot"
  ;;
regression-curve)
  example regression-gaussian-subset.toml sine.toml
  run 0 train sine.toml --quiet --model sine.model
  run 0 plot decision-regions sine.model "$examples/data/sine.test.csv" --output sine.svg
  check svg sine.svg 3 "data (" "fitted, mse" "centres (15)" x y
  run 0 plot decision-regions sine.model "$examples/data/sine.test.csv" --output sine.pdf
  check pdf sine.pdf
  ;;
results)
  cat > exp.toml <<TOML
name = "plot results"
seeds = [1, 2, 3]
[[datasets]]
name = "synth3"
train = "$examples/data/synth3_train.csv"
test = "$examples/data/synth3_test.csv"
target = "label"
[[pipelines]]
name = "kmeans"
file = "$examples/two-class-kmeans-thin-plate.toml"
[grid]
"centres.count" = [2, 4, 8]
TOML
  "$radial" experiment exp.toml --results exp.sqlite --quiet >out.txt 2>err.txt ||
    skip "radial experiment did not run this file (the experiment runner may not have landed): $(head -c 300 err.txt)"
  run 0 plot results exp.sqlite --rows centres.count --columns pipeline --value test.error_rate --output lines.svg
  check svg lines.svg 1 kmeans centres.count test.error_rate
  run 0 plot results exp.sqlite --rows dataset --columns centres.count --output bars.png --width 600 --height 400
  check png bars.png 600 400
  run 2 plot results missing.sqlite --output r.svg
  err_has "missing.sqlite"
  [ ! -e missing.sqlite ] || fail "plot created a database"
  # A stored value of 1e308 (issue 25, defect 13) is refused naming the cell, exit 2; a row
  # label "nan" or "inf" makes bars, not a line at no place.
  /usr/bin/python3 - <<'PY'
import json, shutil, sqlite3
shutil.copy("exp.sqlite", "huge.sqlite")
c = sqlite3.connect("huge.sqlite")
key, text = c.execute("SELECT key, report FROM runs LIMIT 1").fetchone()
r = json.loads(text)
r["test"]["error_rate"] = 1e308
c.execute("UPDATE runs SET report = ? WHERE key = ?", (json.dumps(r), key))
c.commit()
shutil.copy("exp.sqlite", "nan.sqlite")
c = sqlite3.connect("nan.sqlite")
c.execute("""UPDATE runs SET overrides = replace(overrides, '"centres.count":2', '"centres.count":"nan"')""")
c.commit()
PY
  run 2 plot results huge.sqlite --rows centres.count --columns pipeline --value test.error_rate --output huge.svg
  err_has "huge.sqlite: test.error_rate of"; err_has "which a figure cannot draw"
  [ ! -e huge.svg ] || fail "a figure was written for a value of 1e308"
  run 0 plot results nan.sqlite --rows centres.count --columns pipeline --value test.error_rate --output nan.svg
  ;;
train-plots)
  example synth3-thin-plate-scg.toml scg.toml
  mkdir pictures
  run 0 train scg.toml --quiet --report pictures/scg.json --plots pictures
  check svg pictures/scg.learning-curve.svg 1 scg iteration
  check svg pictures/scg.decision-regions.svg 6 "class 0" "class 1" "error rate" "centres (10)"
  no_leftovers pictures
  # One-input regression: the fitted curve, under its own name.
  example regression-gaussian-subset.toml sine.toml
  run 0 train sine.toml --quiet --report pictures/sine.json --plots pictures
  [ -s pictures/sine.fitted-curve.svg ] || fail "no fitted curve for the regression model"
  [ ! -e pictures/sine.decision-regions.svg ] || fail "a regression model's curve named decision regions"
  no_leftovers pictures
  # A missing folder is refused before training.
  run 2 train scg.toml --quiet --plots nowhere
  err_has "--plots nowhere"
  ;;
summary)
  command -v script >/dev/null || skip "script (util-linux) is needed to give radial a terminal"
  script -qec true /dev/null >/dev/null 2>&1 || skip "no pseudo-terminal can be opened here"
  example synth3-thin-plate-scg.toml scg.toml
  # At a terminal: the summary, not JSON.
  script -qec "'$radial' train scg.toml --quiet --model m.model" /dev/null > tty.txt 2>&1 || { cat tty.txt; fail "train at a terminal failed"; }
  cat tty.txt
  grep -q "centres   kmeans: 10 centres" tty.txt || fail "summary lacks the centre stage"
  grep -q "output    scg: 1 output" tty.txt || fail "summary lacks the output stage"
  grep -q "test      error rate" tty.txt || fail "summary lacks the test error"
  grep -q "model   m.model" tty.txt || fail "summary lacks the model written"
  ! grep -q '"learning_curve"' tty.txt || fail "JSON at a terminal"
  # --json at a terminal, and a pipe (not a terminal): the JSON report.
  script -qec "'$radial' train scg.toml --quiet --json" /dev/null > tty-json.txt 2>&1
  grep -q '"learning_curve"' tty-json.txt || fail "--json at a terminal gave no JSON"
  run 0 train scg.toml --quiet
  json out.txt "j['output']['plugin']" | grep -qx scg || fail "stdout is not the JSON report when piped"
  ;;
bad-inputs)
  synth_reports
  example two-class-kmeans-thin-plate.toml ls.toml
  run 0 train ls.toml --quiet --report ls.json
  echo "old" > keep.svg
  # A report without the series asked for.
  run 2 plot series scg.json --names log_Rd --output keep.svg
  err_has "scg.json"; err_has "no series 'log_Rd'"
  # A report whose stage has no learning curve (least squares is closed form).
  run 2 plot learning-curve ls.json --output keep.svg
  err_has "ls.json"; err_has "no learning_curve"
  # Not a report.
  run 2 plot learning-curve "$examples/data/synth3_train.csv" --output keep.svg
  err_has "synth3_train.csv"; err_has "not a JSON report"
  # Unknown kind, unsupported extension, unwritable outputs.
  run 2 plot histogram scg.json --output keep.svg
  err_has "unknown kind 'histogram'"
  run 2 plot learning-curve scg.json --output curve.jpg
  err_has "curve.jpg"; err_has ".svg, .png or .pdf"
  run 2 plot learning-curve scg.json --output no/such/folder/c.svg
  err_has "no/such/folder/c.svg"
  mkdir folder.svg
  run 2 plot learning-curve scg.json --output folder.svg
  err_has "folder.svg"
  run 2 plot learning-curve scg.json --output scg.json.svg --stage middle
  err_has "--stage middle"
  run 2 plot decision-regions scg.model "$examples/data/synth3_train.csv" --output keep.svg --xrange 1:0
  err_has "--xrange 1:0"
  # A folder no one can write in (not even root).
  run 2 plot learning-curve scg.json --output /proc/radial-plot-test.svg
  err_has "/proc/radial-plot-test.svg"
  # An output that is one of the inputs.
  run 2 plot learning-curve scg.json --output scg.json
  err_has "scg.json"
  [ "$(cat keep.svg)" = old ] || fail "a failed plot replaced keep.svg"
  [ ! -e curve.jpg ] && [ ! -e scg.json.svg ] || fail "a failed plot left an image"
  no_leftovers
  ;;
no-gnuplot)
  synth_reports
  # PATH without gnuplot (only a folder of harmless tools).
  mkdir bin
  env PATH="$work/bin" "$radial" plot learning-curve scg.json --output c.svg >out.txt 2>err.txt
  code=$?
  [ $code -eq 2 ] || { cat err.txt; fail "exit $code without gnuplot, expected 2"; }
  err_has "gnuplot-nox"
  [ ! -e c.svg ] || fail "an image without gnuplot"
  env PATH="$work/bin" "$radial" train scg.toml --quiet --plots bin >out.txt 2>err.txt
  code=$?
  [ $code -eq 2 ] || { cat err.txt; fail "train --plots exit $code without gnuplot, expected 2"; }
  err_has "gnuplot-nox"
  # A gnuplot that fails (exit 1, a message on stderr) or writes nothing: exit 1 quoting it,
  # and the old image stays.
  echo old > c.svg
  printf '#!/bin/sh\ncat > /dev/null\necho "line 3: boom" >&2\nexit 1\n' > bin/gnuplot
  chmod +x bin/gnuplot
  env PATH="$work/bin:/usr/bin:/bin" "$radial" plot learning-curve scg.json --output c.svg >out.txt 2>err.txt
  code=$?
  [ $code -eq 1 ] || { cat err.txt; fail "exit $code from a failing gnuplot, expected 1"; }
  err_has "exited with status 1"; err_has "line 3: boom"
  printf '#!/bin/sh\ncat > /dev/null\nexit 0\n' > bin/gnuplot
  env PATH="$work/bin:/usr/bin:/bin" "$radial" plot learning-curve scg.json --output c.svg >out.txt 2>err.txt
  code=$?
  [ $code -eq 1 ] || { cat err.txt; fail "exit $code from a gnuplot that drew nothing, expected 1"; }
  err_has "wrote no image"
  [ "$(cat c.svg)" = old ] || fail "a failed gnuplot replaced c.svg"
  # A gnuplot that never exits (issue 25, defect 9): stopped after RADIAL_GNUPLOT_TIMEOUT,
  # exit 1, nothing written, and no gnuplot left running; nor after radial is sent SIGTERM.
  marker="radial-test-hung-gnuplot-$$"
  printf '#!/bin/bash
exec -a %s sleep 60
' "$marker" > bin/gnuplot
  start=$(date +%s)
  env PATH="$work/bin:/usr/bin:/bin" RADIAL_GNUPLOT_TIMEOUT=2 "$radial" plot learning-curve \
    scg.json --output c.svg >out.txt 2>err.txt
  code=$?
  [ $code -eq 1 ] || { cat err.txt; fail "exit $code from a hung gnuplot, expected 1"; }
  err_has "did not finish within 2 s"
  [ $(( $(date +%s) - start )) -lt 20 ] || fail "a hung gnuplot held radial $(( $(date +%s) - start )) s"
  [ "$(cat c.svg)" = old ] || fail "a hung gnuplot replaced c.svg"
  sleep 0.2
  ! pgrep -f "$marker" > /dev/null || fail "the hung gnuplot was left running"
  env PATH="$work/bin:/usr/bin:/bin" "$radial" plot learning-curve scg.json --output c.svg \
    >out.txt 2>err.txt &
  pid=$!
  for _ in $(seq 50); do pgrep -f "$marker" > /dev/null && break; sleep 0.1; done
  pgrep -f "$marker" > /dev/null || fail "the fake gnuplot did not start"
  kill -TERM $pid; wait $pid
  for _ in $(seq 50); do pgrep -f "$marker" > /dev/null || break; sleep 0.1; done
  ! pgrep -f "$marker" > /dev/null || { pkill -f "$marker"; fail "gnuplot outlived radial's SIGTERM"; }
  # PATH=":/usr/bin" (defect 16): a ./gnuplot in the current folder is never run.
  mkdir -p here && printf '#!/bin/sh
touch "%s/ran-relative"
exit 1
' "$work" > here/gnuplot
  chmod +x here/gnuplot
  (cd here && env PATH=":.:bin:/usr/bin:/bin" "$radial" plot learning-curve ../scg.json \
     --output ../rel.svg >../out.txt 2>../err.txt)
  [ ! -e ran-relative ] || fail "radial ran ./gnuplot from a relative PATH entry"
  no_leftovers
  ;;
*) fail "unknown case" ;;
esac
echo "ok [$case_name]"
