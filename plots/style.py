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
import matplotlib.lines  # noqa: E402
import matplotlib.patches  # noqa: E402
import matplotlib.transforms  # noqa: E402

plt.rcParams.update({
    "figure.dpi": 110, "font.size": 9,
    "axes.spines.top": False, "axes.spines.right": False,
    "svg.hashsalt": "kernel-ladder",  # fixed ids in the SVG: the same file every run
})

MARKERS = "osD^vP<X>hpd*"
BASELINE_LOOKS = [("black", (0, (5, 2))), ("#555555", (0, (1, 1.5))), ("#8a8a8a", (0, (5, 1.5, 1, 1.5)))]
SUBSTEP_DASH = (0, (4, 1.5))  # a sub-step (v6a): thin and dashed, so the main ladder stands out


def is_ours(tag):
    """v0, v12, v6a, c3, f1 (a rung of a ladder; v6a a sub-step between v6 and v7), not memcpy,
    cublas or v3-e2e (a variant)."""
    return re.fullmatch(r"[vcf]\d+[a-w]?", tag) is not None


def is_substep(tag):
    """v6a, v4b: a step between two rungs of the main ladder."""
    return re.fullmatch(r"[vcf]\d+[a-w]", tag) is not None


def variant_of(tag):
    """'v3-e2e' -> ('v3', 'e2e'), 'v9-4x8-loop' -> ('v9', '4x8-loop'), 'f0-narrow' -> ('f0', 'narrow'),
    'peak-1wg' -> ('peak', '1wg'); None for a plain tag."""
    m = re.fullmatch(r"([vcf]\d+[a-w]?|peak)-([\w-]+)", tag)
    return (m.group(1), m.group(2)) if m else None


class Looks:
    """The colour, marker and line of each tag of a chapter. Give it every tag of the chapter's CSV
    in ladder order, so that a version looks the same in all of the chapter's figures. Each ladder
    (v, c, f) spans the colour map on its own; markers go round MARKERS filled, then open, so no two
    rungs of a ladder share a marker and a fill while there are fewer than 26."""
    def __init__(self, tags):
        cmap = plt.get_cmap("viridis")
        self.look = {}
        for letter in "vcf":
            ours = [t for t in dict.fromkeys(tags) if is_ours(t) and t[0] == letter]
            for i, t in enumerate(ours):
                frac = 0.9 - 0.85 * i / max(1, len(ours) - 1)  # light yellow-green ... dark violet
                sub = is_substep(t)
                self.look[t] = dict(color=cmap(frac), marker=MARKERS[i % len(MARKERS)],
                                    mfc="white" if (i // len(MARKERS)) % 2 else cmap(frac),
                                    ls=SUBSTEP_DASH if sub else "-", lw=0.8 if sub else 1.4,
                                    ms=4)
        base = [t for t in dict.fromkeys(tags) if not is_ours(t) and not variant_of(t)]
        for j, t in enumerate(base):
            color, dash = BASELINE_LOOKS[j % len(BASELINE_LOOKS)]
            self.look[t] = dict(color=color, marker=None, mfc=color, ls=dash, lw=1.5, ms=0)

    def __getitem__(self, tag):
        return self.look[tag]


def line_style(look):
    """The keyword arguments of ax.plot for a look."""
    return dict(color=look["color"], ls=look["ls"], lw=look["lw"], marker=look["marker"],
                ms=look["ms"], mfc=look["mfc"], mec=look["color"])


def key_handle(look, label):
    """A legend's entry: a short piece of the line with its marker, dashed as the line is."""
    return matplotlib.lines.Line2D([], [], label=label, **line_style(look))


def rate_label(chapter, rate):
    """The y label: what the rate counts, as the chapter's headline file says."""
    from common import headline_options
    opts = headline_options(chapter)
    if rate == "gbps":
        return f"GB/s ({opts.get('bytes', 'read + written')}, 1 GB = 1e9 bytes)"
    return {"add+min": "G operations/s (an add and a min count as two)",
            "updates": "G updates/s"}.get(opts.get("ops", ""), "GFLOP/s")


LABEL_FONTSIZE = 7
MOST_LABELS = 14  # more lines than this are named in a legend: a fan of labels no one can follow


def label_room(texts, fontsize=LABEL_FONTSIZE):
    """Inches that end_labels' column of names needs to the right of its axes (an estimate from
    the longest name, which keeps the layout the same on every run)."""
    return (24 + 0.6 * fontsize * max((len(t) for t in texts), default=0)) / 72


def spread(targets, gap, low, high):
    """Heights for labels wanted at `targets` (ascending), at least `gap` apart, in order, each as
    close to its own target as the others allow (least squares: a run of labels that would overlap
    is centred on its targets' mean), then pushed inside [low, high]; None if they cannot fit."""
    runs = []  # [sum of (target - j * gap) over the run, its length]
    for t in targets:
        runs.append([t, 1])
        while len(runs) > 1:
            (s0, n0), (s1, n1) = runs[-2], runs[-1]
            if s0 / n0 + n0 * gap <= s1 / n1:
                break
            runs[-2:] = [[s0 + s1 - n0 * gap * n1, n0 + n1]]
    ys = [s / n + j * gap for s, n in runs for j in range(n)]
    if ys and ys[-1] > high:  # the top labels move down only as far as they must
        ys[-1] = high
        for i in range(len(ys) - 2, -1, -1):
            ys[i] = min(ys[i], ys[i + 1] - gap)
    if ys and ys[0] < low:
        ys[0] = low
        for i in range(1, len(ys)):
            ys[i] = max(ys[i], ys[i - 1] + gap)
    return None if ys and ys[-1] > high + 0.5 else ys


def end_labels(ax, items, legend_ax=None, fontsize=LABEL_FONTSIZE):
    """Names each line at its right end. items are (x, y, text, look), (x, y) the line's last
    point in ax's data. Each name goes just right of ax at its line's height, moved apart from
    the others just enough not to overlap, above the axes' top or below their bottom where the
    lines end too close together; a name moved off its line's height gets a thin connector from
    the line's end, and a key drawn as the line is (marker and dash). With more than MOST_LABELS
    lines, or names that cannot fit, a legend right of legend_ax (default ax) instead, ordered by
    the lines' end values. Call it after the axes' limits are final."""
    fig = ax.figure
    gap = fontsize * 1.5 * fig.dpi / 72  # pixels from one name to the next
    spots = sorted((ax.transData.transform((x, y))[1], x, y, text, look) for x, y, text, look in items)
    box = ax.get_window_extent()
    high = box.y1 + 0.12 * box.height
    title = fig._suptitle or (ax.title if ax.get_title() else None)
    if title is not None:  # no higher than the title's foot
        high = min(high, title.get_window_extent(fig.canvas.get_renderer()).y0 - gap / 2)
    low = box.y0 - 0.12 * box.height
    ys = spread([s[0] for s in spots], gap, low, high) if len(spots) <= MOST_LABELS else None
    if ys is None:
        order = sorted(items, key=lambda it: -it[1])
        (legend_ax or ax).legend(handles=[key_handle(lk, text) for _, _, text, lk in order],
                                 loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=fontsize,
                                 frameon=False, handlelength=2.6,
                                 title="by each line's last point,\nhighest first", title_fontsize=fontsize)
        return
    tr = matplotlib.transforms.blended_transform_factory(ax.transAxes, fig.transFigure)
    inch = 1 / (ax.get_position().width * fig.get_figwidth())  # an inch in axes fraction
    k0, k1, k2 = (1 + pt / 72 * inch for pt in (5, 17, 21))  # the key from k0 to k1, the name at k2
    for yd, (y0, x, y, text, look) in zip(ys, spots):
        y_fig = fig.transFigure.inverted().transform((0, yd))[1]
        if abs(yd - y0) > gap * 0.3:  # moved: a thin line from the line's end to its key
            ax.add_artist(matplotlib.patches.ConnectionPatch(
                (x, y), (k0, y_fig), coordsA=ax.transData, coordsB=tr, color=look["color"],
                lw=0.5, alpha=0.6, clip_on=False))
        ax.add_line(matplotlib.lines.Line2D([k0, (k0 + k1) / 2, k1], [y_fig] * 3, transform=tr,
                                            clip_on=False, markevery=[1], **line_style(look)))
        ax.text(k2, y_fig, text, transform=tr, fontsize=fontsize, va="center", clip_on=False)


def save(fig, out_dir, name):
    """PNG and SVG without a date or a software version in them: the same bytes every run."""
    for ext in ("png", "svg"):
        meta = {"Date": None} if ext == "svg" else {"Software": None}
        fig.savefig(os.path.join(out_dir, f"{name}.{ext}"), bbox_inches="tight", metadata=meta)
    plt.close(fig)
    print(f"PASS figure {name}")
