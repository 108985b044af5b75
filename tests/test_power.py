"""make test: plots/power.py keeps the samples of the timed launches only and summarizes them,
and make power refuses what it cannot do. No GPU needed: a fake nvidia-smi and a fake chapter
program stand in for both (KL_NVIDIA_SMI)."""
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import power  # noqa: E402

failed = 0


def check(ok, what):
    global failed
    print(("PASS " if ok else "FAIL ") + what)
    failed += 0 if ok else 1


# ---- the parts, on made-up samples
check(power.parse_sample("1455, 642.31, 58, 100, 0x0000000000000004") == (1455.0, 642.31, 58.0, 100.0, 4),
      "power.py reads a line of nvidia-smi's CSV")
check(power.parse_sample("[N/A], 642.31, 58, 100, 0x4") is None and power.parse_sample("1455, 642") is None,
      "power.py skips a line with a number missing ([N/A]) or fields missing")
check(power.parse_sample("1455, 642.31, 58, 100, [N/A]") == (1455.0, 642.31, 58.0, 100.0, 0),
      "power.py takes reasons the driver does not report as none")
check(power.held_by([4, 4, 5, 0]) == "sw_power_cap" and power.held_by([0, 0, 4]) == "none" and
      power.held_by([0x24, 0x24]) == "sw_power_cap+sw_thermal",
      "power.py names the reasons set in at least half of the samples")
# 10 s of samples, 0.1 s apart (at 0.05, 0.15, ...): idle until 6 s, then 4 s of timed launches
# at 1500 MHz and 650 W, but from 9 s on a check on the host (the GPU idle at 1980 MHz)
def sample(t):
    if t < 60 or t >= 90:
        return (345.0 if t < 60 else 1980.0, 70.0, 40.0, 0.0, 1)
    return (1500.0 + t % 3, 650.0, 60.0 + t / 10, 100.0, 4)


samples = [(t / 10 + 0.05, sample(t)) for t in range(100)]
got = power.summarize(samples, 10.0, 4.0)
check(got is not None and got["samples"] == 26 and got["samples_idle"] == 6 and
      got["clock_mhz"] == 1501 and got["clock_mhz_min"] == 1500 and got["clock_mhz_max"] == 1502 and
      got["power_w"] == 650 and got["held_by"] == "sw_power_cap" and got["temp_c_max"] == 68.9,
      "power.py keeps the busy samples of the middle 80% (6.4 to 9.6 s): 26, and drops the 6 of the check")
check(power.summarize(samples[:62], 10.0, 4.0) is None,
      "power.py refuses to summarize fewer than 5 samples")

# ---- the whole script, with a fake nvidia-smi and a fake program
# The fake program runs as the chapter's do: its baselines (cublas, then peak) and then the
# version asked for, writing a row each in that order; it writes which one runs into a file that
# the fake nvidia-smi reads, and each shows its own clock and power.
FAKE_SMI = '''import sys, time
shown = {"cublas": "1700, 600.00, 60, 100, 0x4", "peak": "1900, 500.00, 55, 100, 0x4",
         "v14": "1500, 650.00, 61, 100, 0x4", "check": "1980, 90.00, 50, 0, 0x0"}
while True:
    try:
        now = open(sys.argv[0] + ".phase").read().strip()
    except OSError:
        now = ""
    print(shown.get(now, "345, 70.00, 40, 0, 0x1"), flush=True)
    time.sleep(0.02)
'''
FAKE_PROGRAM = '''import sys, time
args = sys.argv[1:]
reps, version, out = int(args[args.index("--reps") + 1]), args[args.index("-v") + 1], args[args.index("--csv") + 1]
if version == "broken":
    print("v9: the result is wrong"); sys.exit(1)
phase = sys.argv[0].replace("program", "nvidia-smi") + ".phase"
rows = []
time.sleep(0.3)  # a start-up
for name, ms in [("cublas", 0.1), ("peak", 0.05)] + ([(version, 0.1)] if version == "v14" else []):
    open(phase, "w").write(name)
    time.sleep(reps * ms / 1000)  # the timed launches
    if name != "peak":  # then the output checked again, on the host: the GPU idles
        open(phase, "w").write("check")
        time.sleep(0.5)
    rows.append(f"06-tensor-cores,{name},64,64,64,{reps},{ms},700000,yes")
open(phase, "w").write("exit")
time.sleep(0.1)
with open(out, "w") as f:
    f.write("chapter,version,m,n,k,reps,ms_median,gflops,ok\\n")
    f.write("\\n".join(rows) + "\\n")
'''
with tempfile.TemporaryDirectory(prefix="kl-test-power-") as tmp:
    smi, prog = os.path.join(tmp, "nvidia-smi"), os.path.join(tmp, "program")
    open(smi, "w").write(f"#!{sys.executable}\n" + FAKE_SMI)
    open(prog, "w").write(f"#!{sys.executable}\n" + FAKE_PROGRAM)
    os.chmod(smi, 0o755)
    os.chmod(prog, 0o755)
    env = dict(os.environ, KL_NVIDIA_SMI=smi)
    out = os.path.join(tmp, "power.csv")

    def run(version, reps):
        return subprocess.run([sys.executable, os.path.join(ROOT, "plots", "power.py"),
                               "06-tensor-cores", version, out, prog, "--reps", str(reps)],
                              capture_output=True, text=True, env=env, timeout=60)

    r = run("v14", 16000)
    rows = list(csv.DictReader(open(out))) if os.path.exists(out) else []
    row = rows[0] if rows else {}
    check(r.returncode == 0 and list(row) == power.HEAD,
          f"power.py writes a row with the documented columns ({r.stdout.strip()[:80]})")
    check(row.get("version") == "v14" and row.get("clock_mhz") == "1500" and row.get("power_w") == "650"
          and row.get("clock_mhz_max") == "1500" and int(row.get("samples_idle") or 0) > 0
          and row.get("held_by") == "sw_power_cap" and row.get("mj_per_launch") == "65"
          and row.get("gflops_per_w") == "1076.9" and row.get("seconds") == "1.6",
          "power.py: the clock, power and reasons of v14's timed launches, 650 W x 0.1 ms = 65 mJ, "
          "the samples of the check after them dropped")
    r = run("cublas", 16000)
    rows = list(csv.DictReader(open(out))) if os.path.exists(out) else []
    row = rows[1] if len(rows) > 1 else {}
    check(r.returncode == 0 and row.get("version") == "cublas" and row.get("clock_mhz") == "1700"
          and row.get("power_w") == "600" and row.get("clock_mhz_max") == "1700",
          "power.py: a baseline's samples are its own, not those of the peak timed after it")
    r = run("v14", 2000)
    check(r.returncode == 1 and "give --reps" in r.stdout and len(list(csv.DictReader(open(out)))) == 2,
          "power.py refuses timed launches too short to sample, and writes no row")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "power.py"), "06-tensor-cores",
                        "v14", out, prog, "--reps", "16000", "--interleave"],
                       capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 2 and "--interleave" in r.stdout,
          "power.py refuses --interleave (the wall time is not reps x median)")
    r = run("broken", 16000)
    check(r.returncode == 1 and "FAIL" in r.stdout and "wrong" in r.stdout,
          "power.py fails, with the program's last lines, when the program does")
    env["KL_NVIDIA_SMI"] = os.path.join(tmp, "no-such-smi")
    r = run("v14", 16000)
    check(r.returncode == 1 and "cannot run" in r.stdout, "power.py says so when nvidia-smi is missing")

# ---- make power's refusals (tests/power.sh), none of which needs a GPU
for args, code, word, what in [([], 2, "usage", "no chapter"),
                               (["01-transpose"], 2, "no power.args", "a chapter without power.args"),
                               (["99-nothing"], 2, "no chapter", "an unknown chapter")]:
    r = subprocess.run(["bash", os.path.join(ROOT, "tests", "power.sh")] + args,
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == code and word in r.stdout + r.stderr, f"make power refuses {what} (exit {code})")

print(f"{failed} failed")
sys.exit(1 if failed else 0)
