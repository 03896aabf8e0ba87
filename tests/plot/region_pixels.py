"""Decision-region pixels against `radial predict`, computed independently of Radial's plot code.

  region_pixels.py points PNG W H XLO XHI YLO YHI OUT.csv
      writes the sample points (a grid inside the plot area, each with four neighbours 2 px away)
  region_pixels.py check PNG W H XLO XHI YLO YHI POINTS.csv PREDICTIONS.csv CLASSES...
      compares each sample's pixel colour with the predicted class

The plot area's geometry is the one documented in apps/radial/plot/kinds.hpp (RegionGeometry):
screen fractions left 0.11, right 0.70, bottom 0.12, top 0.90; a class k region is colour k of
the cycle mixed with white at strength 0.3.
"""
import csv
import sys

LEFT, RIGHT, BOTTOM, TOP = 0.11, 0.70, 0.12, 0.90
CYCLE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]


def tint(k, strength=0.3):
    c = CYCLE[k % len(CYCLE)]
    rgb = [int(c[i:i + 2], 16) for i in (1, 3, 5)]
    return tuple(round(255 + strength * (v - 255)) for v in rgb)


def point_of_pixel(u, v, w, h, xlo, xhi, ylo, yhi):
    x = xlo + (u + 0.5 - LEFT * w) / ((RIGHT - LEFT) * w) * (xhi - xlo)
    y = ylo + ((1 - BOTTOM) * h - v - 0.5) / ((TOP - BOTTOM) * h) * (yhi - ylo)
    return x, y


def samples(w, h):
    # Pixels well inside the plot area, on a 24 x 24 grid.
    u0, u1 = LEFT * w + 6, RIGHT * w - 6
    v0, v1 = (1 - TOP) * h + 6, (1 - BOTTOM) * h - 6
    for i in range(24):
        for j in range(24):
            yield int(u0 + (u1 - u0) * i / 23), int(v0 + (v1 - v0) * j / 23)


def main():
    mode, png = sys.argv[1], sys.argv[2]
    w, h = int(sys.argv[3]), int(sys.argv[4])
    xlo, xhi, ylo, yhi = map(float, sys.argv[5:9])
    if mode == "points":
        with open(sys.argv[9], "w", newline="") as f:
            out = csv.writer(f)
            out.writerow(["x1", "x2"])
            for u, v in samples(w, h):
                for du, dv in ((0, 0), (-2, 0), (2, 0), (0, -2), (0, 2)):
                    out.writerow(["%.17g" % c for c in point_of_pixel(u + du, v + dv, w, h, xlo, xhi, ylo, yhi)])
        return
    from PIL import Image
    image = Image.open(png).convert("RGB")
    predicted = [row[0] for row in csv.reader(open(sys.argv[10]))][1:]
    classes = sys.argv[11:]
    tints = [tint(k) for k in range(len(classes))]
    background = agree = disagree = 0
    for n, (u, v) in enumerate(samples(w, h)):
        group = predicted[5 * n:5 * n + 5]
        if len(set(group)) != 1:
            continue  # near a class boundary: a pixel's rounding could fall either side
        pixel = image.getpixel((u, v))
        near = [k for k, t in enumerate(tints) if max(abs(a - b) for a, b in zip(pixel, t)) <= 3]
        if not near:
            continue  # covered by a data point, a centre, the legend or a line
        background += 1
        if classes[near[0]] == group[0]:
            agree += 1
        else:
            disagree += 1
            print(f"pixel ({u},{v}) {pixel}: region of class {classes[near[0]]}, predict says {group[0]}")
    print(f"{background} region pixels sampled: {agree} agree, {disagree} disagree")
    if background < 300 or disagree > 0:
        sys.exit(1)


main()
