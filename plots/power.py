"""make power: the GPU's clock and power while one version runs for seconds on end.

A GPU that multiplies flat out meets its power limit, and then the driver lowers the clock until
the power fits under it. Two kernels that take the same cycles then take different times if one
spends more energy a cycle than the other. Nsight Compute profiles one launch and cannot see
this; this script watches the GPU while a version runs thousands of launches.

It starts nvidia-smi sampling the GPU every 50 ms (the SM clock, the board's power, the
temperature, how busy the GPU was and the reasons the driver gives for holding the clock down),
runs the chapter's program on one version with the given arguments, and keeps the samples of
the middle of that version's timed launches:
- The program runs its baselines too (they always run), one version after another, and writes
  a CSV row per version in that order. A version's timed launches last reps x its median.
- Their end is placed at the program's exit, less the timed launches of the rows after it (06's
  `peak` follows cuBLAS). The window runs from 10% into the launches to 10% before that end.
- That end is late by whatever else ran after the launches: the harness checks each version's
  output again after timing it, and the later rows have checks and warm-ups too. So of the
  window's samples only those of a busy GPU count (utilization.gpu 90% or more), which drops
  the ones of those checks, when the GPU waits for the host.
One row per run goes into OUT.csv: the version's sizes and median as the program measured them,
then over the kept samples the medians of the clock and the power, the highest temperature, the
reasons set in at least half of them (`held_by`: sw_power_cap means the driver held the clock
down to keep the board's power under its limit), and the energy of one launch (median power x
median time). It refuses runs whose wall time is not reps x median (--batch, --interleave,
--check-each, --check-only).

The GPU sampled is CUDA's device 0 (the first of CUDA_VISIBLE_DEVICES where that is set), with
CUDA_DEVICE_ORDER=PCI_BUS_ID so that the program numbers the GPUs as nvidia-smi does.

usage: power.py CHAPTER VERSION OUT.csv PROGRAM [ARGUMENTS...]
  KL_NVIDIA_SMI names another nvidia-smi (the tests give a fake one)."""
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

FIELDS = "clocks.sm,power.draw,temperature.gpu,utilization.gpu,clocks_throttle_reasons.active"
BUSY_PCT = 90  # utilization.gpu at or above this: a kernel ran for (nearly) the whole sample
REFUSED = ["--batch", "--interleave", "--check-each", "--check-only"]  # wall time != reps x median
PERIOD_MS = 50
MIN_SECONDS = 1.5  # timed launches shorter than this leave too few samples to trust
# nvidia-smi's clocks_throttle_reasons bits (nvml.h: nvmlClocksEventReason*)
REASONS = [(0x1, "idle"), (0x2, "application_clocks"), (0x4, "sw_power_cap"),
           (0x8, "hw_slowdown"), (0x10, "sync_boost"), (0x20, "sw_thermal"),
           (0x40, "hw_thermal"), (0x80, "hw_power_brake"), (0x100, "display_clocks")]
HEAD = ["chapter", "version", "m", "n", "k", "reps", "ms_median", "seconds", "samples", "samples_idle",
        "clock_mhz", "clock_mhz_min", "clock_mhz_max", "power_w", "temp_c_max", "held_by",
        "mj_per_launch", "gflops", "gflops_per_w"]


def parse_sample(line):
    """(clock MHz, power W, temperature C, utilization %, reason bits) from one line of
    nvidia-smi's CSV, or None where a number is missing ("[N/A]", a half-written line). Reasons
    that the driver does not report count as none."""
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != 5:
        return None
    try:
        bits = int(parts[4], 16) if parts[4].startswith("0x") else 0
        return float(parts[0]), float(parts[1]), float(parts[2]), float(parts[3]), bits
    except ValueError:
        return None


def held_by(bits):
    """The reasons set in at least half of the samples' bit masks, joined by +, or none."""
    names = [name for bit, name in REASONS if 2 * sum(1 for b in bits if b & bit) >= len(bits)]
    return "+".join(names) or "none"


def summarize(samples, end, seconds):
    """The row's measured part from samples [(time, (clock, power, temp, util, bits))], the
    timed launches having lasted `seconds` and ended at `end` at the latest: the samples from 10%
    into them to 10% before that end, those of a busy GPU. None if fewer than 5 are left."""
    lo, hi = end - 0.9 * seconds, end - 0.1 * seconds
    window = [s for t, s in samples if lo <= t <= hi]
    kept = [s for s in window if s[3] >= BUSY_PCT]
    if len(kept) < 5:
        return None
    clocks = [s[0] for s in kept]
    return {"samples": len(kept), "samples_idle": len(window) - len(kept),
            "clock_mhz": statistics.median(clocks),
            "clock_mhz_min": min(clocks), "clock_mhz_max": max(clocks),
            "power_w": statistics.median(s[1] for s in kept), "temp_c_max": max(s[2] for s in kept),
            "held_by": held_by([s[4] for s in kept])}


def fmt(x):
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def main(argv):
    if len(argv) < 5:
        print(__doc__.strip().splitlines()[-2])
        return 2
    chapter, version, out, program, args = argv[1], argv[2], argv[3], argv[4], argv[5:]
    refused = [a for a in args if a in REFUSED]
    if refused:
        print(f"FAIL power.py: {refused[0]}: the timed launches must run one after another, "
              "reps x median long")
        return 2
    smi = os.environ.get("KL_NVIDIA_SMI", "nvidia-smi")
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0].strip()
    gpu = visible if visible.isdigit() else "0"  # a UUID or MIG name: nvidia-smi's 0, a guess
    env = dict(os.environ, CUDA_DEVICE_ORDER="PCI_BUS_ID")
    samples = []
    try:
        sampler = subprocess.Popen([smi, "-i", gpu, f"--query-gpu={FIELDS}",
                                    "--format=csv,noheader,nounits", "-lms", str(PERIOD_MS)],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   stdin=subprocess.DEVNULL, text=True)
    except OSError as e:
        print(f"FAIL power.py: cannot run {smi}: {e.strerror}")
        return 1

    def read():
        for line in sampler.stdout:
            s = parse_sample(line)
            if s:
                samples.append((time.monotonic(), s))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(0.5)  # nvidia-smi is sampling before the program starts
    with tempfile.TemporaryDirectory(prefix="kl-power-") as tmp:
        table = os.path.join(tmp, "run.csv")
        run = subprocess.run([program] + args + ["-v", version, "--csv", table],
                             capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
        end = time.monotonic()
        sampler.terminate()
        sampler.wait()
        reader.join(timeout=2)
        if run.returncode != 0:
            print(f"FAIL power.py: {os.path.basename(program)} exited {run.returncode} on {version}:")
            print("\n".join((run.stdout + run.stderr).strip().splitlines()[-5:]))
            return 1
        rows = list(csv.DictReader(open(table))) if os.path.exists(table) else []
    at = [i for i, r in enumerate(rows) if r.get("version") == version]
    if not at:
        print(f"FAIL power.py: {os.path.basename(program)} timed no version {version}")
        return 1
    row = rows[at[-1]]
    if row.get("ok") == "no":
        print(f"FAIL power.py: {version} gave a wrong result")
        return 1
    try:
        ms, reps = float(row["ms_median"]), int(row["reps"])
        # the rows timed after this one: their launches ran between this one's and the exit
        after = sum(float(r["ms_median"]) * int(r["reps"]) / 1000 for r in rows[at[-1] + 1:]
                    if r.get("ms_median") not in (None, "", "nan"))
    except (KeyError, TypeError, ValueError):
        print(f"FAIL power.py: {os.path.basename(program)}'s CSV has no ms_median and reps "
              "for every row")
        return 1
    seconds = ms * reps / 1000
    if seconds < MIN_SECONDS:
        print(f"FAIL power.py: {version}'s timed launches last {seconds:.2f} s; give --reps enough "
              f"for {MIN_SECONDS} s or more ({int(MIN_SECONDS * 1000 / ms) + 1} at {ms} ms)")
        return 1
    got = summarize(samples, end - after, seconds)
    if got is None:
        print(f"FAIL power.py: {smi} gave too few samples of a busy GPU while {version} ran")
        return 1
    gflops = float(row["gflops"]) if row.get("gflops") not in (None, "", "nan") else None
    result = {"chapter": chapter, "version": version, "m": row["m"], "n": row["n"], "k": row["k"],
              "reps": reps, "ms_median": row["ms_median"], "seconds": round(seconds, 3), **got,
              "mj_per_launch": round(got["power_w"] * ms, 3),
              "gflops": row.get("gflops", ""),
              "gflops_per_w": round(gflops / got["power_w"], 1) if gflops else ""}
    new = not os.path.exists(out)
    with open(out, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(HEAD)
        w.writerow([fmt(result[h]) for h in HEAD])
    print(f"{version}: {result['ms_median']} ms, clock {fmt(got['clock_mhz'])} MHz "
          f"({fmt(got['clock_mhz_min'])}-{fmt(got['clock_mhz_max'])}), {fmt(got['power_w'])} W, "
          f"held by {got['held_by']}, {result['mj_per_launch']} mJ a launch")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
