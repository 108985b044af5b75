"""speed.py: the speed protocol's statistics, plain Python (no GPU: the tests feed it synthetic
timings). scoring.py's run_speed runs the rounds: in each, the reference solution's program and
then the submission's, each a fresh run of the program's own timing on the same GPU, give one
ratio (the submission's speed over the reference's). Rounds go on until the median of the ratios
is known to TARGET (the half-width of its confidence interval, relative to the median), or the
cap is reached (rounds or seconds); the median picks the rubric's tier.

The interval is the distribution-free one of order statistics: for n ratios sorted, the median
lies between the k-th smallest and the k-th largest with probability 1 - 2 P(B <= k - 1),
B ~ Binomial(n, 1/2), whatever the distribution of the ratios. We take the largest k whose
interval holds LEVEL (95%); below 6 rounds no interval reaches 95%, and the range is reported
with the level it has. Nothing is assumed about the shape of the noise (GPU timings have long
upper tails: a clock change, another process), and an outlying round moves the median at most
one place.
"""
import math
import os
import time

TARGET = 0.01      # the median is known when its interval's half-width is at most 1% of it
LEVEL = 0.95       # the interval's confidence
MIN_ROUNDS = 6     # the fewest rounds whose order-statistic interval reaches 95% (1 - 2/64)
MAX_ROUNDS = 30    # the cap on rounds, unless the rubric's [speed] max_rounds says otherwise
MAX_SECONDS = 240  # the cap on the whole protocol's time, unless [speed] max_seconds says so
# Lower caps for a run of the grader's own tests (tests/classroom sets them: 8 rounds, 20 s), so
# its GPU suites stay quick; a course's grading sets neither. They only ever lower the rubric's.
CAP_ENV = ("KL_SPEED_MAX_ROUNDS", "KL_SPEED_MAX_SECONDS")


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def median_interval(xs, level=LEVEL):
    """(low, high, confidence): the order-statistic interval of the median of xs, the
    narrowest whose confidence reaches `level`, or the whole range (with the confidence it
    has) when none does."""
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("no rounds")
    tail, best = 0.0, 1  # tail: P(B <= k - 1) for the k being tried
    for k in range(1, n // 2 + 1):
        tail += math.comb(n, k - 1) / 2 ** n
        if 1 - 2 * tail >= level:
            best = k
        else:
            break
    cover = 1 - 2 * sum(math.comb(n, j) for j in range(best)) / 2 ** n
    return s[best - 1], s[n - best], cover


class Estimate:
    """Where the rounds stand: their ratios, the median and its interval, and why they stopped."""
    def __init__(self, ratios, seconds, stopped):
        self.ratios, self.seconds, self.stopped = list(ratios), seconds, stopped
        self.rounds = len(self.ratios)
        self.median = median(self.ratios)
        self.low, self.high, self.confidence = median_interval(self.ratios)
        self.half_width = (self.high - self.low) / 2 / self.median if self.median > 0 else math.inf

    def known(self, target=TARGET, level=LEVEL):
        return self.confidence >= level and self.half_width <= target

    def describe(self):
        """One line for the report: the rounds, the median, its interval, and why it stopped."""
        return (f"median of {self.rounds} rounds {self.median:.3f}, {self.confidence:.0%} interval "
                f"{self.low:.3f}-{self.high:.3f} (+-{self.half_width:.1%}); {self.stopped}")


def measure(one_round, max_rounds=MAX_ROUNDS, max_seconds=MAX_SECONDS, target=TARGET,
            min_rounds=MIN_ROUNDS, clock=time.monotonic):
    """Runs one_round() (which returns a ratio, or raises to end the protocol) until the median
    ratio is known to `target`, or max_rounds rounds, or until one more round, as long as the
    rounds so far took on average, would end past max_seconds. Returns an Estimate."""
    ratios, t0 = [], clock()
    while True:
        ratios.append(one_round())
        spent = clock() - t0
        n = len(ratios)
        if n >= min_rounds:
            e = Estimate(ratios, spent, "")
            if e.known(target):
                e.stopped = f"known to {target:.0%}"
                return e
        if n >= max_rounds:
            why = f"cap of {max_rounds} rounds reached"
        elif spent + spent / n > max_seconds:
            why = f"cap of {max_seconds:g} s reached ({spent:.0f} s)"
        else:
            continue
        e = Estimate(ratios, spent, why + (f", median not known to {target:.0%}"))
        return e


def caps(spec):
    """(max_rounds, max_seconds, note) for a rubric's [speed]: its caps (or MAX_ROUNDS,
    MAX_SECONDS), each lowered by KL_SPEED_MAX_ROUNDS / KL_SPEED_MAX_SECONDS where set to a
    positive number; note says so for the report ('' when neither lowers a cap)."""
    rounds = spec.get("max_rounds", MAX_ROUNDS)
    seconds = spec.get("max_seconds", MAX_SECONDS)
    lowered = []
    for name, kind in zip(CAP_ENV, (int, float)):
        try:
            v = kind(os.environ.get(name, ""))
        except ValueError:
            continue
        if v > 0 and v < (rounds if kind is int else seconds):
            lowered.append(f"{name}={os.environ[name]}")
            rounds, seconds = (v, seconds) if kind is int else (rounds, v)
    note = (f"caps lowered by {', '.join(lowered)} (a test run of the grader, not a course's "
            f"grading)") if lowered else ""
    return rounds, seconds, note


def tier_points(ratio, tiers):
    """The points of the first tier [ratio, points] the ratio reaches (tiers highest first)."""
    return next((p for t, p in tiers if ratio >= t), 0)


def shown(ratio, tiers):
    """The ratio as a report prints it: three decimals, cut (not rounded) where rounding would print
    a tier's threshold that the ratio does not reach (0.9696 against a tier at 0.97 reads 0.969,
    not 0.970 beside 25 points where 0.97 earns 50)."""
    text = f"{ratio:.3f}"
    if tier_points(float(text), tiers) != tier_points(ratio, tiers):
        text = f"{int(ratio * 1000) / 1000:.3f}"
    return text
