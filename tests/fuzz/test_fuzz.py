"""CI batch of the random-program fuzzer (adfort.testing).

A fixed-seed batch of generated kernels over all levels (straight-line
code; arrays, loops and control flow; calls, functions and module
variables; the same with ``--jacobian``), half of them under each reversal
schedule, each differentiated in-process, compiled with gfortran's
run-time checks and checked against central differences and the calling
convention (see adfort/testing/checker.py).  Tangent mode is fuzzed too:
every case without ``--jacobian`` also has its ``r_fwd`` checked against
``r_rev`` (dot-product test, primal results, tangent convention); that adds
about 10 % to the batch's time, so every such case checks it.  The batch
runs once, in two worker processes; each case is one test.

Cases that fail because of adfort bugs not yet fixed are listed in
``known_failures.txt`` next to this file (``level seed class: message``)
and marked ``xfail(strict=True)``: when a fix makes one pass, the test
fails until its line is removed, so the list only shrinks.  Regenerate it
with ``python tests/fuzz/test_fuzz.py --update-known`` (and review the
diff: a new line is a regression).

Long campaigns: ``make fuzz N=5000 SEED=1 LEVEL=all``.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from adfort.testing.campaign import case_ids, run  # noqa: E402

SEED = 1000
# (120: the batch is the longest file of `make test`, which must stay under
# about 25 minutes on two cores; campaigns of thousands: `make fuzz`.)
N_CASES = 120
LEVELS = [1, 2, 3, 4]
IDS = case_ids(N_CASES, SEED, LEVELS)
KNOWN_FILE = Path(__file__).with_name("known_failures.txt")


def read_known():
    """{(level, seed): 'class: message'} of the known failing cases."""
    known = {}
    if not KNOWN_FILE.exists():
        return known
    for line in KNOWN_FILE.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        level, seed, reason = line.split(None, 2)
        known[(int(level), int(seed))] = reason
    return known


KNOWN = read_known()


class FuzzFailure(AssertionError):
    """A generated case did not pass; one subclass per failure class, so
    that a known failure turning into another class is not an xfail."""


FAILURES = {}


def failure_class(cls):
    if cls not in FAILURES:
        name = "".join(p.capitalize() for p in cls.split("-")) + "Failure"
        FAILURES[cls] = type(name, (FuzzFailure,), {})
    return FAILURES[cls]


@pytest.fixture(scope="module")
def batch():
    """Results of the whole batch, keyed by (level, seed)."""
    results = run(IDS, jobs=2)
    return {(r["level"], r["seed"]): r for r in results}


def _params():
    out = []
    for seed, level in IDS:
        marks = []
        if (level, seed) in KNOWN:
            reason = KNOWN[(level, seed)]
            marks.append(pytest.mark.xfail(
                strict=True, reason=reason,
                raises=failure_class(reason.split(":")[0])))
        out.append(pytest.param(level, seed, marks=marks,
                                id=f"L{level}-s{seed}"))
    return out


@pytest.mark.parametrize("level,seed", _params())
def test_fuzz_case(batch, level, seed):
    r = batch[(level, seed)]
    if r["cls"] != "pass":
        raise failure_class(r["cls"])(
            f"level {level} seed {seed} ({r['schedule']}"
            f"{', --jacobian' if r['jacobian'] else ''}): {r['cls']}: "
            f"{r['message']}\n{r['detail'][:3000]}\n"
            f"reproduce: python -m adfort.testing --case {seed} "
            f"--level {level} --shrink\n"
            f"--- case ---\n{r.get('source', '')}")


def test_batch_covers_levels_and_schedules():
    from adfort.testing.generator import generate
    cases = [generate(s, lv) for s, lv in IDS]
    assert len(cases) >= 120
    assert {c.level for c in cases} == set(LEVELS)
    assert {c.schedule for c in cases} == {"split", "joint"}
    assert any(c.jacobian for c in cases)
    assert any(c.fixed_form for c in cases)


def test_point_loops_leave_the_rest_of_a_case_alone():
    """Some cases end in a loop over points summed into a dependent (the
    shape r_rev reverses block by block); drawn apart, so that a case
    without it is the case it was before."""
    from adfort.testing.generator import generate
    with_loop = 0
    for seed, level in IDS:
        case = generate(seed, level)
        if "point_loop" not in case.features:
            continue
        with_loop += 1
        plain = generate(seed, level, {"point_loop": 0.0})
        assert "point_loop" not in plain.features
        # The same text, but the loop (and the local it sets).
        lines = set(case.source().splitlines())
        assert set(plain.source().splitlines()) - lines <= set(), plain.source()
    assert with_loop >= 10, with_loop


def update_known():
    """Run the batch and rewrite known_failures.txt."""
    results = run(IDS, jobs=2)
    lines = ["# level seed class: message -- CI fuzz cases failing because "
             "of known adfort bugs", "# (regenerate: python tests/fuzz/"
             "test_fuzz.py --update-known; the list must only shrink)"]
    for r in results:
        if r["cls"] != "pass":
            lines.append(f"{r['level']} {r['seed']} {r['key']}")
    KNOWN_FILE.write_text("\n".join(lines) + "\n")
    print(f"{len(lines) - 2} known failures of {len(results)} cases")


if __name__ == "__main__":
    if "--update-known" in sys.argv:
        update_known()


# --------------------------------------------------------------------------
# the checker itself: it must catch wrong adjoints and broken contracts
# --------------------------------------------------------------------------

def _tampered(monkeypatch, edit):
    """Check the first passing level-1 case with the adjoint text edited."""
    import re
    from adfort.testing import checker
    from adfort.testing.generator import generate
    real = checker.differentiate

    def fake(case, path, mode="reverse"):
        text, res = real(case, path, mode)
        if text is not None and mode == "reverse":
            text, n = re.subn(r"^(\s*)(\w+_adj) = \2 \+ (.*)$", edit, text,
                              count=1, flags=re.MULTILINE)
            assert n == 1, text
        return text, res
    for seed in range(50):
        case = generate(seed, 1)
        if len(case.indep) == 1 and checker.check(case).cls == "pass":
            break
    monkeypatch.setattr(checker, "differentiate", fake)
    return checker.check(case)


def test_checker_catches_wrong_adjoint(monkeypatch):
    res = _tampered(monkeypatch, r"\1\2 = \2 + 1.001d0 * (\3)")
    assert res.cls == "wrong-gradient", res


def test_checker_catches_overwritten_adjoint(monkeypatch):
    res = _tampered(monkeypatch, r"\1\2 = \3")
    assert res.cls == "contract" and "incremented" in res.message, res


def _tampered_tangent(monkeypatch, edit):
    """Check the first level-1 case whose tangent passes, with the text of
    r_fwd edited by `edit(text, case)`."""
    from adfort.testing import checker
    from adfort.testing.generator import generate
    real = checker.differentiate

    def fake(case, path, mode="reverse"):
        text, res = real(case, path, mode)
        if text is not None and mode == "forward":
            new = edit(text, case)
            assert new != text, text
            text = new
        return text, res
    for seed in range(50):
        case = generate(seed, 1)
        res = checker.check(case)
        if res.cls == "pass" and res.tangent == "checked":
            break
    monkeypatch.setattr(checker, "differentiate", fake)
    return checker.check(case)


def test_checker_catches_wrong_tangent(monkeypatch):
    import re

    def scale(text, case):
        # every tangent assignment (not continued on the next line) 0.1 % off
        return re.sub(r"^(\s*)(\w+_d) = (.*[^&\s])\s*$",
                      r"\1\2 = 1.001d0 * (\3)", text, flags=re.MULTILINE)
    res = _tampered_tangent(monkeypatch, scale)
    assert res.cls == "tangent-mismatch" and res.tangent == "failed", res


def test_checker_catches_wrong_tangent_primal(monkeypatch):
    def nudge(text, case):
        # r_fwd's primal dependent off by 1e-9 on return, its tangent right
        end = f"end subroutine {case.top}_fwd"
        dep = case.dep[0]
        return text.replace(end, f"{dep} = {dep} * (1 + 1d-9)\n{end}")
    res = _tampered_tangent(monkeypatch, nudge)
    assert res.cls == "tangent-contract" and "primal" in res.message, res


@pytest.mark.parametrize("statement,cls", [
    ("error stop 'tampered'", "tangent-crash"),
    ("this is not fortran", "tangent-compile-fail"),
    ("call no_such_routine()", "tangent-compile-fail"),   # link error
])
def test_checker_catches_broken_tangent(monkeypatch, statement, cls):
    def insert(text, case):
        end = f"end subroutine {case.top}_fwd"
        return text.replace(end, f"{statement}\n{end}")
    res = _tampered_tangent(monkeypatch, insert)
    # the adjoint is still checked (a crash: on a run without r_fwd)
    assert res.cls == cls and res.tangent == "failed", res


def test_classify_tangent_verdicts():
    """The tangent's verdicts from driver output (no compiler needed)."""
    from adfort.testing.checker import classify_tangent
    from adfort.testing.generator import generate
    case = generate(0, 1)
    lhs = "@lhs 1 1 0.75\n@lhs 1 2 -0.25\n"

    def verdict(tdot1, tdot2=None, primal=0.0):
        out = lhs + f"@fwd_primal 1 {primal}\n@tdot 1 1 {tdot1} 1.0\n"
        if tdot2 is not None:
            out += f"@tdot 1 2 {tdot2} 1.0\n"
        return classify_tangent(case, out).cls
    assert verdict(0.5, 0.5) == "pass"
    assert verdict(0.5 + 1e-13, 0.5) == "pass"     # rounding
    assert verdict(0.5 + 1e-8, 0.5) == "tangent-mismatch"
    assert verdict(float("nan")) == "tangent-mismatch"
    assert verdict(0.5, 0.7) == "tangent-contract"  # depends on entry values
    assert verdict(0.5, 0.5, primal=1e-9) == "tangent-contract"
    assert classify_tangent(case, lhs).cls == "tangent-crash"   # no @tdot
