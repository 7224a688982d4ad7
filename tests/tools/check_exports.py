#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_exports.py - compare what the real tools made of an `emp-analyze export` with emp's own view.

  check_exports.py kieker EXECUTION_TRACES_TXT (--tree TREE_CSV | --expect EXPECT)
      EXECUTION_TRACES_TXT is the executionTraces.txt Kieker's trace analysis printed (ExecutionTraceWriterFilter:
      one line "<traceId[eoi,ess] tin-tout host::@n:pkg.Cls.op session>" per execution).  Checked: eoi 0..n-1 and
      ess as Kieker numbers them, every execution inside its caller in time (tin/tout in ns), and the calling
      contexts rebuilt from eoi/ess with their counts.
  check_exports.py chrome TRACE_JSON (--tree TREE_CSV | --expect EXPECT)
      The Trace Event Format rules an importer relies on: a JSON object with a traceEvents array (displayTimeUnit
      "ms" or "ns"), every event a known phase; complete events ("X") with a string name, numeric ts and dur >= 0
      in µs (at most ns precision), integer pid/tid and args; metadata events ("M") process_name / thread_name
      with args.name, one thread_name for every tid that has events.  Then nesting as Perfetto's slice tracker
      builds it per (pid, tid): events sorted by ts, longer first on ties; an open slice that ended at or before
      the next start is closed; the next slice nests in the one still open and must end within it.  The depth
      found must equal args.ess, and the calling contexts rebuilt from the nesting are counted.

  --tree TREE_CSV   `emp-analyze tree --min-pct=0 --format csv` of the same dump: the contexts (path, calls) must
                    be exactly those rebuilt from the export, with the same counts.
  --expect EXPECT   lines "NAME COUNT" (calls per method name, pkg.Cls.method) and "@traces N", "@threw N",
                    "@unfinished N" (Chrome only for the last two); every count must match exactly.
  --calls CALLS_CSV `emp-analyze calls --format csv` of the same dump (optional, after the above): per method
                    name with as many calls in the export as in emp, the exported durations (tout - tin, ns) must
                    add up to emp's total_ns within 1 ns per call (tin and tout are each rounded to the ns once).

Prints one summary line per check ("kieker: ..." / "chrome: ...") and one line per disagreement; exit 0 when all
agree, 1 otherwise, 2 on bad usage or unreadable input.
"""
import collections
import csv
import json
import math
import re
import sys

EXEC_RE = re.compile(r"^<(\d+)\[(\d+),(\d+)\] (-?\d+)-(-?\d+) (.*?)::@\d+:(\S+) (.*)>$")


def fail_usage(msg):
    print(f"check_exports: {msg}", file=sys.stderr)
    sys.exit(2)


def read_tree(path):
    """path tuple -> calls, from emp-analyze tree --format csv.  Rows whose paths print alike add up: the tree keeps
    overloads apart (e.g. a bridge method and its target, both `compute`), the exports name methods without
    their descriptor."""
    out = collections.Counter()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            out[tuple(row["path"].split(";"))] += int(row["calls"])
    return {k: v for k, v in out.items() if v}


def read_expect(path):
    names, special = {}, {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, value = line.split()
            (special if key.startswith("@") else names)[key.lstrip("@")] = int(value)
    return names, special


def compare(label, got, want, source, problems):
    """Exact comparison of two {key: count} maps; every difference becomes one problem line."""
    for key in sorted(set(got) | set(want), key=str):
        g, w = got.get(key, 0), want.get(key, 0)
        if g != w:
            name = ";".join(key) if isinstance(key, tuple) else key
            problems.append(f"{label} {name}: export {g}, {source} {w}")


def check_durations(kind, names, durations, path, problems):
    """Exported durations against emp's totals; see --calls.  Return: the number of methods compared."""
    total, calls = collections.Counter(), collections.Counter()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            name = row["method"].split("(")[0]
            total[name] += float(row["total_ns"])
            calls[name] += int(row["calls"])
    compared = 0
    for name in sorted(calls):
        if names.get(name, 0) != calls[name]:
            continue  # a count difference is reported by the count checks
        compared += 1
        if abs(durations[name] - total[name]) > calls[name] + 0.01:
            problems.append(f"{kind} time of {name}: export {durations[name]} ns, emp {total[name]:.1f} ns over "
                            f"{calls[name]} calls (more than 1 ns per call apart)")
    return compared


def check_against(kind, paths, names, specials, args, problems, durations):
    if len(args) == 4:
        if args[2] != "--calls":
            fail_usage(f"unknown option {args[2]}")
        n = check_durations(kind, names, durations, args[3], problems)
        return check_against(kind, paths, names, specials, args[:2], problems, durations) + f", {n} methods' time"
    if args[0] == "--tree":
        want = read_tree(args[1])
        compare(f"{kind} context", paths, want, "emp tree", problems)
        return f"{len(want)} contexts of emp's tree"
    want_names, want_special = read_expect(args[1])
    compare(f"{kind} calls of", names, want_names, "expected", problems)
    for key, value in want_special.items():
        if key in specials and specials[key] != value:
            problems.append(f"{kind} {key}: export {specials[key]}, expected {value}")
    return f"{len(want_names)} expected method counts"


def kieker(path, args):
    traces = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            if not line.startswith("<"):
                continue
            m = EXEC_RE.match(line.rstrip("\n"))
            if not m:
                print(f"kieker: unparsable execution line: {line.rstrip()}")
                return 1
            tid, eoi, ess, tin, tout = (int(m.group(i)) for i in range(1, 6))
            traces[tid].append((eoi, ess, tin, tout, m.group(7)))
    problems = []
    paths, names, durations = collections.Counter(), collections.Counter(), collections.Counter()
    executions = 0
    for tid, ex in traces.items():
        ex.sort()
        stack = []  # (name, tin, tout) of the callers of the current execution
        for i, (eoi, ess, tin, tout, name) in enumerate(ex):
            if eoi != i or (i == 0 and ess != 0) or ess > len(stack):
                problems.append(f"kieker trace {tid}: eoi {eoi} ess {ess} out of order")
                break
            del stack[ess:]
            if stack and not (stack[-1][1] <= tin <= tout <= stack[-1][2]):
                problems.append(f"kieker trace {tid}: eoi {eoi} {name} [{tin},{tout}] not inside its caller "
                                f"{stack[-1][0]} [{stack[-1][1]},{stack[-1][2]}]")
            if tout < tin:
                problems.append(f"kieker trace {tid}: eoi {eoi} ends before it starts")
            stack.append((name, tin, tout))
            paths[tuple(s[0] for s in stack)] += 1
            names[name] += 1
            durations[name] += tout - tin
            executions += 1
    against = check_against("kieker", paths, names, {"traces": len(traces)}, args, problems, durations)
    for p in problems:
        print(p)
    print(f"kieker: {executions} executions in {len(traces)} traces, {len(paths)} contexts; compared with "
          f"{against}: {'equal' if not problems else f'{len(problems)} differences'}")
    return 1 if problems else 0


def to_ns(us):
    """(integer ns, whether @us had at most three decimals)."""
    ns = us * 1000.0
    r = round(ns)
    return r, abs(ns - r) < 0.01


def chrome(path, args):
    def no_nan(c):
        raise ValueError(f"non-JSON number {c}")
    try:
        with open(path) as f:
            doc = json.load(f, parse_constant=no_nan)
    except (OSError, ValueError) as e:
        print(f"chrome: {path}: not valid JSON: {e}")
        return 1
    problems = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("chrome: the top level is not an object with a traceEvents array")
        return 1
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        problems.append(f"chrome: displayTimeUnit {doc['displayTimeUnit']!r} is neither ms nor ns")
    slices = collections.defaultdict(list)
    named_threads, named_processes = set(), set()
    threw = unfinished = 0
    for n, e in enumerate(doc["traceEvents"]):
        where = f"chrome event {n}"
        if not isinstance(e, dict) or e.get("ph") not in ("X", "M"):
            problems.append(f"{where}: not an object with ph X or M")
            continue
        if not isinstance(e.get("pid"), int) or isinstance(e.get("pid"), bool):
            problems.append(f"{where}: pid is not an integer")
            continue
        if e["ph"] == "M":
            if e.get("name") not in ("process_name", "thread_name") or not isinstance(e.get("args", {}).get("name"), str):
                problems.append(f"{where}: metadata event without a known name and args.name")
            elif e["name"] == "thread_name":
                if not isinstance(e.get("tid"), int):
                    problems.append(f"{where}: thread_name without an integer tid")
                named_threads.add((e["pid"], e.get("tid")))
            else:
                named_processes.add(e["pid"])
            continue
        a = e.get("args")
        ok = (isinstance(e.get("name"), str) and isinstance(e.get("cat"), str) and isinstance(e.get("tid"), int)
              and all(isinstance(e.get(k), (int, float)) and not isinstance(e.get(k), bool) and math.isfinite(e[k])
                      for k in ("ts", "dur"))
              and isinstance(a, dict) and all(isinstance(a.get(k), int) for k in ("trace", "eoi", "ess")))
        if not ok:
            problems.append(f"{where}: complete event lacks name/cat/tid, numeric ts/dur or args trace/eoi/ess")
            continue
        ts, ts_exact = to_ns(e["ts"])
        dur, dur_exact = to_ns(e["dur"])
        if not (ts_exact and dur_exact) or ts < 0 or dur < 0:
            problems.append(f"{where}: ts {e['ts']} / dur {e['dur']} negative or finer than 1 ns")
        threw += bool(a.get("threw"))
        unfinished += bool(a.get("unfinished"))
        slices[(e["pid"], e["tid"])].append((ts, -dur, a["ess"], e["name"]))
    paths, names, durations = collections.Counter(), collections.Counter(), collections.Counter()
    total = misnested = ess_wrong = 0
    for key, evs in slices.items():
        if key not in named_threads:
            problems.append(f"chrome: pid {key[0]} tid {key[1]} has events but no thread_name")
        if key[0] not in named_processes:
            problems.append(f"chrome: pid {key[0]} has no process_name")
            named_processes.add(key[0])
        evs.sort()
        stack = []  # (end, name)
        for ts, negdur, ess, name in evs:
            end = ts - negdur
            while stack and stack[-1][0] <= ts:
                stack.pop()
            if stack and end > stack[-1][0]:
                misnested += 1
                if misnested <= 10:
                    problems.append(f"chrome tid {key[1]}: {name} [{ts},{end}] ends after its parent "
                                    f"{stack[-1][1]} (end {stack[-1][0]})")
            if len(stack) != ess:
                ess_wrong += 1
                if ess_wrong <= 10:
                    problems.append(f"chrome tid {key[1]}: {name} at ts {ts} nests at depth {len(stack)}, ess {ess}")
            stack.append((end, name))
            paths[tuple(s[1] for s in stack)] += 1
            names[name] += 1
            durations[name] += end - ts
            total += 1
    roots = sum(c for p, c in paths.items() if len(p) == 1)
    against = check_against("chrome", paths, names, {"traces": roots, "threw": threw, "unfinished": unfinished},
                            args, problems, durations)
    for p in problems:
        print(p)
    print(f"chrome: {total} complete events on {len(slices)} threads, {roots} roots, {misnested} improperly nested, "
          f"{ess_wrong} with depth != ess, {len(paths)} contexts; compared with {against}: "
          f"{'equal' if not problems else f'{len(problems)} differences'}")
    return 1 if problems else 0


def main(argv):
    if len(argv) not in (5, 7) or argv[1] not in ("kieker", "chrome") or argv[3] not in ("--tree", "--expect"):
        fail_usage("usage: check_exports.py kieker|chrome FILE (--tree TREE_CSV | --expect EXPECT) [--calls CALLS_CSV]")
    try:
        return (kieker if argv[1] == "kieker" else chrome)(argv[2], argv[3:])
    except OSError as e:
        fail_usage(str(e))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
