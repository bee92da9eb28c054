"""Run many cases in worker processes and summarise them.

Each case's adjoint is checked and, unless ``--no-tangent``, its tangent
``r_fwd`` too (see
:mod:`adfort.testing.checker`); the summary counts both kinds of failure
and what became of the tangents.
"""

import collections
import dataclasses
import json
import multiprocessing
import os
import time
from pathlib import Path

from adfort.testing.checker import BUGS, Result, check, command_of
from adfort.testing.generator import generate


def case_ids(n, seed, levels):
    """(seed, level) of the n cases of a campaign: levels in turn."""
    return [(seed + k // len(levels), levels[k % len(levels)])
            for k in range(n)]


def run_one(args):
    """Worker: generate, check, optionally shrink one case."""
    seed, level, keep, shrink, flags, tangent = args
    case = generate(seed, level, flags)
    wd = None
    if keep:
        wd = Path(keep) / f"L{level}_s{seed}"
    res = check(case, workdir=wd, tangent=tangent)
    out = dataclasses.asdict(res)
    out["features"] = case.features
    out["key"] = res.key
    if shrink and res.cls != "pass":
        from adfort.testing.shrink import shrink_case
        small, sres = shrink_case(case, res, tangent=tangent)
        out["shrunk_source"] = small.source()
        out["shrunk_command"] = command_of(small, sres)
        out["shrunk_detail"] = sres.detail
        out["shrunk_message"] = sres.message
    elif res.cls != "pass":
        out["source"] = case.source()
        out["command"] = command_of(case, res)
    return out


def _init_worker():
    # adfort and PSyclone are imported once per worker
    import adfort.api  # noqa: F401
    try:
        os.nice(5)
    except OSError:
        pass


def run(ids, jobs=2, keep=None, shrink=False, flags=None, progress=None,
        tangent=True):
    """Results (dicts) of the cases `ids`, in order.

    :param tangent: whether to check the tangents too: True, False, or a
        predicate of (seed, level).
    """
    tasks = [(s, lv, keep, shrink, flags,
              tangent(s, lv) if callable(tangent) else tangent)
             for s, lv in ids]
    if jobs <= 1:
        _init_worker()
        results = []
        for t in tasks:
            results.append(run_one(t))
            if progress:
                progress(results[-1])
        return results
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(jobs, initializer=_init_worker,
                  maxtasksperchild=200) as pool:
        results = []
        for r in pool.imap(run_one, tasks, chunksize=1):
            results.append(r)
            if progress:
                progress(r)
    return results


def summary(results):
    """Markdown: counts per level and class, what became of the tangents
    per level, adfort errors by message, bugs by failure key with an
    example."""
    lines = []
    per_level = collections.defaultdict(collections.Counter)
    tangents = collections.defaultdict(collections.Counter)
    for r in results:
        per_level[r["level"]][r["cls"]] += 1
        tangents[r["level"]][r.get("tangent", "skipped")] += 1
    classes = ["pass", "adfort-error"] + list(BUGS)
    lines.append("| level | cases | " + " | ".join(classes) + " |")
    lines.append("|---|---|" + "---|" * len(classes))
    for lv in sorted(per_level):
        c = per_level[lv]
        lines.append(f"| {lv} | {sum(c.values())} | " +
                     " | ".join(str(c.get(k, 0)) for k in classes) + " |")
    # tangent-adfort-error: rejected in tangent mode where reverse mode
    # rejects too, or for a documented tangent-mode limit (not a failure)
    notes = {"checked": "tangent checked", "skipped": "tangent skipped",
             "adfort-error": "tangent-adfort-error",
             "failed": "tangent failed"}
    lines += ["", "| level | " + " | ".join(notes.values()) + " |",
              "|---|" + "---|" * len(notes)]
    for lv in sorted(tangents):
        c = tangents[lv]
        lines.append(f"| {lv} | " + " | ".join(str(c.get(k, 0))
                                               for k in notes) + " |")
    errs = collections.Counter(r["key"] for r in results
                               if r["cls"] == "adfort-error")
    if errs:
        lines += ["", "adfort errors (by message):", ""]
        for k, n in errs.most_common():
            lines.append(f"- {n} x {k}")
    terrs = collections.Counter(
        r["tangent_message"][:80] for r in results
        if r.get("tangent") == "adfort-error")
    if terrs:
        lines += ["", "tangent-adfort-error notes (by message):", ""]
        for k, n in terrs.most_common():
            lines.append(f"- {n} x {k}")
    bugs = collections.defaultdict(list)
    for r in results:
        if r["cls"] in BUGS:
            bugs[r["key"]].append(r)
    if bugs:
        lines += ["", "failures (by class and message):", ""]
        for k, rs in sorted(bugs.items(), key=lambda kv: -len(kv[1])):
            ex = ", ".join(f"L{r['level']}/s{r['seed']}" for r in rs[:5])
            lines.append(f"- {len(rs)} x {k}  (e.g. {ex})")
    return "\n".join(lines) + "\n"


def _shrink_one(args):
    seed, level, tangent = args
    from adfort.testing.checker import check
    from adfort.testing.shrink import shrink_case
    case = generate(seed, level)
    res = check(case, tangent=tangent)
    small, sres = shrink_case(case, res, budget=150.0, max_checks=200,
                              tangent=tangent)
    return {"seed": seed, "level": level, "key": sres.key,
            "source": small.source(), "command": command_of(small, sres),
            "message": sres.message, "detail": sres.detail}


def reproducers(results, jobs=2, tangent=True):
    """Markdown with one shrunk reproducer per distinct failure key."""
    firsts = {}
    for r in results:
        if r["cls"] != "pass" and r["key"] not in firsts:
            firsts[r["key"]] = (r["seed"], r["level"], tangent)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(max(1, jobs), initializer=_init_worker) as pool:
        shrunk = pool.map(_shrink_one, list(firsts.values()), chunksize=1)
    out = ["## Shrunk reproducers", ""]
    for key, s in zip(firsts, shrunk):
        out += [f"### {key}", "",
                f"From level {s['level']} seed {s['seed']} (`python -m "
                f"adfort.testing --case {s['seed']} --level {s['level']} "
                f"--shrink`); shrunk failure: {s['key']}", "",
                "```fortran", s["source"].rstrip(), "```", "",
                f"`{s['command']}`", "", "```", (s["message"] + "\n" +
                                                 s["detail"])[:1500].rstrip(),
                "```", ""]
    return "\n".join(out)


def main(args):
    levels = [1, 2, 3, 4] if args.level == "all" else \
        [int(x) for x in args.level.split(",")]
    ids = case_ids(args.n, args.seed, levels)
    t0 = time.time()
    done = [0]
    bad = collections.Counter()

    def progress(r):
        done[0] += 1
        if r["cls"] != "pass":
            bad[r["cls"]] += 1
        if args.verbose and r["cls"] != "pass":
            print(f"L{r['level']} s{r['seed']} {r['schedule']}"
                  f"{' jac' if r['jacobian'] else ''}: {r['key']}", flush=True)
        if done[0] % 50 == 0:
            print(f"[{done[0]}/{len(ids)} {time.time() - t0:.0f}s] "
                  + ", ".join(f"{k} {v}" for k, v in sorted(bad.items())),
                  flush=True)
    results = run(ids, args.jobs, args.keep, False, getattr(args, "flags", None) or None,
                  progress,
                  args.tangent)
    text = summary(results)
    print(text, flush=True)
    out = Path(args.out) if args.out else None
    if out:
        out.with_suffix(".md").write_text(text)
        with open(out.with_suffix(".jsonl"), "w") as fh:
            for r in results:
                fh.write(json.dumps(r) + "\n")
    if args.shrink:
        text += "\n" + reproducers(results, args.jobs, args.tangent)
        if out:
            out.with_suffix(".md").write_text(text)
        else:
            print(text)
    nbugs = sum(1 for r in results if r["cls"] in BUGS)
    return 1 if nbugs else 0
