"""make power: the GPU's clock and power while one version runs for seconds on end.

A GPU that multiplies flat out meets its power limit, and then the driver lowers the clock until
the power fits under it. Two kernels that take the same cycles then take different times if one
spends more energy a cycle than the other. Nsight Compute profiles one launch and cannot see
this; this script watches the GPU while a version runs thousands of launches.

It starts nvidia-smi sampling the SM clock, the board's power, the temperature and the reasons
the clock is held down (every 50 ms), runs the chapter's program on one version with the given
arguments, and keeps the samples of the middle of that version's timed launches. The program
runs its baselines too (they always run), one version after another, and writes a CSV row per
version in that order; a version's timed launches last reps x its median. So they end at the
program's exit less the timed launches of the rows after it (06's `peak` comes after cuBLAS),
and the samples from 10% into them to 10% before their end leave out the start-up, the checks,
the warm-ups and the other versions. One row per run goes into OUT.csv: the version's sizes and
median as the program measured them, then the medians of the clock and the power over those
samples, the highest temperature, the reasons that held the clock down in at least half of
them, and the energy of one launch (median power x median time).

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

FIELDS = "clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active"
PERIOD_MS = 50
MIN_SECONDS = 1.5  # timed launches shorter than this leave too few samples to trust
# nvidia-smi's clocks_throttle_reasons bits (nvml.h: nvmlClocksEventReason*)
REASONS = [(0x1, "idle"), (0x2, "application_clocks"), (0x4, "sw_power_cap"),
           (0x8, "hw_slowdown"), (0x10, "sync_boost"), (0x20, "sw_thermal"),
           (0x40, "hw_thermal"), (0x80, "hw_power_brake"), (0x100, "display_clocks")]
HEAD = ["chapter", "version", "m", "n", "k", "reps", "ms_median", "seconds", "samples",
        "clock_mhz", "clock_mhz_min", "clock_mhz_max", "power_w", "temp_c_max", "held_by",
        "mj_per_launch", "gflops", "gflops_per_w"]


def parse_sample(line):
    """(clock MHz, power W, temperature C, reason bits) from one line of nvidia-smi's CSV, or None."""
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != 4:
        return None
    try:
        return float(parts[0]), float(parts[1]), float(parts[2]), int(parts[3], 16)
    except ValueError:  # "[N/A]", a header, a half-written line
        return None


def held_by(bits):
    """The reasons set in at least half of the samples' bit masks, joined by +, or none."""
    names = [name for bit, name in REASONS if 2 * sum(1 for b in bits if b & bit) >= len(bits)]
    return "+".join(names) or "none"


def summarize(samples, end, seconds):
    """The row's measured part from samples [(time, (clock, power, temp, bits))], the program
    having exited at `end` after timed launches of `seconds` in all. None if too few samples."""
    lo, hi = end - 0.9 * seconds, end - 0.1 * seconds
    kept = [s for t, s in samples if lo <= t <= hi]
    if len(kept) < 5:
        return None
    clocks = [s[0] for s in kept]
    return {"samples": len(kept), "clock_mhz": statistics.median(clocks),
            "clock_mhz_min": min(clocks), "clock_mhz_max": max(clocks),
            "power_w": statistics.median(s[1] for s in kept), "temp_c_max": max(s[2] for s in kept),
            "held_by": held_by([s[3] for s in kept])}


def fmt(x):
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def main(argv):
    if len(argv) < 5:
        print(__doc__.strip().splitlines()[-2])
        return 2
    chapter, version, out, program, args = argv[1], argv[2], argv[3], argv[4], argv[5:]
    smi = os.environ.get("KL_NVIDIA_SMI", "nvidia-smi")
    samples = []
    try:
        sampler = subprocess.Popen([smi, f"--query-gpu={FIELDS}", "--format=csv,noheader,nounits",
                                    "-lms", str(PERIOD_MS)], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
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
                             capture_output=True, text=True)
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
    # the rows timed after this one: their launches ran between this one's and the exit
    after = sum(float(r["ms_median"]) * int(r["reps"]) / 1000 for r in rows[at[-1] + 1:]
                if r.get("ms_median") not in (None, "", "nan"))
    if row.get("ok") == "no":
        print(f"FAIL power.py: {version} gave a wrong result")
        return 1
    ms, reps = float(row["ms_median"]), int(row["reps"])
    seconds = ms * reps / 1000
    if seconds < MIN_SECONDS:
        print(f"FAIL power.py: {version}'s timed launches last {seconds:.2f} s; give --reps enough "
              f"for {MIN_SECONDS} s or more ({int(MIN_SECONDS * 1000 / ms) + 1} at {ms} ms)")
        return 1
    got = summarize(samples, end - after, seconds)
    if got is None:
        print(f"FAIL power.py: {smi} gave too few samples while {version} ran")
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
