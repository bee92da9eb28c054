"""Check one generated case end to end and classify the outcome.

Steps: write the source; differentiate it in-process with
:func:`adfort.api.differentiate_file`, in reverse mode and (with
``tangent=True``) in tangent mode (a ``--jacobian`` case's tangent without it);
compile the original, the adjoint, the tangent and the driver
(:mod:`adfort.testing.driver`) with gfortran's run-time checks and
floating-point traps; run; compare.

The tangent ``r_fwd`` is checked against the adjoint: the dot-product test
<ȳ, J ẋ> (r_fwd) = <Jᵀȳ, ẋ> (r_rev) with the adjoint check's direction and
seeds, its primal results against ``r``'s, and the tangent convention
(intent(out) dependents' tangents written, other module variables'
tangents zeroed on entry).  The adjoint is checked first: a case whose
adjoint fails is classified by that failure.

Classes (``Result.cls``):

- ``pass``;
- ``adfort-error``: an :class:`AdfortError` (acceptable only for a
  construct adfort does not support: listed by message);
- ``internal-error``: any other exception inside adfort (a bug);
- ``compile-fail``: the generated code (or its calling convention, seen
  from the driver) does not compile (a bug);
- ``runtime-crash``: the adjoint crashed (bounds, NaN trap…) (a bug);
- ``wrong-gradient``: the dot-product test failed (a bug);
- ``contract``: independent adjoints not incremented, intent(out)
  dependent adjoints not zero, primal results of ``r_rev`` or
  ``r_jacobian`` differing from ``r``'s, Jacobian rows differing from
  reverse sweeps (a bug);
- ``invalid-case``: the generated program itself does not compile or
  fails at the base point (a bug of the generator);
- ``timeout``;
- ``tangent-internal-error``: an exception other than :class:`AdfortError`
  while generating ``r_fwd``;
- ``tangent-reject``: tangent mode raised an :class:`AdfortError` for a
  case reverse mode accepts, and not for one of tangent mode's documented
  limits (:data:`TANGENT_LIMITS`);
- ``tangent-compile-fail``: ``r_fwd`` (or the driver's call of it) does not
  compile;
- ``tangent-crash``: ``r_fwd`` crashed at run time;
- ``tangent-mismatch``: the dot-product test of ``r_fwd`` against
  ``r_rev`` failed;
- ``tangent-contract``: ``r_fwd``'s primal results differ from ``r``'s, or
  its tangents depend on what intent(out) dependents' tangents or other
  module variables' tangents held on entry.

All but ``pass`` and ``adfort-error`` are bugs (:data:`BUGS`).
``Result.tangent`` notes what became of the tangent: ``checked``,
``skipped`` (not asked for, or no adjoint to compare with), ``adfort-error`` (rejected
where reverse mode also rejected, or for a documented limit: the
``tangent-adfort-error`` note of the reports, not a failure) or ``failed``.
"""

import collections
import dataclasses
import os
import re
import shutil
import subprocess
import tempfile
import traceback
from pathlib import Path

from adfort.testing.driver import STEPS, write_driver

FFLAGS = ["-O0", "-g", "-fcheck=all", "-ffpe-trap=invalid,zero,overflow"]
TOL = 1e-6            # dot-product test
NOISE_TOL = 1e-7      # a difference at FD noise level counts as this error
CONTRACT_TOL = 1e-10  # increments, primal results, Jacobian rows
TANGENT_TOL = 1e-10   # dot-product test r_fwd vs r_rev (double precision)
FWD_PRIMAL_TOL = 1e-12  # r_fwd's primal results vs r's
REPEAT_TOL = 1e-12    # r_fwd's results vs those of a second call
TANGENT_BUGS = ("tangent-internal-error", "tangent-reject",
                "tangent-compile-fail", "tangent-crash", "tangent-mismatch",
                "tangent-contract")
BUGS = ("internal-error", "compile-fail", "runtime-crash", "wrong-gradient",
        "contract", "invalid-case", "timeout") + TANGENT_BUGS
# Messages of tangent mode's own, documented rejections (README, "Tangent
# mode: r_fwd"): derived types, --jacobian, a routine with a hand-written
# adjoint but no tangent.
TANGENT_LIMITS = ("derived-type", "derived type", "--jacobian",
                  "but no tangent")


@dataclasses.dataclass
class Result:
    """Outcome of one case."""

    cls: str
    message: str = ""
    detail: str = ""
    seed: int = 0
    level: int = 0
    schedule: str = ""
    jacobian: bool = False
    workdir: str = ""
    tangent: str = "skipped"
    tangent_message: str = ""

    @property
    def key(self):
        """What makes two failures 'the same' for the shrinker: the class
        and the message with numbers, names and locations blurred."""
        if self.cls in ("wrong-gradient", "tangent-mismatch", "pass"):
            return self.cls
        msg = re.sub(r"\S+\.f(90)?:\d+", "FILE", self.message)
        msg = re.sub(r"'[^']*'", "'X'", msg)
        msg = re.sub(r"‘[^’]*’", "'X'", msg)
        msg = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", msg)
        return f"{self.cls}: {msg[:80]}"


def command_of(case, res):
    """The adfort command line reproducing `res` of `case`: in tangent mode
    for a tangent failure."""
    if res.cls in TANGENT_BUGS:
        return case.command() + " --mode forward"
    return case.command()


def differentiate(case, path, mode="reverse"):
    """Run adfort in-process: (text, None) or (None, Result), the Result's
    class prefixed with ``tangent-`` in tangent mode (`mode` "forward")."""
    from adfort.errors import AdfortError
    from adfort.api import differentiate_file
    from adfort.schedules import SCHEDULES
    import signal

    prefix = "tangent-" if mode == "forward" else ""

    def hang(signum, frame):
        raise TimeoutError("adfort ran for more than 120 s")
    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(120)
    try:
        text, _, _ = differentiate_file(
            str(path), case.dep, case.indep, SCHEDULES[case.schedule](),
            routine=case.top, options={"jacobian": case.jacobian and mode != "forward"},
            mode=mode)
        return text, None
    except AdfortError as err:
        return None, Result("adfort-error", err.message,
                            str(err))
    except TimeoutError as err:
        return None, Result("timeout", prefix + str(err))
    except RecursionError as err:
        return None, Result(prefix + "internal-error",
                            f"RecursionError: {err}"[:200],
                            traceback.format_exc()[-3000:])
    except Exception as err:   # any other exception is an adfort bug
        tb = traceback.extract_tb(err.__traceback__)
        where = next((f"{Path(f.filename).name}:{f.lineno}" for f in
                      reversed(tb) if "/adfort/" in f.filename and
                      "/testing/" not in f.filename), "?")
        return None, Result(prefix + "internal-error",
                            f"{type(err).__name__} at {where}: {err}"[:300],
                            traceback.format_exc()[-4000:])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _run(cmd, cwd, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout"


def _first_error(stderr):
    lines = stderr.splitlines()
    for k, line in enumerate(lines):
        if "Error:" in line or "error:" in line.lower():
            return line.strip()
    return (lines[-1] if lines else "").strip()


def check(case, workdir=None, keep=False, timeout=60, tangent=True):
    """Check `case` (and its tangent unless `tangent` is false); returns a
    :class:`Result`."""
    own = workdir is None
    workdir = Path(workdir or tempfile.mkdtemp(prefix="adfort_fuzz_"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        # (a --jacobian case's tangent is generated without it: r_fwd
        # takes one direction, the driver checks it like any other)
        res = _check(case, workdir, timeout, tangent)
    finally:
        if own and not keep:
            shutil.rmtree(workdir, ignore_errors=True)
    res.seed, res.level = case.seed, case.level
    res.schedule, res.jacobian = case.schedule, case.jacobian
    res.workdir = str(workdir) if keep or not own else ""
    return res


def _tangent_rejected(reverse, tres):
    """The Result of a case whose tangent generation failed (`tres`), given
    the reverse-mode outcome `reverse` (None: reverse mode succeeded)."""
    if tres.cls != "adfort-error":
        return tres     # a Python exception or a timeout: always a bug
    if reverse is not None or any(s in tres.message for s in TANGENT_LIMITS):
        return None     # the tangent-adfort-error note
    return Result("tangent-reject", tres.message, tres.detail)


def _check(case, wd, timeout, tangent):
    src = wd / case.filename
    src.write_text(case.source())
    fc = shutil.which(os.environ.get("FC", "gfortran")) or "gfortran"
    text, res = differentiate(case, src)
    # Tangent outcome: "checked" when r_fwd runs in the driver, else why not;
    # `tfail` a tangent failure found before the run.
    tnote, tmsg, tfail = "skipped", "", None
    ftext = None
    if tangent:
        ftext, tres = differentiate(case, src, mode="forward")
        if tres is not None:
            tfail = _tangent_rejected(res, tres)
            tnote = "adfort-error" if tfail is None else "failed"
            tmsg = tres.message
    res = _check_reverse(case, wd, fc, timeout, text, res, ftext, tfail)
    if res.cls in TANGENT_BUGS:
        tnote, tmsg = "failed", res.message
    elif tfail is not None:
        tnote = "failed"    # hidden by the adjoint's failure
    elif res.cls == "pass" and ftext is not None:
        tnote = "checked"
    res.tangent, res.tangent_message = tnote, tmsg
    return res


def _check_reverse(case, wd, fc, timeout, text, res, ftext, tfail):
    """Compile and run (the reverse part of) the check.  With `ftext` (the
    tangent's source) the driver also checks ``r_fwd``; a tangent failure
    is returned only when the adjoint passes."""
    src = wd / case.filename
    if res is not None:
        # the original must compile for the case to count
        code, _, err = _run([fc, "-fsyntax-only", src.name], wd, timeout)
        if code != 0:
            return Result("invalid-case", "original does not compile: "
                          + _first_error(err), err[-3000:])
        # a clean rejection by reverse mode, a crash in tangent mode
        if res.cls == "adfort-error" and tfail is not None:
            return tfail
        return res
    (wd / "case_ad.f90").write_text(text)
    # one compiler run for both (the adjoint uses the original's modules)
    code, _, err = _run([fc, "-c", *FFLAGS, src.name, "case_ad.f90"], wd,
                        timeout)
    if code != 0:
        if re.search(rf"^{re.escape(src.name)}:", err, re.MULTILINE):
            return Result("invalid-case", "original does not compile: "
                          + _first_error(err), err[-3000:])
        return Result("compile-fail", _first_error(err), err[-3000:])
    if ftext is not None:
        (wd / "case_fwd.f90").write_text(ftext)
        code, _, err = _run([fc, "-c", *FFLAGS, "case_fwd.f90"], wd, timeout)
        if code != 0:
            tfail = Result("tangent-compile-fail", _first_error(err),
                           err[-3000:])
            ftext = None
    objs = [Path(case.filename).with_suffix(".o").name, "case_ad.o"]
    if ftext is not None:
        (wd / "driver.f90").write_text(write_driver(case, tangent=True))
        code, _, err = _run([fc, *FFLAGS, "-o", "check", "driver.f90", *objs,
                             "case_fwd.o"], wd, timeout)
        if code != 0:
            # r_rev's calling convention or r_fwd's? Known once the driver
            # without r_fwd compiles.
            tfail = Result("tangent-compile-fail", "driver (tangent calling "
                           "convention): " + _first_error(err), err[-3000:])
            ftext = None
    if ftext is None:
        (wd / "driver.f90").write_text(write_driver(case))
        code, _, err = _run([fc, *FFLAGS, "-o", "check", "driver.f90", *objs],
                            wd, timeout)
        if code != 0:
            return Result("compile-fail", "driver (calling convention): "
                          + _first_error(err), err[-3000:])
    code, out, err = _run(["./check"], wd, timeout)
    if code is None:
        return Result("timeout", "driver timed out")
    if code != 0 and _last_phase(out) == "@phase_tangent":
        # r_fwd crashed: the adjoint is judged on a run without it
        tfail = Result("tangent-crash", _first_runtime_error(err),
                       err[-3000:] + out[-1000:])
        code, out, err = _run(["./check", "notangent"], wd, timeout)
        if code is None:
            return Result("timeout", "driver timed out")
    res = classify(case, out, err, code)
    if res.cls == "wrong-gradient":
        res = _arbitrate_in_quad(case, wd, fc, timeout, res)
    if res.cls != "pass":
        return res
    if tfail is not None:
        return tfail
    if ftext is not None:
        return classify_tangent(case, out)
    return res


def _last_phase(out):
    phases = [ln.split()[0] for ln in out.splitlines()
              if ln.startswith(("@phase_", "@primal_ok"))]
    return phases[-1] if phases else None


# Steps of the quadruple-precision check: small enough that no jump of a
# piecewise function (MOD, AINT, MAX…) lies between x - h and x + h.
QUAD_STEPS = [1e-9, 1e-12, 1e-15, 1e-18, 1e-21]


def _arbitrate_in_quad(case, wd, fc, timeout, res):
    """Repeat a failed dot-product test with everything (original, adjoint,
    driver) in quadruple precision and much smaller steps.  Central
    differences in double precision cannot separate a wrong adjoint from a
    discontinuity of MOD/MODULO/AINT… crossed by the step, where the
    function is very sensitive; in quadruple precision with steps of 1e-15
    they can.  The adjoint under test is the same code, so a wrong one
    stays wrong: only a verdict of the double-precision FD is overturned."""
    quad = wd / "quad"
    quad.mkdir(exist_ok=True)
    src = wd / case.filename
    shutil.copy(src, quad / case.filename)
    shutil.copy(wd / "case_ad.f90", quad / "case_ad.f90")
    (quad / "driver.f90").write_text(write_driver(case, QUAD_STEPS))
    flags = [*FFLAGS, "-freal-8-real-16"]
    code, _, err = _run([fc, *flags, "-o", "check", case.filename, "case_ad.f90",
                         "driver.f90"], quad, timeout)
    if code != 0:
        return res
    code, out, err = _run(["./check"], quad, timeout)
    if code is None:
        return res
    again = classify(case, out, err, code, QUAD_STEPS)
    if again.cls == "pass":
        return Result("pass", "double-precision differences cross a discontinuity; "
                      "checked in quadruple precision")
    return res


def _float(text):
    """A number as Fortran printed it (``1.5-312``: exponent without E)."""
    try:
        return float(text)
    except ValueError:
        return float(re.sub(r"(\d)([-+]\d+)$", r"\1e\2", text))


def classify(case, out, err, code, steps=STEPS):
    fd, lhs, primal_ok = {}, {}, set()
    contract = []
    for line in out.splitlines():
        parts = line.split()
        if not parts:
            continue
        tag = parts[0]
        if tag == "@primal_bad":
            return Result("invalid-case", "primal values blow up at the base "
                          "point", out[-2000:])
        if tag == "@primal_ok":
            primal_ok.add(int(parts[1]))
        elif tag == "@fd":
            p, k, ih = map(int, parts[1:4])
            fd[(p, k, ih)] = (_float(parts[4]), _float(parts[5]))
        elif tag == "@lhs":
            lhs[(int(parts[1]), int(parts[2]))] = _float(parts[3])
        elif tag in ("@primal_err", "@jac_primal"):
            if _float(parts[2]) > CONTRACT_TOL:
                what = "r_rev" if tag == "@primal_err" else "r_jacobian"
                contract.append(f"primal results of {what} differ from r's "
                                f"(rel. {_float(parts[2]):.2e})")
        elif tag == "@outzero":
            if _float(parts[3]) != 0.0:
                contract.append(f"adjoint of intent(out) dependent "
                                f"'{parts[2]}' not zero on return "
                                f"({_float(parts[3]):.2e})")
        elif tag == "@incr":
            if _float(parts[3]) > CONTRACT_TOL:
                contract.append(f"adjoint of independent '{parts[2]}' not "
                                f"incremented (rel. dev. "
                                f"{_float(parts[3]):.2e})")
        elif tag == "@jac_err":
            if _float(parts[3]) > CONTRACT_TOL:
                contract.append(f"Jacobian row '{parts[2]}' differs from the "
                                f"reverse sweep (rel. {_float(parts[3]):.2e})")
    if code != 0 or "@primal_ok" not in out:
        # which phase was running: the original routine (generator's
        # fault) or adfort's code?
        phases = [ln.split()[0] for ln in out.splitlines()
                  if ln.startswith(("@phase_primal", "@primal_ok"))]
        msg = _first_runtime_error(err)
        if not phases or phases[-1] == "@phase_primal":
            return Result("invalid-case", "original routine fails at the base "
                          "point: " + msg, err[-3000:])
        return Result("runtime-crash", msg, err[-3000:] + out[-1000:])
    bad = []
    perturbed = _perturbed_names(case)
    for (p, k), lv in sorted(lhs.items()):
        best = None
        for ih in range(1, len(steps) + 1):
            if (p, k, ih) not in fd:
                continue
            rhs, noise = fd[(p, k, ih)]
            e = abs(lv - rhs) / max(abs(lv), abs(rhs), noise / NOISE_TOL,
                                    1e-300)
            best = e if best is None else min(best, e)
        if best is not None and best > TOL:
            mid = fd.get((p, k, 3), (float("nan"), 0))[0]
            bad.append((k, p, best, lv, mid))
    if bad:
        names = sorted({perturbed[k - 1] for k, *_ in bad})
        k, p, best, lv, mid = bad[0]
        return Result("wrong-gradient",
                      f"adjoint of {', '.join(names)} wrong",
                      f"input {perturbed[k - 1]} at point {p}: adjoint "
                      f"<x_adj, xdot> = {lv!r}, central FD = {mid!r} "
                      f"(best rel. error {best:.2e})\n" + "\n".join(
                          f"  {perturbed[k_ - 1]} point {p_}: adjoint {l_!r}"
                          f" FD {m_!r} err {b_:.2e}"
                          for k_, p_, b_, l_, m_ in bad))
    if contract:
        uniq = list(dict.fromkeys(contract))
        return Result("contract", uniq[0], "\n".join(uniq))
    return Result("pass")


def classify_tangent(case, out):
    """The tangent's verdict from the driver's output of a case whose
    adjoint passed: the dot-product test of each point's ``@tdot`` (first
    call) against the sum of its ``@lhs``, then the contract."""
    adot = collections.defaultdict(float)
    amag = collections.defaultdict(float)
    fd = collections.defaultdict(float)
    tdot, contract = {}, []
    for line in out.splitlines():
        parts = line.split()
        if not parts:
            continue
        tag = parts[0]
        if tag == "@lhs":
            value = _float(parts[3])
            adot[int(parts[1])] += value
            amag[int(parts[1])] += abs(value)
        elif tag == "@fd" and int(parts[3]) == 3:
            fd[int(parts[1])] += _float(parts[4])
        elif tag == "@tdot":
            tdot[(int(parts[1]), int(parts[2]))] = (_float(parts[3]),
                                                   _float(parts[4]))
        elif tag == "@fwd_primal":
            e = _float(parts[2])
            if not e <= FWD_PRIMAL_TOL:
                contract.append(f"primal results of r_fwd differ from r's "
                                f"(rel. {e:.2e})")
    points = sorted({p for p, _ in tdot})
    if not points:
        return Result("tangent-crash", "the driver printed no tangent "
                      "results", out[-2000:])
    for p in points:
        t, tmag = tdot[(p, 1)]
        a = adot[p]
        # relative to the terms' magnitudes: the sums may cancel
        e = abs(t - a) / max(abs(t), abs(a), tmag, amag[p], 1e-300)
        if not e <= TANGENT_TOL:
            return Result("tangent-mismatch", "tangent and adjoint disagree "
                          "in the dot-product test",
                          f"point {p}: <ybar, J xdot> from r_fwd = {t!r}, "
                          f"<J^T ybar, xdot> from r_rev = {a!r} (rel. error "
                          f"{e:.2e}); central FD = {fd[p]!r}")
        if (p, 2) in tdot:
            t2 = tdot[(p, 2)][0]
            e2 = abs(t2 - t) / max(abs(t), tmag, 1e-300)
            if not e2 <= REPEAT_TOL:
                contract.append(
                    f"r_fwd's tangents depend on what intent(out) "
                    f"dependents' or other module variables' tangents held "
                    f"on entry ({t!r} then {t2!r})")
    if contract:
        uniq = list(dict.fromkeys(contract))
        return Result("tangent-contract", uniq[0], "\n".join(uniq))
    return Result("pass")


def _perturbed_names(case):
    from adfort.testing.driver import items_of
    items = items_of(case)

    def outonly(it):
        return "dep" in it.role and "indep" not in it.role and \
            it.is_arg and it.var.intent == "out"
    return [it.name for it in items if it.role and not outonly(it)]


def _first_runtime_error(err):
    for line in err.splitlines():
        s = line.strip()
        if s.startswith("At line") or s.startswith("Fortran runtime error") \
                or "Program received signal" in s:
            nxt = s
            if s.startswith("At line"):
                idx = err.splitlines().index(line)
                rest = err.splitlines()[idx + 1:idx + 2]
                nxt = s + " " + (rest[0].strip() if rest else "")
            return re.sub(r"of file \S+/", "of file ", nxt)[:200]
    return (err.strip().splitlines() or ["crashed"])[0][:200]
