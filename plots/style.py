"""What every figure shares: settings that make each file the same byte for byte on every run,
the look of versions and baselines, labels written next to the lines they name, and saving.

A ladder's versions take an ordered colour map, light for the first rung and dark for the last,
each with its own marker too, so neighbours differ in print and for colour-blind readers;
baselines (not ours) are black and grey, dashed, without markers."""
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import matplotlib.transforms  # noqa: E402

plt.rcParams.update({
    "figure.dpi": 110, "font.size": 9,
    "axes.spines.top": False, "axes.spines.right": False,
    "svg.hashsalt": "kernel-ladder",  # fixed ids in the SVG: the same file every run
})

MARKERS = "osD^vP<X>hpd*"
BASELINE_LOOKS = [("black", (0, (5, 2))), ("#555555", (0, (1, 1.5))), ("#8a8a8a", (0, (5, 1.5, 1, 1.5)))]


def is_ours(tag):
    """v0, v12, v6a, c3, f1 (a rung of a ladder; v6a a sub-step between v6 and v7), not memcpy,
    cublas or v3-e2e (a variant)."""
    return re.fullmatch(r"[vcf]\d+[a-w]?", tag) is not None


def variant_of(tag):
    """'v3-e2e' -> ('v3', 'e2e'), 'v9-4x8-loop' -> ('v9', '4x8-loop'), 'f0-narrow' -> ('f0', 'narrow'),
    'peak-1wg' -> ('peak', '1wg'); None for a plain tag."""
    m = re.fullmatch(r"([vcf]\d+[a-w]?|peak)-([\w-]+)", tag)
    return (m.group(1), m.group(2)) if m else None


class Looks:
    """The colour, marker and line of each tag of one figure, given in ladder order."""
    def __init__(self, tags):
        ours = [t for t in tags if is_ours(t)]
        cmap = plt.get_cmap("viridis")
        self.look = {}
        for i, t in enumerate(ours):
            frac = 0.9 - 0.85 * i / max(1, len(ours) - 1)  # light yellow-green ... dark violet
            self.look[t] = dict(color=cmap(frac), marker=MARKERS[i % len(MARKERS)], ls="-", lw=1.3,
                                ms=4)
        for j, t in enumerate(t for t in tags if not is_ours(t) and not variant_of(t)):
            color, dash = BASELINE_LOOKS[j % len(BASELINE_LOOKS)]
            self.look[t] = dict(color=color, marker=None, ls=dash, lw=1.5, ms=0)

    def __getitem__(self, tag):
        return self.look[tag]


def rate_label(chapter, rate):
    """The y label: what the rate counts, as the chapter's headline file says."""
    from common import headline_options
    opts = headline_options(chapter)
    if rate == "gbps":
        return f"GB/s ({opts.get('bytes', 'read + written')}, 1 GB = 1e9 bytes)"
    return {"add+min": "G operations/s (an add and a min a pair)",
            "updates": "G updates/s"}.get(opts.get("ops", ""), "GFLOP/s")


def end_labels(ax, items, label_ax=None, fontsize=7):
    """Writes each (y, text, look) to the right of `label_ax` (default ax), at the height of y in
    ax's data, moved apart just enough not to overlap, each with its marker or dash before it.
    Call it after the axes' limits are final."""
    label_ax = label_ax or ax
    fig = ax.figure
    gap = fontsize * 1.3 * fig.dpi / 72  # pixels from one label to the next
    spots = sorted((ax.transData.transform((1.0, y))[1], text, look) for y, text, look in items)
    ys = []
    for yd, _, _ in spots:
        ys.append(max(yd, ys[-1] + gap) if ys else yd)
    top = label_ax.transAxes.transform((0, 1.0))[1]
    if ys and ys[-1] > top:  # the labels at the top move down only as far as they must
        ys[-1] = top
        for i in range(len(ys) - 2, -1, -1):
            ys[i] = min(ys[i], ys[i + 1] - gap)
    tr = matplotlib.transforms.blended_transform_factory(label_ax.transAxes, fig.transFigure)
    mark = matplotlib.transforms.offset_copy(tr, fig=fig, x=9, units="points")
    word = matplotlib.transforms.offset_copy(tr, fig=fig, x=17, units="points")
    for yd, (_, text, look) in zip(ys, spots):
        y_fig = fig.transFigure.inverted().transform((0, yd))[1]
        label_ax.plot([1.0], [y_fig], transform=mark, clip_on=False, color=look["color"],
                      ls="none", marker=look["marker"] or "_", ms=4 if look["marker"] else 10,
                      mew=1 if look["marker"] else 2)
        label_ax.text(1.0, y_fig, text, transform=word, fontsize=fontsize, va="center",
                      clip_on=False)


def save(fig, out_dir, name):
    """PNG and SVG without a date or a software version in them: the same bytes every run."""
    for ext in ("png", "svg"):
        meta = {"Date": None} if ext == "svg" else {"Software": None}
        fig.savefig(os.path.join(out_dir, f"{name}.{ext}"), bbox_inches="tight", metadata=meta)
    plt.close(fig)
    print(f"PASS figure {name}")
