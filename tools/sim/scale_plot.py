#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plot rcuboost-scale's CSV as SVG (Python 3 standard library only).

Usage: scale_plot.py SCALE.CSV OUTDIR
Writes OUTDIR/scale-gp.svg, scale-pass.svg, scale-boost.svg and
scale-backlog.svg (doc/scale.md shows them).
"""
import csv
import math
import os
import sys

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
          "#8c564b", "#e377c2", "#7f7f7f", "#17becf"]
W, H = 640, 400
L, R, T, B = 70, 170, 40, 50


def load(path):
    rows = []
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    for r in csv.DictReader(lines):
        for k in r:
            if k != "variant":
                r[k] = float(r[k])
        rows.append(r)
    return rows


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def plot(path, title, xlabel, ylabel, series, hlines=(), points=()):
    """series: [(name, [(x, y)...])]; log-log axes."""
    xs = [x for _, pts in series for x, _ in pts] + [x for _, _, pts in points for x, _ in pts]
    ys = [y for _, pts in series for _, y in pts if y > 0] + [y for y, _ in hlines] + \
         [y for _, _, pts in points for _, y in pts]
    x0, x1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    if x1 == x0:
        x1 += 1
    if y1 == y0:
        y1 += 1
    pw, ph = W - L - R, H - T - B

    def px(x):
        return L + (math.log10(x) - x0) / (x1 - x0) * pw

    def py(y):
        return T + ph - (math.log10(y) - y0) / (y1 - y0) * ph

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14" font-weight="bold">%s</text>' % (L, esc(title))]
    for e in range(x0, x1 + 1):
        X = px(10 ** e)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (X, T, X, T + ph))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">1e%d</text>' % (X, T + ph + 16, e))
    for e in range(y0, y1 + 1):
        Y = py(10 ** e)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (L, Y, L + pw, Y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">1e%d</text>' % (L - 6, Y + 4, e))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>'
               % (L, T, pw, ph))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
               % (L + pw / 2, H - 12, esc(xlabel)))
    out.append('<text x="16" y="%.1f" text-anchor="middle" transform="rotate(-90 16 %.1f)">%s</text>'
               % (T + ph / 2, T + ph / 2, esc(ylabel)))
    ly = T + 10
    for i, (name, pts) in enumerate(series):
        c = COLORS[i % len(COLORS)]
        pts = [(x, y) for x, y in pts if y > 0]
        if pts:
            d = " ".join("%.1f,%.1f" % (px(x), py(y)) for x, y in pts)
            out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>' % (d, c))
            for x, y in pts:
                out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (px(x), py(y), c))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                   % (L + pw + 10, ly, L + pw + 30, ly, c))
        out.append('<text x="%d" y="%d">%s</text>' % (L + pw + 35, ly + 4, esc(name)))
        ly += 18
    for name, mark, pts in points:
        for x, y in pts:
            out.append('<rect x="%.1f" y="%.1f" width="8" height="8" fill="none" stroke="black" '
                       'stroke-width="1.5"/>' % (px(x) - 4, py(y) - 4))
        out.append('<rect x="%d" y="%d" width="8" height="8" fill="none" stroke="black"/>'
                   % (L + pw + 16, ly - 4))
        out.append('<text x="%d" y="%d">%s</text>' % (L + pw + 35, ly + 4, esc(name)))
        ly += 18
    for y, name in hlines:
        Y = py(y)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black" '
                   'stroke-dasharray="5,4"/>' % (L, Y, L + pw, Y))
        out.append('<text x="%d" y="%.1f">%s</text>' % (L + 4, Y - 4, esc(name)))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    cpus = sorted({int(r["cpus"]) for r in rows})
    big = max(cpus)

    def sel(variant, cpu=None, threads=None):
        return [r for r in rows if r["variant"] == variant and
                (cpu is None or int(r["cpus"]) == cpu) and
                (threads is None or r["threads"] == threads)]

    # Real 2-CPU grace periods (rcuboost-bench scale, doc/scale.md).
    real = [(10, 1.42), (100, 1.80), (1000, 7.34), (10000, 96.5)]
    plot(os.path.join(outdir, "scale-gp.svg"),
         "Grace period, every registered thread outside a section",
         "registered threads", "grace period (us)",
         [("%d CPUs" % c, [(r["threads"], r["gp_idle_us"]) for r in sel("3state", c)])
          for c in cpus],
         hlines=[(10000, "booster period (10 ms)")],
         points=[("measured, 2 CPUs", None, real)])

    variants = ["3state", "3state-node", "3state-per16", "8state", "pi", "pressure",
                "shard-node", "shard-per16"]
    plot(os.path.join(outdir, "scale-pass.svg"),
         "Busiest booster pass during a stall, %d CPUs" % big,
         "registered threads", "wall time of the pass (us)",
         [(v, [(r["threads"], r["pass_wall_us"]) for r in sel(v, big)]) for v in variants],
         hlines=[(10000, "booster period")])
    plot(os.path.join(outdir, "scale-boost.svg"),
         "Worst boost latency, 1 s hogs on half of %d CPUs" % big,
         "registered threads", "stall start -> reader boosted (ms)",
         [(v, [(r["threads"], r["boost_ms"]) for r in sel(v, big)]) for v in variants],
         hlines=[(1000, "hog ends (no boosting)"), (50, "bound (elements+1) periods")])
    thr = 1e5
    plot(os.path.join(outdir, "scale-backlog.svg"),
         "Peak callback backlog, OOM scenario, 10^5 threads",
         "CPUs (half hogged, half updaters)", "callbacks queued, not invoked",
         [(v, [(r["cpus"], r["backlog"]) for r in sel(v, None, thr)])
          for v in ["none"] + variants])


if __name__ == "__main__":
    main()
