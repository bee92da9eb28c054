"""Verdicts of ``adfort check``, the printed report and the plot.

The rules (README, *adfort check*):

- **dot-product test**: ⟨ȳ, J ẋ⟩ against ⟨Jᵀȳ, ẋ⟩ = ⟨x̄, ẋ⟩.  With the
  tangent, J ẋ = ẏ from ``r_fwd`` and they must agree to a relative
  difference of 1e-12 (or within 1e-14 of the sum of the terms'
  magnitudes, when the terms cancel).  Without it, J ẋ comes from central
  differences at steps 1e-3 … 1e-7 (relative to the inputs); the best step
  must agree to 1e-6, or within the differences' rounding noise.
- **Taylor test**: for h = 1e-2, 1e-2/2, …, 1e-2/32 (then from 1e-4, then
  from 1e-6, when the remainders do not converge: a jump within the step;
  a wrong gradient fails from every start), the remainder
  r(h) = |⟨ȳ, f(x + hẋ) − f(x)⟩ − h⟨x̄, ẋ⟩| must fall as h²: the rate
  log₂(r(h)/r(h/2)) of the smallest pair of steps whose remainders both
  stand above 10× their rounding noise (16 ulps
  of the sums) must be at least 1.8.  When no
  remainder stands above the noise, f is linear along ẋ to round-off and
  the gradient matched: a pass.  With the tangent, the vector form
  ‖f(x + hẋ) − f(x) − hẏ‖₂ follows the same rule.
- **contract**: independent adjoints preset to non-zero values come back
  incremented by the gradient (relative 1e-8: sums that cancel round off,
  a lost increment is off by about 1); every variable (arguments,
  module variables, COMMON members) holds after ``r_rev`` what it holds
  after ``r`` (relative 1e-12; integers and logicals equal); ``intent(in)``
  arguments are unchanged; the adjoints of ``intent(out)`` dependents are
  zero on return.
"""

import dataclasses
import math
from typing import List, Optional

from adfort.errors import AdfortError

TOL_TANGENT = 1e-12
TOL_CANCEL = 1e-14
TOL_FD = 1e-6
TAYLOR_RESOLVED = 10.0
TAYLOR_RATE = 1.8
TOL_INCREMENT = 1e-8
TOL_PRIMAL = 1e-12


@dataclasses.dataclass
class Check:
    """One named test: its verdict and the lines describing it."""

    name: str
    passed: bool
    lines: List[str]


@dataclasses.dataclass
class Outcome:
    """Everything ``adfort check`` found."""

    problem: object
    checks: Optional[List[Check]]
    notes: List[str]
    failure: Optional[tuple] = None     # (check, message) when nothing ran to the end
    workdir: str = ""
    taylor: Optional[dict] = None
    #: wall seconds of the compilation and of the run
    times: dict = dataclasses.field(default_factory=dict)

    @property
    def passed(self):
        return self.failure is None and all(c.passed for c in self.checks)

    @property
    def failed(self):
        if self.failure is not None:
            return [self.failure[0]]
        return [c.name for c in self.checks if not c.passed]


def _parse(output):
    found = {"fd": [], "taylor": [], "incr": {}, "primal": {}, "unchanged": {},
             "outzero": {}, "bad": []}
    for line in output.splitlines():
        parts = line.split()
        if not parts or not parts[0].startswith("@"):
            continue
        tag, rest = parts[0][1:], parts[1:]
        if tag in ("dot_adj", "dot_tan"):
            found[tag] = tuple(float(x) for x in rest)
        elif tag == "fd":
            found["fd"].append(tuple(float(x) for x in rest))
        elif tag == "taylor":
            found["taylor"].append((int(rest[0]),) + tuple(float(x) for x in rest[1:]))
        elif tag in ("incr", "unchanged", "outzero"):
            found[tag][rest[0]] = float(rest[1])
        elif tag == "bad":
            found["bad"].append(rest[0])
        elif tag == "primal":
            found["primal"][(rest[0], rest[1])] = float(rest[2])
    return found


def _rel(a, b):
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    scale = max(abs(a), abs(b))
    return abs(a - b) / scale if scale > 0 else 0.0


def judge(problem, output, notes, with_tangent, workdir=""):
    """The :class:`Outcome` of the tests from the program's `output`."""
    found = _parse(output)
    if found["bad"]:
        raise AdfortError(
            f"'{problem.routine}' gives NaN or Inf at the random base point (in "
            f"{', '.join(found['bad'])}): choose inputs where it is defined with --range "
            "(e.g. a small time step --range dt=0.01) and --size",
            problem.location or problem.path)
    checks = [_dot_product(problem, found, with_tangent)]
    taylor, data = _taylor(found, with_tangent)
    checks += taylor
    checks += _contract(problem, found, with_tangent)
    return Outcome(problem, checks, notes, workdir=workdir, taylor=data)


def _dot_product(problem, found, with_tangent):
    lhs, magnitude = found["dot_adj"]
    if with_tangent:
        rhs, rhs_magnitude = found["dot_tan"]
        rel = _rel(lhs, rhs)
        ok = rel <= TOL_TANGENT or abs(lhs - rhs) <= TOL_CANCEL * max(magnitude,
                                                                       rhs_magnitude)
        lines = [f"⟨ȳ, J ẋ⟩  (tangent r_fwd)          = {rhs: .15e}",
                 f"⟨Jᵀȳ, ẋ⟩ (adjoint r_rev)          = {lhs: .15e}",
                 f"relative difference {rel:.2e}  (pass: ≤ {TOL_TANGENT:.0e})"]
        return Check("dot-product test", ok, lines)
    rows = [(_rel(lhs, rhs), h, rhs, abs(lhs - rhs) <= noise) for h, rhs, noise in found["fd"]]
    rel, h, rhs, _ = min(rows)
    within = [row for row in rows if row[3]]
    ok = rel <= TOL_FD or bool(within)
    if rel > TOL_FD and within:
        _, h, rhs, _ = within[0]
    lines = [f"⟨ȳ, J ẋ⟩  (central differences, h = {h:.0e}) = {rhs: .15e}",
             f"⟨Jᵀȳ, ẋ⟩ (adjoint r_rev)                  = {lhs: .15e}",
             f"relative difference {_rel(lhs, rhs):.2e}  (pass: ≤ {TOL_FD:.0e}"
             + (", or within the differences' rounding noise)" if rel > TOL_FD and within
                else ")")]
    if lhs == 0 and rhs == 0:
        lines.append("both are zero: the dependents do not change along ẋ")
    return Check("dot-product test", ok, lines)


def rates(hs, remainders, noises):
    """(rates per pair, verdict, reason): rates None where a remainder is
    not above TAYLOR_RESOLVED × its noise."""
    if not all(math.isfinite(r) for r in remainders):
        return [None] * len(hs), False, "remainders not finite (NaN or Inf)"
    resolved = [r > TAYLOR_RESOLVED * n for r, n in zip(remainders, noises)]
    out = [None]
    for k in range(1, len(hs)):
        if resolved[k - 1] and resolved[k] and remainders[k] > 0:
            out.append(math.log(remainders[k - 1] / remainders[k]) / math.log(hs[k - 1] / hs[k]))
        else:
            out.append(None)
    valid = [r for r in out if r is not None]
    if not valid:
        if not any(resolved):
            return out, True, "every remainder at round-off level (f linear along ẋ)"
        return out, True, "too few remainders above round-off for a rate"
    return out, valid[-1] >= TAYLOR_RATE, f"rate {valid[-1]:.2f} at the smallest resolved h"


def _taylor(found, with_tangent):
    from adfort.check.driver import TAYLOR_STEPS
    lhs = found["dot_adj"][0]
    rows = sorted(found["taylor"])
    series = [rows[k:k + TAYLOR_STEPS] for k in range(0, len(rows), TAYLOR_STEPS)]
    forms = [("Taylor test", "|⟨ȳ, f(x+hẋ) − f(x)⟩ − h⟨x̄, ẋ⟩|", "scalar",
              lambda row: abs(row[2] - row[1] * lhs), lambda row: row[3])]
    if with_tangent:
        forms.append(("Taylor test (vector form)", "‖f(x+hẋ) − f(x) − hẏ‖₂", "vector",
                      lambda row: row[4], lambda row: row[5]))
    checks, data = [], {}
    for name, label, key, remainder, noise in forms:
        tried = []
        for rows_ in series:
            hs = [row[1] for row in rows_]
            remainders = [remainder(row) for row in rows_]
            noises = [noise(row) for row in rows_]
            per_pair, ok, reason = rates(hs, remainders, noises)
            tried.append((hs, remainders, noises, per_pair, ok, reason))
            if ok:
                break
        hs, remainders, noises, per_pair, ok, reason = tried[-1] if tried[-1][4] else tried[0]
        data["h"] = hs
        data[key], data[key + "_noise"] = remainders, noises
        lines = [f"{'h':>10}  {label:<36}  rate"]
        for h, r, n, rate in zip(hs, remainders, noises, per_pair):
            mark = "" if r > TAYLOR_RESOLVED * n else "  (round-off)"
            rate_text = f"{rate:5.2f}" if rate is not None else "    -"
            lines.append(f"{h:10.3e}  {r:<36.3e}  {rate_text}{mark}")
        lines.append(f"{reason}  (pass: ≥ {TAYLOR_RATE}, expected 2)")
        if ok and len(tried) > 1:
            lines.append(f"(from h = {tried[0][0][0]:.0e} the remainders did not fall as "
                         f"h² — {tried[0][5]}: a jump of the function, INT, NINT, MOD…, "
                         f"within the step; shown from h = {hs[0]:.0e})")
        elif not ok and len(tried) > 1:
            lines.append("(the same from h = " + ", ".join(
                f"{t[0][0]:.0e}: {t[5]}" for t in tried[1:]) + ")")
        checks.append(Check(name, ok, lines))
    return checks, data


def _contract(problem, found, with_tangent):
    checks = []
    incr = found["incr"]
    if incr:
        worst = max(incr.values())
        bad = [k for k, v in incr.items() if not v <= TOL_INCREMENT]
        checks.append(Check(
            "independent adjoints incremented", not bad,
            [f"{', '.join(incr)}: largest relative error {worst:.2e} (pass: ≤ "
             f"{TOL_INCREMENT:.0e})" + (f"; not incremented: {', '.join(bad)}" if bad else "")]))
    by_key = {v.key: v for v in problem.variables}
    for motion, routine in (("rev", f"{problem.routine}_rev"),
                            ("fwd", f"{problem.routine}_fwd")):
        errors = {k: v for (m, k), v in found["primal"].items() if m == motion}
        if not errors:
            continue
        bad = [k for k, v in errors.items()
               if not v <= (TOL_PRIMAL if by_key[k].is_real else 0.0)]
        shown = [k for k in errors if not by_key[k].is_global or by_key[k].active] or \
            list(errors)[:3]
        extra = len(errors) - len(shown)
        lines = [f"{routine} leaves what {problem.routine} leaves in "
                 f"{', '.join(shown)}" + (f" and {extra} other module/COMMON "
                                           "variable(s)" if extra > 0 else "")
                 + f": largest relative difference {max(errors.values()):.2e} "
                 f"(pass: ≤ {TOL_PRIMAL:.0e})"]
        if bad:
            lines.append("differ: " + ", ".join(f"{k} ({errors[k]:.2e})" for k in bad))
        checks.append(Check(f"primal results of {routine}", not bad, lines))
    unchanged = found["unchanged"]
    if unchanged:
        bad = [k for k, v in unchanged.items() if v != 0]
        checks.append(Check(
            "intent(in) arguments unchanged", not bad,
            [f"{', '.join(unchanged)} after {problem.routine}_rev: "
             + ("unchanged" if not bad else "changed: " + ", ".join(
                 f"{k} (by {unchanged[k]:.2e})" for k in bad))]))
    outzero = found["outzero"]
    if outzero:
        bad = [k for k, v in outzero.items() if v != 0]
        checks.append(Check(
            "intent(out) dependents' adjoints zeroed", not bad,
            [f"{', '.join(outzero)}: " + ("zero on return" if not bad else "not zero: "
                                          + ", ".join(f"{k} ({outzero[k]:.2e})"
                                                      for k in bad))]))
    return checks


_ASCII = [("x̄", "xbar"), ("ȳ", "ybar"), ("ẋ", "xdot"), ("ẏ", "ydot"), ("⟨", "<"),
          ("⟩", ">"), ("ᵀ", "^T"), ("‖", "||"), ("₂", "_2"), ("≤", "<="), ("≥", ">="),
          ("−", "-"), ("·", "*"), ("…", "..."), ("²", "^2"), ("—", "-")]


def plain(text, encoding):
    """`text` with its mathematical signs spelt in ASCII when `encoding`
    (a terminal's) cannot show them."""
    try:
        text.encode(encoding or "ascii")
        return text
    except (UnicodeEncodeError, LookupError):
        for sign, spelt in _ASCII:
            text = text.replace(sign, spelt)
        return text.encode("ascii", "replace").decode("ascii")


def format_report(outcome, header):
    """The text ``adfort check`` prints."""
    lines = list(header)
    for note in outcome.notes:
        lines.append(f"note: {note}")
    if outcome.failure is not None:
        check, message = outcome.failure
        lines.append("")
        lines.append(f"FAIL  {check}")
        lines += ["      " + m for m in message.splitlines()]
        lines.append("      (rerun with --keep DIR to keep the check program and its files)")
    else:
        for check in outcome.checks:
            lines.append("")
            lines.append(f"{'PASS' if check.passed else 'FAIL'}  {check.name}")
            lines += ["      " + text for text in check.lines]
    lines.append("")
    if outcome.passed:
        lines.append("adfort check: all checks passed")
    else:
        lines.append("adfort check: FAILED: " + ", ".join(outcome.failed))
    return "\n".join(lines) + "\n"


def plot(outcome, path, title):
    """Draw the Taylor remainders against h on log–log axes, with a
    reference line of slope 2, into the PNG `path`."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    data = outcome.taylor
    hs = data["h"]
    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    series = [("scalar", "|⟨ȳ, f(x+hẋ) − f(x)⟩ − h⟨x̄, ẋ⟩|", "C0", "o")]
    if "vector" in data:
        series.append(("vector", "‖f(x+hẋ) − f(x) − hẏ‖₂", "C1", "s"))
    anchor = None
    for key, label, colour, marker in series:
        values = [max(v, 1e-300) for v in data[key]]
        ax.loglog(hs, values, marker=marker, color=colour, label=label)
        ax.loglog(hs, [max(n, 1e-300) for n in data[key + "_noise"]], ":", color=colour,
                  alpha=0.6, label=f"round-off level ({key})")
        if anchor is None and values[0] > 1e-300:
            anchor = values[0]
    if anchor:
        ax.loglog(hs, [0.3 * anchor * (h / hs[0]) ** 2 for h in hs], "--", color="0.3",
                  label="slope 2 (reference)")
    ax.set_xlabel("h")
    ax.set_ylabel("Taylor remainder")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
