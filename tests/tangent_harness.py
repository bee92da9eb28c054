"""Checks of generated tangents (r_fwd) and Hessian-vector products (r_hvp)
on the Fortran fixtures, in the spirit of harness.py.

One driver program per fixture and schedule computes, at a random base
point, for a random direction ẋ and random seeds ȳ:

- ``tdot`` = ⟨ȳ, J ẋ⟩ from r_fwd (the tangent);
- ``adot`` = ⟨Jᵀ ȳ, ẋ⟩ from r_rev (the adjoint, of the given schedule);
- ``fd`` = ⟨ȳ, (f(x + hẋ) − f(x − hẋ)) / 2h⟩ (central differences);
- the deviation of r_fwd's primal outputs from r's.

The dot-product test compares ``tdot`` with ``adot`` (rounding only:
1e-12 in double precision), the FD test ``tdot`` with ``fd``.
"""

import dataclasses
from pathlib import Path

import harness
from harness import HarnessError, _DriverWriter, _run, gfortran, rel_error

REPO_ROOT = harness.REPO_ROOT


def generate(fixture, meta, mode, schedule, out, extra_cli=(), in_process=False):
    """``adfort diff --mode MODE`` on the fixture, writing `out`.

    :param in_process: call :func:`adfort.api.differentiate_file` in this
        process instead (no start-up: the sweep over every fixture), with
        the CLI's defaults; `extra_cli` must then be empty.
    """
    if in_process and not extra_cli:
        from adfort.api import differentiate_file
        from adfort.errors import AdfortError
        from adfort.schedules import SCHEDULES
        try:
            text, _, _ = differentiate_file(str(fixture), meta.dep, meta.indep,
                                            SCHEDULES[schedule or "split"](), meta.routine,
                                            mode=mode)
        except AdfortError as err:
            raise HarnessError(f"adfort: error: {err}") from None
        Path(out).write_text(text)
        return out
    # (reverse mode: the command the FD tests run, whose output is cached)
    cli = (["--mode", mode] if mode != "reverse" else []) + list(extra_cli)
    return harness.generate(fixture, meta, schedule, out, cli)


def single_precision(sig, names):
    """Whether any of the `names` arguments is a default (single) real."""
    for name in names:
        text = sig.arg(name).type_text.lower().replace(" ", "")
        if text in ("real", "real(4)", "real(kind=4)") or text.startswith("real*4"):
            return True
    return False


def _roles(sig, meta):
    dep = list(meta.dep)
    # A dependent that comes in with a value (intent inout) is an input too.
    indep = meta.indep + [n for n in dep if n not in meta.indep
                          and sig.arg(n).intent != "out"]
    return dep, indep


def write_tangent_driver(sig, meta, fixture):
    """The program printing tdot, adot, fd and the primal error of r_fwd."""
    w = _DriverWriter(sig, meta, fixture)
    dep, indep = _roles(sig, meta)
    active = [a.name for a in sig.args if a.name in set(dep) | set(indep)]
    w.base_point()
    real_dp = "real(adf_dp)"
    for name in indep:
        arg = sig.arg(name)
        w.declare(arg, ["_dir"], real_dp)
        w.declare(arg, ["_xp", "_xm"])
        for s in ("_dir", "_xp", "_xm"):
            w.alloc_like(arg, s)
        w.direction(arg, w.v(name, "_dir"))
        w.line(f"{w.v(name, '_xp')} = {w.v(name, '_base')} + adf_fd_h * {w.v(name, '_dir')}")
        w.line(f"{w.v(name, '_xm')} = {w.v(name, '_base')} - adf_fd_h * {w.v(name, '_dir')}")
        w.line(f"{w.v(name, '_dir')} = (real({w.v(name, '_xp')}, adf_dp) - "
               f"real({w.v(name, '_xm')}, adf_dp)) / (2.0_adf_dp * adf_fd_h)")
    for name in dep:
        arg = sig.arg(name)
        w.declare(arg, ["_seed", "_plus", "_minus"])
        for s in ("_seed", "_plus", "_minus"):
            w.alloc_like(arg, s)
        w.fill(arg, w.v(name, "_seed"), lambda u: f"0.5_adf_dp + {u}")
    for name in active:
        arg = sig.arg(name)
        w.declare(arg, ["_adj", "_d"])
        w.alloc_like(arg, "_adj")
        w.alloc_like(arg, "_d")
    w.decls.append("real(adf_dp) :: adf_tdot, adf_adot, adf_fd")

    def call(proc, suffix):
        actuals = []
        for arg in sig.args:
            actuals.append(w.v(arg.name))
            if arg.name in active:
                actuals.append(w.v(arg.name, suffix))
        w.line(f"call {proc}(" + ", ".join(actuals) + ")")

    w.line("! reference primal values at the base point")
    w.line("call adf_reset()")
    w.call(sig.routine, False)
    w.save_ref()
    w.line("! tangent: y_d = J x_d")
    w.line("call adf_reset()")
    for name in active:
        w.line(f"{w.v(name, '_d')} = 0")
    for name in indep:
        w.line(f"{w.v(name, '_d')} = {w.v(name, '_dir')}")
    call(f"{sig.routine}_fwd", "_d")
    w.primal_check()
    w.line("adf_tdot = " + " + ".join(
        w.red(sig.arg(n), f"real({w.v(n, '_seed')}, adf_dp) * real({w.v(n, '_d')}, adf_dp)")
        for n in dep))
    w.line("! adjoint: x_adj = J^T y_adj")
    w.line("call adf_reset()")
    for name in active:
        w.line(f"{w.v(name, '_adj')} = 0")
    for name in dep:
        w.line(f"{w.v(name, '_adj')} = {w.v(name, '_seed')}")
    call(f"{sig.routine}_rev", "_adj")
    w.line("adf_adot = " + " + ".join(
        w.red(sig.arg(n), f"real({w.v(n, '_adj')}, adf_dp) * {w.v(n, '_dir')}")
        for n in indep))
    w.line("! central differences of r along the direction")
    for point, suffix in (("_xp", "_plus"), ("_xm", "_minus")):
        w.line("call adf_reset()")
        for name in indep:
            w.line(f"{w.v(name)} = {w.v(name, point)}")
        w.call(sig.routine, False)
        for name in dep:
            w.line(f"{w.v(name, suffix)} = {w.v(name)}")
    terms = [w.red(sig.arg(n), f"real({w.v(n, '_seed')}, adf_dp) * "
                   f"(real({w.v(n, '_plus')}, adf_dp) - real({w.v(n, '_minus')}, adf_dp))")
             for n in dep]
    w.line(f"adf_fd = ({' + '.join(terms)}) / (2.0_adf_dp * adf_fd_h)")
    for label in ("tdot", "adot", "fd", "primal_err"):
        w.line(f"write(*, '(a, es27.17e3)') '@{label} ', adf_{label}")
    procs = [f"{sig.routine}_rev"]
    lines = w.header("adfort_tangent_check", procs)
    if sig.module:
        lines.insert(3, f"  use {sig.module}_fwd, only: {sig.routine}_fwd")
    else:
        lines = [line.replace(f"external :: ", f"external :: {sig.routine}_fwd, ")
                 if "external ::" in line else line for line in lines]
    lines += ["  " + d for d in w.decls] + ["  " + b for b in w.body]
    lines += w.footer("adfort_tangent_check")
    return "\n".join(harness._wrap(line) for line in lines) + "\n"


@dataclasses.dataclass
class TangentResult:
    fixture: Path
    schedule: str
    tdot: float
    adot: float
    fd: float
    dot_err: float      # tangent vs adjoint
    fd_err: float       # tangent vs central differences
    primal_err: float   # r_fwd's primal outputs vs r's
    single: bool        # single-precision active arguments
    forward: Path
    output: str

    def describe(self):
        return (f"fixture {self.fixture.name} schedule={self.schedule}\n"
                f"  <ybar, J xdot> tangent = {self.tdot!r}\n"
                f"  <J^T ybar, xdot> adj.  = {self.adot!r}\n"
                f"  central FD             = {self.fd!r}\n"
                f"  dot-product rel. error = {self.dot_err:.3e}\n"
                f"  FD rel. error          = {self.fd_err:.3e}\n"
                f"  primal error of r_fwd  = {self.primal_err:.3e}\n"
                f"--- {self.forward} ---\n{harness._numbered(self.forward)}")


def check_tangent(fixture, schedule, workdir, extra_cli=(), forward=None, in_process=False):
    """Generate r_fwd (once: pass its path as `forward` to reuse it) and
    r_rev under `schedule`, compile them with the fixture and the driver,
    run.

    :param in_process: generate in this process (see :func:`generate`).
    :rtype: TangentResult
    """
    fixture = Path(fixture).resolve()
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    meta = harness.parse_metadata(fixture)
    sig = harness.parse_signature(fixture, meta.routine)
    meta.routine = sig.routine
    harness.check_metadata_names(sig, meta, fixture)
    harness.resolve_shapes(sig, meta, str(fixture))
    if forward is None:
        forward = generate(fixture, meta, "forward", None,
                           workdir / f"{fixture.stem}_fwd.f90", extra_cli, in_process)
    adjoint = generate(fixture, meta, "reverse", schedule,
                       workdir / f"{fixture.stem}_ad.f90", extra_cli, in_process)
    driver = workdir / "tangent_driver.f90"
    driver.write_text(write_tangent_driver(sig, meta, fixture))
    exe = workdir / "tangent_driver"
    _run([gfortran(), *harness.RUN_FFLAGS, *meta.fflags, fixture, forward, adjoint, driver,
          "-o", exe], workdir, "compiling original + tangent + adjoint + driver",
         show=[forward, driver])
    proc = _run([exe], workdir, "running the tangent driver", show=[forward, driver])
    values = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].startswith("@"):
            values[parts[0][1:]] = float(parts[1])
    try:
        tdot, adot, fd = values["tdot"], values["adot"], values["fd"]
    except KeyError as err:
        raise HarnessError(f"driver output lacks {err}: {proc.stdout}") from err
    return TangentResult(fixture, schedule, tdot, adot, fd, rel_error(tdot, adot),
                         rel_error(tdot, fd), values["primal_err"],
                         single_precision(sig, meta.dep + meta.indep), forward, proc.stdout)


# --------------------------------------------------------------------------
# Hessian-vector products
# --------------------------------------------------------------------------

def write_hvp_driver(sig, meta, fixture, dep):
    """The program printing ⟨w, H v⟩ from r_hvp and from central differences
    of r_rev's gradients at x ± h v, and the gradient r_hvp returns against
    r_rev's."""
    w = _DriverWriter(sig, meta, fixture)
    indep = list(meta.indep)
    adjoints = [a.name for a in sig.args if a.name in set(indep) | {dep}]
    w.base_point()
    real_dp = "real(adf_dp)"
    for name in indep:
        arg = sig.arg(name)
        w.declare(arg, ["_dir", "_wgt", "_hv", "_gp", "_gm", "_gp2", "_gm2", "_g"], real_dp)
        w.declare(arg, ["_d", "_adjd"])
        for s in ("_dir", "_wgt", "_hv", "_gp", "_gm", "_gp2", "_gm2", "_g", "_d", "_adjd"):
            w.alloc_like(arg, s)
        w.direction(arg, w.v(name, "_dir"))
        w.fill(arg, w.v(name, "_wgt"), lambda u: f"0.5_adf_dp + {u}")
    for name in adjoints:
        arg = sig.arg(name)
        w.declare(arg, ["_adj"])
        w.alloc_like(arg, "_adj")
    w.decls.append("real(adf_dp) :: adf_hvp, adf_fd, adf_grad_hvp, adf_grad_rev")
    w.decls.append("real(adf_dp), parameter :: adf_hvp_h = 1.0e-4_adf_dp")

    def seed():
        for name in adjoints:
            w.line(f"{w.v(name, '_adj')} = 0")
        w.line(f"{w.v(dep, '_adj')} = 1")

    def rev():
        actuals = []
        for arg in sig.args:
            actuals.append(w.v(arg.name))
            if arg.name in adjoints:
                actuals.append(w.v(arg.name, "_adj"))
        w.line(f"call {sig.routine}_rev(" + ", ".join(actuals) + ")")

    w.line("! r_hvp: x_adj_d = H v")
    w.line("call adf_reset()")
    seed()
    actuals = []
    for arg in sig.args:
        actuals.append(w.v(arg.name))
        if arg.name in indep:
            w.line(f"{w.v(arg.name, '_d')} = {w.v(arg.name, '_dir')}")
            w.line(f"{w.v(arg.name, '_adjd')} = 0")
            actuals.append(w.v(arg.name, "_d"))
        if arg.name in adjoints:
            actuals.append(w.v(arg.name, "_adj"))
        if arg.name in indep:
            actuals.append(w.v(arg.name, "_adjd"))
    w.line(f"call {sig.routine}_hvp(" + ", ".join(actuals) + ")")
    for name in indep:
        w.line(f"{w.v(name, '_hv')} = {w.v(name, '_adjd')}")
        w.line(f"{w.v(name, '_g')} = {w.v(name, '_adj')}")
    w.line("! r_rev at the base point and at x +- h v, x +- 2h v")
    for step, suffix in (("", "_g"), ("+ adf_hvp_h *", "_gp"), ("- adf_hvp_h *", "_gm"),
                         ("+ 2 * adf_hvp_h *", "_gp2"), ("- 2 * adf_hvp_h *", "_gm2")):
        w.line("call adf_reset()")
        for name in indep:
            if step:
                w.line(f"{w.v(name)} = {w.v(name, '_base')} {step} {w.v(name, '_dir')}")
        seed()
        rev()
        if suffix == "_g":
            w.line("adf_grad_rev = " + " + ".join(
                w.red(sig.arg(n), f"{w.v(n, '_wgt')} * real({w.v(n, '_adj')}, adf_dp)")
                for n in indep))
            continue
        for name in indep:
            w.line(f"{w.v(name, suffix)} = {w.v(name, '_adj')}")
    w.line("adf_hvp = " + " + ".join(
        w.red(sig.arg(n), f"{w.v(n, '_wgt')} * {w.v(n, '_hv')}") for n in indep))
    w.line("adf_grad_hvp = " + " + ".join(
        w.red(sig.arg(n), f"{w.v(n, '_wgt')} * {w.v(n, '_g')}") for n in indep))
    # Fourth-order central differences of the gradients.
    w.line("adf_fd = (" + " + ".join(
        w.red(sig.arg(n), f"{w.v(n, '_wgt')} * (8 * ({w.v(n, '_gp')} - {w.v(n, '_gm')}) - "
                          f"({w.v(n, '_gp2')} - {w.v(n, '_gm2')}))")
        for n in indep) + ") / (12 * adf_hvp_h)")
    for label in ("hvp", "fd", "grad_hvp", "grad_rev"):
        w.line(f"write(*, '(a, es27.17e3)') '@{label} ', adf_{label}")
    lines = w.header("adfort_hvp_check", [f"{sig.routine}_rev"])
    if sig.module:
        lines.insert(3, f"  use {sig.module}_hvp, only: {sig.routine}_hvp")
    else:
        lines = [line.replace("external :: ", f"external :: {sig.routine}_hvp, ")
                 if "external ::" in line else line for line in lines]
    lines += ["  " + d for d in w.decls] + ["  " + b for b in w.body]
    lines += w.footer("adfort_hvp_check")
    return "\n".join(harness._wrap(line) for line in lines) + "\n"


@dataclasses.dataclass
class HvpResult:
    fixture: Path
    schedule: str
    hvp: float
    fd: float
    fd_err: float       # <w, Hv> vs central differences of gradients
    grad_err: float     # r_hvp's gradient vs r_rev's
    generated: Path
    output: str

    def describe(self):
        return (f"fixture {self.fixture.name} schedule={self.schedule}\n"
                f"  <w, H v> r_hvp        = {self.hvp!r}\n"
                f"  FD of gradients       = {self.fd!r}\n"
                f"  relative error        = {self.fd_err:.3e}\n"
                f"  gradient vs r_rev     = {self.grad_err:.3e}\n"
                f"--- {self.generated} ---\n{harness._numbered(self.generated)}")


def check_hvp(fixture, schedule, workdir, dep=None, indep=None, extra_cli=()):
    """Generate r_hvp (dependent `dep`, default the fixture's only one) and
    r_rev, and compare H v with central differences of gradients."""
    fixture = Path(fixture).resolve()
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    meta = harness.parse_metadata(fixture)
    sig = harness.parse_signature(fixture, meta.routine)
    meta.routine = sig.routine
    harness.check_metadata_names(sig, meta, fixture)
    harness.resolve_shapes(sig, meta, str(fixture))
    dep = dep or meta.dep[0]
    meta.dep = [dep]
    if indep:
        meta.indep = list(indep)
    hvp = generate(fixture, meta, "hvp", schedule, workdir / f"{fixture.stem}_hvp.f90",
                   extra_cli)
    adjoint = generate(fixture, meta, "reverse", schedule,
                       workdir / f"{fixture.stem}_ad.f90", extra_cli)
    driver = workdir / "hvp_driver.f90"
    driver.write_text(write_hvp_driver(sig, meta, fixture, dep))
    exe = workdir / "hvp_driver"
    _run([gfortran(), *harness.RUN_FFLAGS, *meta.fflags, fixture, adjoint, hvp, driver,
          "-o", exe], workdir, "compiling original + adjoint + hvp + driver",
         show=[hvp, driver])
    proc = _run([exe], workdir, "running the hvp driver", show=[hvp, driver])
    values = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].startswith("@"):
            values[parts[0][1:]] = float(parts[1])
    # Relative to |<w, H v>|, or to 1e-3 |<w, g>| where H v vanishes (a
    # function linear in some independents): FD noise is relative to g.
    hv, fd = values["hvp"], values["fd"]
    fd_err = abs(hv - fd) / max(abs(hv), abs(fd), 1e-3 * abs(values["grad_rev"]), 1e-300)
    return HvpResult(fixture, schedule, hv, fd, fd_err,
                     rel_error(values["grad_hvp"], values["grad_rev"]), hvp, proc.stdout)


# --------------------------------------------------------------------------
# multi-file fixtures (tests/fortran_fixtures/calls, calls_harness.py)
# --------------------------------------------------------------------------

def generate_calls(fix, mode, schedule, out):
    """``adfort diff`` of a calls fixture in `mode` (reverse under `schedule`)."""
    import calls_harness as ch
    cmd = ch.adfort_command(fix, schedule, out)
    if mode != "reverse":
        cmd = [c for c in cmd]
        at = cmd.index("--schedule") if "--schedule" in cmd else len(cmd) - 2
        cmd = cmd[:at] + ["--mode", mode] + cmd[cmd.index("-o"):]
    ch.run(cmd, out.parent, f"adfort diff --mode {mode}")
    return out


def write_calls_tangent_driver(prob):
    """The dot-product test ⟨ȳ, J ẋ⟩ (r_fwd) vs ⟨Jᵀȳ, ẋ⟩ (r_rev) and central
    differences along ẋ, every independent (module variables included)
    moving at once."""
    import calls_harness as ch
    fix = prob.fix
    w = ch.DriverWriter(prob)
    w.decls += ["real(adf_dp) :: adf_tdot, adf_adot, adf_fd, adf_err"]
    w.base_point()
    for name in fix.indep:
        w.declare(name, ["dir"], real_dp=True)
        base = w.var(name, "base")
        w.fill(name, w.var(name, "dir"),
               lambda u: f"(2.0_adf_dp * {u} - 1.0_adf_dp) * "
                         f"max(abs(real({base}, adf_dp)), 1.0e-3_adf_dp)")
    for name in fix.dep:
        w.declare(name, ["seed"])
        w.declare(name, ["yp", "ym"], real_dp=True)
        w.fill(name, w.var(name, "seed"), lambda u: f"0.5_adf_dp + {u}")
    active = sorted(w.active, key=lambda n: (fix.dep + fix.indep).index(n))
    for name in active:
        if "::" not in name:
            w.declare(name, ["adj", "d"])

    def tangent(name):
        return f"{prob.modvars[name].alias}_d" if "::" in name else w.var(name, "d")

    def adjoint(name):
        return w.var(name, "adj")

    def call(proc, role):
        actuals = []
        for arg in prob.sig.args:
            actuals.append(w.var(arg.name))
            if arg.name in w.active:
                actuals.append(w.var(arg.name, role))
        return f"call {proc}(" + ", ".join(actuals) + ")"

    w.line("! reference: the original routine from the base point")
    w.line("call adf_reset()")
    w.line(w.call(fix.routine, False))
    w.save("ref", ch.arg_names(prob) + list(prob.modvars))
    w.line("! tangent")
    w.line("call adf_reset()")
    for name in active:
        w.line(f"{tangent(name)} = 0")
    for name in fix.indep:
        w.line(f"{tangent(name)} = {w.var(name, 'dir')}")
    w.line(call(f"{fix.routine}_fwd", "d"))
    w.line("adf_tdot = " + " + ".join(
        w.red(n, f"real({w.var(n, 'seed')}, adf_dp) * real({tangent(n)}, adf_dp)")
        for n in fix.dep))
    w.primal_diff("adf_err", ch.arg_names(prob) + list(prob.modvars))
    w.line("print '(a,1x,es27.17e3)', '@primal_err', adf_err")
    w.line("! adjoint")
    w.line("call adf_reset()")
    for name in active:
        w.line(f"{adjoint(name)} = 0")
    for name in fix.dep:
        w.line(f"{adjoint(name)} = {w.var(name, 'seed')}")
    w.line(call(f"{fix.routine}_rev", "adj"))
    w.line("adf_adot = " + " + ".join(
        w.red(n, f"{w.var(n, 'dir')} * real({adjoint(n)}, adf_dp)") for n in fix.indep))
    # Fourth-order central differences, as calls_harness's.
    for name in fix.dep:
        w.declare(name, ["yp2", "ym2"], real_dp=True)
    for step, role in (("+ adf_h", "yp"), ("- adf_h", "ym"), ("+ 2.0_adf_dp * adf_h", "yp2"),
                       ("- 2.0_adf_dp * adf_h", "ym2")):
        w.line("call adf_reset()")
        for name in fix.indep:
            w.line(f"{w.var(name)} = {w.var(name, 'base')} {step} * {w.var(name, 'dir')}")
        w.line(w.call(fix.routine, False))
        for name in fix.dep:
            w.line(f"{w.var(name, role)} = real({w.var(name)}, adf_dp)")
    w.line("adf_fd = (" + " + ".join(
        w.red(d, f"real({w.var(d, 'seed')}, adf_dp) * (8.0_adf_dp * ({w.var(d, 'yp')} - "
                 f"{w.var(d, 'ym')}) - ({w.var(d, 'yp2')} - {w.var(d, 'ym2')}))")
        for d in fix.dep) + ") / (12.0_adf_dp * adf_h)")
    for label in ("tdot", "adot", "fd"):
        w.line(f"print '(a,1x,es27.17e3)', '@{label}', adf_{label}")
    text = w.program("adf_tangent_check", [f"{fix.routine}_rev"])
    uses = []
    if prob.sig.module:
        uses.append(f"  use {prob.sig.module}_fwd, only: {fix.routine}_fwd")
    for q, mv in prob.modvars.items():
        if q in w.active:
            uses.append(f"  use {mv.module}_fwd, only: {mv.alias}_d => {mv.name}_d")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "implicit none" in line)
    lines[at:at] = uses
    if not prob.sig.module:
        lines = [line.replace("external :: ", f"external :: {fix.routine}_fwd, ", 1)
                 if line.strip().startswith("external ::") else line for line in lines]
    return "\n".join(lines) + "\n"


def check_calls_tangent(fix, schedule, workdir):
    """Tangent of a calls fixture vs its adjoint under `schedule` and central
    differences.

    :rtype: TangentResult
    """
    import calls_harness as ch
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    prob = ch.resolve(fix)
    forward = generate_calls(fix, "forward", schedule, workdir / f"{fix.name}_fwd.f90")
    adjoint = ch.generate(fix, schedule, workdir / f"{fix.name}_ad.f90")
    driver = workdir / "adf_tangent_check.f90"
    driver.write_text(write_calls_tangent_driver(prob))
    exe = workdir / "adf_tangent_check"
    sources = [fix.file(r) for r in fix.compile] + [fix.file(r) for r in fix.adjoint_lib] + \
        [adjoint, forward, driver]
    ch.run([gfortran(), *harness.RUN_FFLAGS, *fix.fflags, *ch.cpp_flags(fix), *sources,
            "-o", exe], workdir, "compiling originals + adjoint + tangent + driver",
           show=[forward, driver])
    proc = ch.run([exe], workdir, "running the tangent driver", show=[forward, driver])
    values = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].startswith("@"):
            values[parts[0][1:]] = float(parts[1])
    tdot, adot, fd = values["tdot"], values["adot"], values["fd"]
    return TangentResult(Path(fix.name), schedule.name, tdot, adot, fd, rel_error(tdot, adot),
                         rel_error(tdot, fd), values["primal_err"], False, forward,
                         proc.stdout)
