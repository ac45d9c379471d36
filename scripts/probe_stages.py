"""Where one `waihost probe` run's time goes, for scripts/bench-probe-stages.sh and
scripts/bench-probe-cold.sh (docs/probe.md §8), not a test: the run's progress lines are
timestamped, and each unit's stage lasts from its line to the unit's next line (the last
until the run ends); plus the CPU time of the run and its children."""
import collections, re, resource, subprocess, sys, time

STAGES = ["start", "semantics", "arithmetic", "widths", "parameters", "channels", "decode", "repetition", "scale",
          "calibration"]


def probe(waihost, plugins, args, env, label="probe", check=True):
    """Runs `waihost probe --plugin-dir PLUGINS ARGS`; returns (wall s, user CPU s, system CPU s,
    {unit: {stage: s}}). With `check`, a non-zero exit ends the script naming `label`."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.Popen([waihost, "probe", "--plugin-dir", plugins] + args, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, env=env)
    last, dur = {}, collections.defaultdict(dict)
    for line in p.stderr:
        t = time.perf_counter() - t0
        m = re.match(r"(probing|timing) (\S+)(?: .*?stage (\w+))?", line.strip())
        if not m:
            continue
        kind, unit, stage = m.groups()
        stage = stage or ("calibration" if kind == "timing" else "start")
        if unit in last:
            s, ts = last[unit]
            dur[unit][s] = t - ts
        last[unit] = (stage, t)
    if p.wait() != 0 and check:
        sys.exit(f"{label}: waihost probe exited {p.returncode}")
    wall = time.perf_counter() - t0
    for unit, (s, ts) in last.items():
        dur[unit][s] = wall - ts
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime, dur


def table(dur, indent=""):
    print(indent + "unit".ljust(10) + "".join(s[:10].rjust(11) for s in STAGES))
    for unit in sorted(dur):
        print(indent + unit.ljust(10) + "".join((f"{dur[unit][s]:.2f}" if s in dur[unit] else "-").rjust(11)
                                                for s in STAGES))
