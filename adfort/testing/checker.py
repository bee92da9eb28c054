"""Check one generated case end to end and classify the outcome.

Steps: write the source; differentiate it in-process with
:func:`adfort.api.differentiate_file`; compile the original, the adjoint
and the driver (:mod:`adfort.testing.driver`) with gfortran's run-time
checks and floating-point traps; run; compare.

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
- ``timeout``.
"""

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
BUGS = ("internal-error", "compile-fail", "runtime-crash", "wrong-gradient",
        "contract", "invalid-case", "timeout")


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

    @property
    def key(self):
        """What makes two failures 'the same' for the shrinker: the class
        and the message with numbers, names and locations blurred."""
        if self.cls in ("wrong-gradient", "pass"):
            return self.cls
        msg = re.sub(r"\S+\.f(90)?:\d+", "FILE", self.message)
        msg = re.sub(r"'[^']*'", "'X'", msg)
        msg = re.sub(r"‘[^’]*’", "'X'", msg)
        msg = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", msg)
        return f"{self.cls}: {msg[:80]}"


def differentiate(case, path):
    """Run adfort in-process: (text, None) or (None, Result)."""
    from adfort.errors import AdfortError
    from adfort.api import differentiate_file
    from adfort.schedules import SCHEDULES
    import signal

    def hang(signum, frame):
        raise TimeoutError("adfort ran for more than 120 s")
    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(120)
    try:
        text, _, _ = differentiate_file(
            str(path), case.dep, case.indep, SCHEDULES[case.schedule](),
            routine=case.top, options={"jacobian": case.jacobian})
        return text, None
    except AdfortError as err:
        return None, Result("adfort-error", err.message,
                            str(err))
    except TimeoutError as err:
        return None, Result("timeout", str(err))
    except RecursionError as err:
        return None, Result("internal-error", f"RecursionError: {err}"[:200],
                            traceback.format_exc()[-3000:])
    except Exception as err:   # any other exception is an adfort bug
        tb = traceback.extract_tb(err.__traceback__)
        where = next((f"{Path(f.filename).name}:{f.lineno}" for f in
                      reversed(tb) if "/adfort/" in f.filename and
                      "/testing/" not in f.filename), "?")
        return None, Result("internal-error",
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


def check(case, workdir=None, keep=False, timeout=60):
    """Check `case`; returns a :class:`Result`."""
    own = workdir is None
    workdir = Path(workdir or tempfile.mkdtemp(prefix="adfort_fuzz_"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        res = _check(case, workdir, timeout)
    finally:
        if own and not keep:
            shutil.rmtree(workdir, ignore_errors=True)
    res.seed, res.level = case.seed, case.level
    res.schedule, res.jacobian = case.schedule, case.jacobian
    res.workdir = str(workdir) if keep or not own else ""
    return res


def _check(case, wd, timeout):
    src = wd / case.filename
    src.write_text(case.source())
    fc = shutil.which(os.environ.get("FC", "gfortran")) or "gfortran"
    text, res = differentiate(case, src)
    if res is not None:
        # the original must compile for the case to count
        code, _, err = _run([fc, "-fsyntax-only", src.name], wd, timeout)
        if code != 0:
            return Result("invalid-case", "original does not compile: "
                          + _first_error(err), err[-3000:])
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
    (wd / "driver.f90").write_text(write_driver(case))
    obj = Path(case.filename).with_suffix(".o").name
    code, _, err = _run([fc, *FFLAGS, "-o", "check", "driver.f90", obj,
                         "case_ad.o"], wd, timeout)
    if code != 0:
        return Result("compile-fail", "driver (calling convention): "
                      + _first_error(err), err[-3000:])
    code, out, err = _run(["./check"], wd, timeout)
    if code is None:
        return Result("timeout", "driver timed out")
    res = classify(case, out, err, code)
    if res.cls == "wrong-gradient":
        res = _arbitrate_in_quad(case, wd, fc, timeout, res)
    return res


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
