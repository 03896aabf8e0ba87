"""Checks an image written by `radial plot`, independently of Radial's code.

  check_image.py svg FILE PLOTS TEXT...   XML parses; PLOTS plotted series (gnuplot's
                                          <g id="gnuplot_plot_N"> groups); every TEXT is shown
  check_image.py png FILE WIDTH HEIGHT    PIL decodes it at that size
  check_image.py pdf FILE                 starts with %PDF and ends with %%EOF
"""
import re
import sys
import xml.etree.ElementTree as ET


def fail(message):
    print("check_image: " + message, file=sys.stderr)
    sys.exit(1)


def svg(path, plots, texts):
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    groups = [g for g in root.iter(ns + "g") if re.fullmatch(r"gnuplot_plot_\d+[a-z]?", g.get("id", ""))]
    ids = sorted({re.sub(r"[a-z]$", "", g.get("id")) for g in groups})
    if len(ids) != plots:
        fail(f"{path}: {len(ids)} plotted series ({ids}), expected {plots}")
    shown = " | ".join("".join(t.itertext()) for t in root.iter(ns + "text"))
    titles = " | ".join("".join(t.itertext()) for t in root.iter(ns + "title"))
    for text in texts:
        if text not in shown and text not in titles:
            fail(f"{path}: no text '{text}' (texts: {shown[:600]})")
    print(f"{path}: {len(ids)} series, texts ok")


def png(path, width, height):
    from PIL import Image
    with Image.open(path) as image:
        image.load()
        if image.format != "PNG" or image.size != (width, height):
            fail(f"{path}: {image.format} {image.size}, expected PNG {(width, height)}")
    print(f"{path}: PNG {width}x{height}")


def pdf(path):
    data = open(path, "rb").read()
    if not data.startswith(b"%PDF-") or b"%%EOF" not in data[-1024:]:
        fail(f"{path}: not a complete PDF")
    print(f"{path}: PDF, {len(data)} bytes")


kind, path = sys.argv[1], sys.argv[2]
if kind == "svg":
    svg(path, int(sys.argv[3]), sys.argv[4:])
elif kind == "png":
    png(path, int(sys.argv[3]), int(sys.argv[4]))
elif kind == "pdf":
    pdf(path)
else:
    fail("unknown check " + kind)
