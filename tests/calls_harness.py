"""Finite-difference checks for multi-file, multi-routine adjoints.

The single-file harness (``harness.py``) reads its metadata from comments in
one Fortran file.  The fixtures of the issue *Calls, functions, modules and
reversal schedules* span several files and use module variables as
dependents/independents, so each one is a directory

    tests/fortran_fixtures/calls/<name>/
        fixture.toml
        *.f90, src/*.f90, ...

whose ``fixture.toml`` says::

    description = "what the kernel is"
    features = ["three_levels", ...]        # what it exercises (test_calls)
    main = "model.f90"                       # FILE given to adfort diff
    extra = ["physics.f90"]                  # EXTRA_FILES on the command line
    search = ["src"]                         # -I directories
    routine = "run"                          # --routine
    dep = ["cost", "box_ocean::heat_acc"]    # --dep (module::var allowed)
    indep = ["u0", "box_ocean::kdiff"]       # --indep
    compile = ["src/kinds.f90", "model.f90"] # original sources in dependency
                                             # order (default: extra + main)
    adjoint_lib = ["blackbox_ad.f90"]        # --adjoint-lib (compiled after
                                             # the originals)
    state = ["box_ocean::ncalls"]            # other module variables the
                                             # routines write: reset before
                                             # every primal call
    driver_use = ["use foo, only: bar"]      # optional driver lines
    driver_reset = ["call init_grid()"]      # run at every reset
    fflags = []
    defines = ["USE_X", "N=4"]               # -D macros for preprocessed
                                             # sources (adfort and gfortran)

    [init]          # integers: value; reals: value or [lo, hi] (per element)
    n = 20          # module variables too: "box_ocean::kdiff" = [0.2, 0.4]
    u0 = [0.5, 1.5]

    [[mixed]]       # at least one mixed --link schedule
    schedule = "split"                 # --schedule for the links not named
    links = ["run:step=joint"]         # --link options

    [bench]         # larger integer sizes for scripts/benchmark_calls.py
    n = 400

Module variables without an ``init`` entry keep the value they have when the
program starts (their declaration's initial value) as base point.

The driver (``write_check_driver``) draws a random base point, a random
direction for every element of every independent (module variables
included), random seeds for the dependents (module-variable dependents are
seeded through ``<var>_adj`` of ``<module>_ad``) and random non-zero preset
values for the independents' adjoints; it calls ``r_rev`` and, for each
independent separately, compares

    lhs_k = <xbar_k - preset_k, xdot_k>      (a variable that is also a
                                              dependent carries its seed in
                                              and its gradient out: no preset)
    rhs_k = <ybar, dy_k>,  dy_k = (8 (y(x + h xdot_k) - y(x - h xdot_k))
                                   - (y(x + 2h xdot_k) - y(x - 2h xdot_k))) / 12h

resetting every argument and every listed module variable before each call
of the original routine.  It also checks that ``r_rev`` leaves the
arguments (and the listed module variables) as ``r`` does.  Sources are
compiled (-O0 -g -fcheck=all -ffpe-trap=invalid,zero,overflow) in the order
original sources, adjoint libraries, generated file, driver.

By hand (keeps every file):  python tests/calls_harness.py [NAME...]
[--schedule split|joint|mixed1...] [--workdir DIR]
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402  (parse_signature, eval_int, gfortran)

try:
    import tomllib  # Python >= 3.11
except ModuleNotFoundError:  # pragma: no cover - older Pythons
    try:
        import tomli as tomllib  # type: ignore[no-redef]
    except ModuleNotFoundError:
        tomllib = None

REPO_ROOT = Path(__file__).resolve().parent.parent
CALLS_DIR = Path(__file__).resolve().parent / "fortran_fixtures" / "calls"

RUN_FFLAGS = ["-O0", "-g", "-fcheck=all", "-ffpe-trap=invalid,zero,overflow"]
FD_STEP = 1.0e-4   # relative step of the 4th-order central differences
TOL = 1.0e-6

HarnessError = harness.HarnessError


# --------------------------------------------------------------------------
# fixture description
# --------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Schedule:
    """A reversal schedule: ``--schedule default`` plus ``--link`` options."""

    name: str
    default: str
    links: Tuple[str, ...] = ()
    flags: Tuple[str, ...] = ()

    def cli(self) -> List[str]:
        args = ["--schedule", self.default]
        for link in self.links:
            args += ["--link", link]
        return args + list(self.flags)


SPLIT = Schedule("split", "split")
JOINT = Schedule("joint", "joint")
# Short functions and subroutines kept as calls (adfort/inlining.py puts
# them in their callers by default): the calls' own reversal is checked.
JOINT_CALLS = Schedule("joint-calls", "joint", flags=("--no-inline",))


@dataclasses.dataclass
class ModVar:
    """A module variable the driver sets, resets and reads."""

    module: str
    name: str
    intrinsic: str          # REAL / INTEGER / BOOLEAN
    rank: int
    index: int              # driver names adf_m<index>

    @property
    def qualified(self) -> str:
        return f"{self.module}::{self.name}"

    @property
    def alias(self) -> str:
        return f"adf_m{self.index}"

    @property
    def is_real(self) -> bool:
        return self.intrinsic == "REAL"

    def type_text(self) -> str:
        kind = f"kind({self.alias})"
        return {"REAL": f"real({kind})", "INTEGER": f"integer({kind})",
                "BOOLEAN": f"logical({kind})"}[self.intrinsic]


@dataclasses.dataclass
class Fixture:
    name: str
    path: Path
    description: str
    features: List[str]
    main: str
    extra: List[str]
    search: List[str]
    routine: str
    dep: List[str]
    indep: List[str]
    compile: List[str]
    adjoint_lib: List[str]
    state: List[str]
    init: Dict[str, object]
    mixed: List[Schedule]
    bench: Dict[str, object]
    driver_use: List[str]
    driver_reset: List[str]
    fflags: List[str]
    defines: List[str]

    def file(self, rel: str) -> Path:
        return (self.path / rel).resolve()

    @property
    def schedules(self) -> List[Schedule]:
        return [SPLIT, JOINT, JOINT_CALLS] + self.mixed

    def schedule(self, name: str) -> Schedule:
        for sched in self.schedules:
            if sched.name == name:
                return sched
        raise HarnessError(f"{self.name}: no schedule {name!r}")

    def module_names(self) -> List[str]:
        """dep/indep/state names of module variables, in that order."""
        names = []
        for name in self.dep + self.indep + self.state:
            if "::" in name and name not in names:
                names.append(name)
        return names

    def with_sizes(self, sizes: Dict[str, object]) -> "Fixture":
        init = dict(self.init)
        init.update(sizes)
        return dataclasses.replace(self, init=init)


def _as_list(value, what) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise HarnessError(f"{what}: expected a list, got {value!r}")
    return [str(v) for v in value]


_KNOWN_KEYS = {"description", "features", "main", "extra", "search",
               "routine", "dep", "indep", "compile", "adjoint_lib", "state",
               "init", "mixed", "bench", "driver_use", "driver_reset",
               "fflags", "defines"}


def load_fixture(path: Path) -> Fixture:
    """Read ``<path>/fixture.toml``."""
    path = Path(path).resolve()
    cfg_path = path / "fixture.toml"
    if tomllib is None:
        raise HarnessError("reading fixture.toml needs Python >= 3.11 "
                           "(tomllib) or the tomli package")
    try:
        cfg = tomllib.loads(cfg_path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise HarnessError(f"{cfg_path}: {err}") from err
    unknown = set(cfg) - _KNOWN_KEYS
    if unknown:
        raise HarnessError(f"{cfg_path}: unknown keys {sorted(unknown)}")
    for key in ("main", "routine", "dep", "indep"):
        if key not in cfg:
            raise HarnessError(f"{cfg_path}: missing '{key}'")

    def low(names):
        return [n.lower() for n in names]

    mixed = []
    for i, entry in enumerate(cfg.get("mixed", []), start=1):
        default = entry.get("schedule", "split")
        links = tuple(_as_list(entry.get("links"), f"{cfg_path} mixed"))
        if default not in ("split", "joint") or not links:
            raise HarnessError(f"{cfg_path}: [[mixed]] #{i} needs schedule = "
                               "split|joint and a non-empty links list")
        mixed.append(Schedule(f"mixed{i}", default, links))
    fix = Fixture(
        name=path.name, path=path,
        description=str(cfg.get("description", "")),
        features=_as_list(cfg.get("features"), "features"),
        main=cfg["main"],
        extra=_as_list(cfg.get("extra"), "extra"),
        search=_as_list(cfg.get("search"), "search"),
        routine=cfg["routine"].lower(),
        dep=low(_as_list(cfg["dep"], "dep")),
        indep=low(_as_list(cfg["indep"], "indep")),
        compile=_as_list(cfg.get("compile"), "compile")
        or _as_list(cfg.get("extra"), "extra") + [cfg["main"]],
        adjoint_lib=_as_list(cfg.get("adjoint_lib"), "adjoint_lib"),
        state=low(_as_list(cfg.get("state"), "state")),
        init={k.lower(): v for k, v in cfg.get("init", {}).items()},
        mixed=mixed,
        bench={k.lower(): v for k, v in cfg.get("bench", {}).items()},
        driver_use=_as_list(cfg.get("driver_use"), "driver_use"),
        driver_reset=_as_list(cfg.get("driver_reset"), "driver_reset"),
        fflags=_as_list(cfg.get("fflags"), "fflags"),
        defines=_as_list(cfg.get("defines"), "defines"),
    )
    for rel in [fix.main] + fix.extra + fix.compile + fix.adjoint_lib:
        if not fix.file(rel).is_file():
            raise HarnessError(f"{cfg_path}: no file {rel}")
    for rel in fix.search:
        if not fix.file(rel).is_dir():
            raise HarnessError(f"{cfg_path}: no directory {rel}")
    return fix


def fixtures() -> List[Fixture]:
    """Every fixture directory under tests/fortran_fixtures/calls/."""
    if not CALLS_DIR.is_dir():
        return []
    return [load_fixture(p) for p in sorted(CALLS_DIR.iterdir())
            if (p / "fixture.toml").is_file()]


# --------------------------------------------------------------------------
# sources: the routine's signature and module variables
# --------------------------------------------------------------------------

def _all_sources(fix: Fixture) -> List[Path]:
    files = [fix.file(r) for r in [fix.main] + fix.extra + fix.compile]
    for rel in fix.search:
        files += sorted(fix.file(rel).glob("*.[fF]90"))
    seen, out = set(), []
    for f in files:
        if f not in seen:
            seen.add(f)
            out.append(f)
    return out


def module_variable(fix: Fixture, qualified: str, index: int) -> ModVar:
    """Type and rank of ``module::var`` from the fixture's sources."""
    from psyclone.psyir.nodes import Container, FileContainer
    from psyclone.psyir.symbols import (ArrayType, DataSymbol,
                                        UnsupportedFortranType)
    module, _, name = qualified.partition("::")
    for src in _all_sources(fix):
        if not re.search(rf"^\s*module\s+{re.escape(module)}\b",
                         src.read_text(), re.IGNORECASE | re.MULTILINE):
            continue
        tree = harness.read_psyir(src, _includes(fix), fix.defines)
        for cont in tree.walk(Container):
            if isinstance(cont, FileContainer) or \
                    cont.name.lower() != module:
                continue
            try:
                sym = cont.symbol_table.lookup(name)
            except KeyError:
                break
            if not isinstance(sym, DataSymbol):
                break
            dtype = sym.datatype
            if isinstance(dtype, UnsupportedFortranType):
                dtype = dtype.partial_datatype
            rank = len(dtype.shape) if isinstance(dtype, ArrayType) else 0
            intrinsic = dtype.intrinsic.name
            if intrinsic not in ("REAL", "INTEGER", "BOOLEAN"):
                raise HarnessError(f"{fix.name}: module variable {qualified} "
                                   f"has type {intrinsic}")
            return ModVar(module, name, intrinsic, rank, index)
    if module.endswith("_common"):
        # A COMMON member, through the layout module adfort generates.
        found = _common_member(fix, module[:-len("_common")], name)
        if found is not None:
            dtype = found.datatype
            rank = len(dtype.shape) if isinstance(dtype, ArrayType) else 0
            return ModVar(module, name, dtype.intrinsic.name, rank, index)
    raise HarnessError(f"{fix.name}: module variable {qualified} not found "
                       f"in {[str(s.relative_to(fix.path)) for s in _all_sources(fix)]}")


def _common_member(fix: Fixture, block: str, name: str):
    """The DataSymbol of member ``name`` of COMMON /block/ in the sources."""
    from psyclone.psyir.nodes import Routine
    for src in _all_sources(fix):
        text = src.read_text()
        if not re.search(rf"common\s*/\s*{re.escape(block)}\s*/|^\s*include\s*['\"]",
                         text, re.IGNORECASE | re.MULTILINE):
            continue  # (the block may be in an INCLUDE file)
        tree = harness.read_psyir(src, _includes(fix), fix.defines)
        for routine in tree.walk(Routine):
            symbol = routine.symbol_table.lookup(name, otherwise=None)
            if symbol is not None and type(symbol.interface).__name__ == \
                    "CommonBlockInterface":
                return symbol
    return None


@dataclasses.dataclass
class Problem:
    """Everything the driver writer needs, resolved."""

    fix: Fixture
    sig: "harness.Signature"
    modvars: Dict[str, ModVar]
    env: Dict[str, object]
    # The routine's module and the modules it (or its module) uses.
    modules_seen: List[str] = dataclasses.field(default_factory=list)

    def is_module(self, name: str) -> bool:
        return "::" in name


def _modules_seen(path: Path, routine: str, include_dirs=(), defines=()) -> List[str]:
    """The routine's module (if any) and the modules named in USE
    statements of the routine and of its enclosing module."""
    from psyclone.psyir.nodes import Container, FileContainer, Routine
    from psyclone.psyir.symbols import ContainerSymbol
    tree = harness.read_psyir(path, include_dirs, defines)
    for node in tree.walk(Routine):
        if node.name.lower() != routine:
            continue
        names: List[str] = []
        scope = node
        while scope is not None:
            table = getattr(scope, "_symbol_table", None)
            if table is not None:
                for sym in table.symbols:
                    if isinstance(sym, ContainerSymbol) and \
                            sym.name.lower() not in names:
                        names.append(sym.name.lower())
            if isinstance(scope, Container) and \
                    not isinstance(scope, FileContainer):
                names.insert(0, scope.name.lower())
            scope = scope.parent
        return names
    raise HarnessError(f"{path}: no routine {routine!r} (PSyclone may have "
                       "kept it as a code block)")


def _includes(fix: Fixture) -> List[str]:
    return [str(fix.file(rel)) for rel in fix.search]


def resolve(fix: Fixture) -> Problem:
    sig = harness.parse_signature(fix.file(fix.main), fix.routine,
                                  _includes(fix), fix.defines)
    modvars = {}
    for i, q in enumerate(fix.module_names(), start=1):
        modvars[q] = module_variable(fix, q, i)
    for name in fix.dep + fix.indep:
        if "::" in name:
            if not modvars[name].is_real:
                raise HarnessError(f"{fix.name}: active {name} is not real")
        elif not sig.arg(name).is_real:
            raise HarnessError(f"{fix.name}: active argument {name} is not "
                               "real")
    arg_names = {a.name for a in sig.args}
    for name in fix.init:
        if "::" in name:
            if name not in modvars:
                raise HarnessError(f"{fix.name}: init names {name}, which is "
                                   "not in dep/indep/state")
        elif name not in arg_names:
            raise HarnessError(f"{fix.name}: init names {name!r}, not an "
                               f"argument of {sig.routine} "
                               f"({sorted(arg_names)})")
    env: Dict[str, object] = dict(sig.constants)
    for arg in sig.args:
        if arg.intrinsic == "INTEGER" and not arg.is_array:
            if arg.name not in fix.init:
                raise HarnessError(f"{fix.name}: give init {arg.name}=...")
            env[arg.name] = int(fix.init[arg.name])
    for arg in sig.args:
        if arg.is_array:
            if arg.assumed:
                raise HarnessError(f"{fix.name}: {arg.name} is assumed-size/"
                                   "shape; use explicit bounds in fixtures")
            what = f"{fix.name}: bound of {arg.name}"
            arg.bounds = [(harness.eval_int(lo, env, what),
                           harness.eval_int(hi, env, what))
                          for lo, hi in arg.dims]
    return Problem(fix, sig, modvars, env,
                   _modules_seen(fix.file(fix.main), fix.routine, _includes(fix),
                                 fix.defines))


# --------------------------------------------------------------------------
# running adfort and gfortran
# --------------------------------------------------------------------------

def run(cmd: Sequence, cwd: Path, what: str, show: Sequence[Path] = (),
        timeout: int = 300, check: bool = True) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run([str(c) for c in cmd], cwd=str(cwd),
                              capture_output=True, text=True, timeout=timeout,
                              env=_env())
    except FileNotFoundError as err:
        raise HarnessError(f"{what}: cannot run {cmd[0]!r}: {err}") from err
    except subprocess.TimeoutExpired as err:
        raise HarnessError(f"{what}: timed out after {timeout}s: "
                           f"{shlex.join(map(str, cmd))}") from err
    if check and proc.returncode != 0:
        parts = [f"{what} failed (exit {proc.returncode})",
                 f"command: {shlex.join(map(str, cmd))}", f"cwd: {cwd}",
                 "--- stdout ---", proc.stdout.rstrip()[-6000:],
                 "--- stderr ---", proc.stderr.rstrip()[-6000:]]
        for path in show:
            parts += [f"--- {path} ---", harness._numbered(path, 600)]
        raise HarnessError("\n".join(parts))
    return proc


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def adfort_command(fix: Fixture, schedule: Schedule, out: Path,
                   with_adjoint_lib: bool = True) -> List[str]:
    cmd = [sys.executable, "-m", "adfort", "diff", str(fix.file(fix.main))]
    cmd += [str(fix.file(e)) for e in fix.extra]
    cmd += ["--dep", ",".join(fix.dep), "--indep", ",".join(fix.indep),
            "--routine", fix.routine]
    for rel in fix.search:
        cmd += ["-I", str(fix.file(rel))]
    cmd += [f"-D{d}" for d in fix.defines]
    if with_adjoint_lib:
        for rel in fix.adjoint_lib:
            cmd += ["--adjoint-lib", str(fix.file(rel))]
    cmd += schedule.cli()
    cmd += ["-o", str(out)]
    return cmd


# Successful outputs of this process, keyed by the command (without -o),
# the fixture's files and the state of the adfort sources: several tests
# differentiate the same fixture under the same schedule.
# ADFORT_TEST_NO_CACHE=1 turns this off.
_GEN_CACHE: Dict[tuple, str] = {}


def _cache_key(fix: Fixture, schedule: Schedule) -> tuple:
    cmd = tuple(adfort_command(fix, schedule, Path("OUT")))
    files = tuple((str(p), p.read_bytes()) for p in sorted(fix.path.rglob("*"))
                  if p.is_file())
    adfort = tuple(sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size)
                          for p in (REPO_ROOT / "adfort").rglob("*.py")))
    return cmd, files, adfort


def generate(fix: Fixture, schedule: Schedule, out: Path,
             cache: bool = True) -> Path:
    """Run ``python -m adfort diff`` for the fixture, writing ``out``."""
    use_cache = cache and not os.environ.get("ADFORT_TEST_NO_CACHE")
    key = _cache_key(fix, schedule) if use_cache else None
    if key is not None and key in _GEN_CACHE:
        out.write_text(_GEN_CACHE[key])
        return out
    run(adfort_command(fix, schedule, out), out.parent, "adfort diff")
    if not out.is_file():
        raise HarnessError(f"adfort diff exited 0 but wrote no {out}")
    if key is not None:
        _GEN_CACHE[key] = out.read_text()
    return out


def cpp_flags(fix: Fixture) -> List[str]:
    """-D and -I flags compiling the fixture's (preprocessed) sources."""
    return [f"-D{d}" for d in fix.defines] + [f"-I{d}" for d in _includes(fix)]


def compile_and_link(fix: Fixture, generated: Path, driver: Path,
                     exe: Path, fflags: Sequence[str]) -> None:
    fc = harness.gfortran()
    sources = [fix.file(r) for r in fix.compile] + \
        [fix.file(r) for r in fix.adjoint_lib] + [generated, driver]
    run([fc, *fflags, *fix.fflags, *cpp_flags(fix), *sources, "-o", exe], exe.parent,
        "compiling originals + generated + driver", show=[generated, driver])


def compile_strict(fix: Fixture, generated: Path, workdir: Path) -> str:
    """Compile the original sources with their own flags, then the generated
    file alone with -std=f2008 -Wall -Werror=unused-variable (see
    harness.generated_fflags); return the compiler's warnings."""
    fc = harness.gfortran()
    run([fc, "-c", *fix.fflags, *cpp_flags(fix)] + [fix.file(r) for r in fix.compile]
        + [fix.file(r) for r in fix.adjoint_lib], workdir,
        "compiling the original sources")
    proc = run([fc, "-c", *harness.generated_fflags(fix.fflags), generated],
               workdir, "strict compile", show=[generated])
    return proc.stdout + proc.stderr


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------

def _flit(value: float) -> str:
    return f"{float(value):.17e}_adf_dp"


def _seed(fix: Fixture) -> int:
    return zlib.crc32(fix.name.encode()) % 2147483646 + 1


def _range(fix: Fixture, name: str) -> Optional[Tuple[float, float]]:
    spec = fix.init.get(name)
    if spec is None:
        return None
    if isinstance(spec, list) and len(spec) == 2:
        return float(spec[0]), float(spec[1])
    if isinstance(spec, (int, float)) and not isinstance(spec, bool):
        return float(spec), float(spec)
    raise HarnessError(f"{fix.name}: init {name}={spec!r} is not a real "
                       "value or [lo, hi] range")


class DriverWriter:
    """Text of the check program (and of the benchmark drivers)."""

    def __init__(self, prob: Problem):
        self.prob = prob
        self.fix = prob.fix
        self.sig = prob.sig
        self.decls: List[str] = []
        self.body: List[str] = []
        self.index = {a.name: i for i, a in enumerate(self.sig.args, 1)}
        self.active = set(self.fix.dep) | set(self.fix.indep)

    # -- names ---------------------------------------------------------
    def var(self, name: str, role: str = "") -> str:
        """Driver variable of an argument or module variable in a role."""
        if "::" in name:
            base = self.prob.modvars[name].alias
        else:
            base = f"adf_a{self.index[name]}"
        return base + (f"_{role}" if role else "")

    def is_array(self, name: str) -> bool:
        if "::" in name:
            return self.prob.modvars[name].rank > 0
        return self.sig.arg(name).is_array

    def red(self, name: str, expr: str) -> str:
        return f"sum({expr})" if self.is_array(name) else f"({expr})"

    def line(self, text: str = ""):
        self.body.append(text)

    # -- declarations ----------------------------------------------------
    def _decl_arg(self, arg, roles, type_text=None):
        type_text = type_text or arg.type_text
        shape = f"({arg.bounds_text()})" if arg.is_array else ""
        self.decls.append(f"{type_text} :: " + ", ".join(
            f"{self.var(arg.name, r)}{shape}" for r in roles))

    def _decl_mod(self, mv: ModVar, roles, type_text=None):
        type_text = type_text or mv.type_text()
        if mv.rank:
            dims = ",".join(":" for _ in range(mv.rank))
            self.decls.append(f"{type_text}, allocatable :: " + ", ".join(
                f"{mv.alias}_{r}({dims})" for r in roles))
            # Bounds of the module array (MOLD= would need the same type).
            bounds = ", ".join(f"lbound({mv.alias}, {d}):ubound({mv.alias}, "
                               f"{d})" for d in range(1, mv.rank + 1))
            for r in roles:
                self.line(f"allocate({mv.alias}_{r}({bounds}))")
        else:
            self.decls.append(f"{type_text} :: " + ", ".join(
                f"{mv.alias}_{r}" for r in roles))

    def declare(self, name: str, roles, real_dp: bool = False):
        dp = "real(adf_dp)" if real_dp else None
        if "::" in name:
            self._decl_mod(self.prob.modvars[name], roles, dp)
        else:
            self._decl_arg(self.sig.arg(name), roles, dp)

    def fill(self, name: str, target: str, expr_of_u):
        """target = expr(u), u uniform in [0, 1) per element."""
        if self.is_array(name):
            self.line(f"call adf_rng_fill(size({target}))")
            self.line(f"{target} = " + expr_of_u(
                f"reshape(adf_rng_buf, shape({target}))"))
        else:
            self.line(f"{target} = {expr_of_u('adf_urand()')}")

    # -- program structure -----------------------------------------------
    def uses(self, rev_procs: Sequence[str]) -> List[str]:
        sig, fix = self.sig, self.fix
        out = ["use iso_fortran_env, only: adf_int64 => int64"]
        # Every driver name starts with adf_, so the modules the routine
        # sees can be used whole: kind and bound names then resolve.
        for module in self.prob.modules_seen:
            out.append(f"use {module}")
        if sig.module and rev_procs:
            out.append(f"use {sig.module}_ad, only: " + ", ".join(rev_procs))
        for q, mv in self.prob.modvars.items():
            out.append(f"use {mv.module}, only: {mv.alias} => {mv.name}")
            if q in self.active:
                out.append(f"use {mv.module}_ad, only: {mv.alias}_adj => "
                           f"{mv.name}_adj")
        out += fix.driver_use
        return out

    def program(self, name: str, rev_procs: Sequence[str],
                extra_contains: Sequence[str] = ()) -> str:
        sig = self.sig
        lines = [f"program {name}"]
        lines += ["  " + u for u in self.uses(rev_procs)]
        lines += ["  implicit none",
                  "  integer, parameter :: adf_dp = kind(1.0d0)",
                  f"  real(adf_dp), parameter :: adf_h = {_flit(FD_STEP)}"]
        # Named constants local to the routine used in its declarations.
        lines += ["  " + d for d in sig.decl_lines if "=" in d]
        if not sig.module:
            lines.append("  external :: " + ", ".join([sig.routine]
                                                      + list(rev_procs)))
        lines += ["  integer(adf_int64) :: adf_rng_state",
                  "  real(adf_dp), allocatable :: adf_rng_buf(:)"]
        lines += ["  " + d for d in self.decls]
        lines += ["  " + b if b else "" for b in self.body]
        lines += ["contains", *self.reset_proc(), *extra_contains,
                  *harness.RNG_PROCEDURES,
                  f"end program {name}"]
        return "\n".join(_wrap(x) for x in lines) + "\n"

    def reset_proc(self) -> List[str]:
        out = ["  subroutine adf_reset()",
               "    ! every argument and module variable to the base point"]
        out += [f"    {self.var(a.name)} = {self.var(a.name, 'base')}"
                for a in self.sig.args]
        out += [f"    {mv.alias} = {mv.alias}_base"
                for mv in self.prob.modvars.values()]
        out += ["    " + x for x in self.fix.driver_reset]
        out.append("  end subroutine adf_reset")
        return out

    def call(self, proc: str, with_adjoints: bool) -> str:
        actuals = []
        for arg in self.sig.args:
            actuals.append(self.var(arg.name))
            if with_adjoints and arg.name in self.active:
                actuals.append(self.var(arg.name, "adj"))
        return f"call {proc}(" + ", ".join(actuals) + ")"

    def base_point(self):
        """Declare the arguments and module copies, draw the base point."""
        fix = self.fix
        self.line(f"adf_rng_state = {_seed(fix)}_adf_int64")
        for arg in self.sig.args:
            self._decl_arg(arg, ["", "base", "ref"])
        for q, mv in self.prob.modvars.items():
            self._decl_mod(mv, ["base", "ref"])
            # Module variables start from their declared initial value.
            self.line(f"{mv.alias}_base = {mv.alias}")
        for arg in self.sig.args:
            base = self.var(arg.name, "base")
            if arg.is_real:
                lo, hi = _range(fix, arg.name) or (0.5, 1.5)
                self.fill(arg.name, base,
                          lambda u: f"{_flit(lo)} + {_flit(hi - lo)} * {u}")
            else:
                value = fix.init.get(arg.name)
                if value is None:
                    raise HarnessError(f"{fix.name}: give init {arg.name}")
                if isinstance(value, bool):
                    value = ".true." if value else ".false."
                self.line(f"{base} = {value}")
        for q, mv in self.prob.modvars.items():
            rng = _range(fix, q) if mv.is_real else None
            if rng is not None:
                lo, hi = rng
                self.fill(q, f"{mv.alias}_base",
                          lambda u: f"{_flit(lo)} + {_flit(hi - lo)} * {u}")
            elif not mv.is_real and q in fix.init:
                self.line(f"{mv.alias}_base = {fix.init[q]}")
        self.line("call adf_reset()")

    def save(self, role: str, names: Sequence[str]):
        for name in names:
            self.line(f"{self.var(name, role)} = {self.var(name)}"
                      if "::" not in name else
                      f"{self.prob.modvars[name].alias}_{role} = "
                      f"{self.prob.modvars[name].alias}")

    def primal_diff(self, target: str, names: Sequence[str], role="ref"):
        """target = max relative deviation of names from their <role> copy."""
        self.line(f"{target} = 0.0_adf_dp")
        for name in names:
            cur = self.var(name)
            ref = self.var(name, role)
            if "::" in name:
                mv = self.prob.modvars[name]
                intrinsic, arr = mv.intrinsic, mv.rank > 0
            else:
                arg = self.sig.arg(name)
                intrinsic, arr = arg.intrinsic, arg.is_array
            if intrinsic == "REAL":
                err = (f"abs(real({cur},adf_dp) - real({ref},adf_dp)) / "
                       f"max(abs(real({ref},adf_dp)), 1.0e-300_adf_dp)")
                if arr:
                    err = f"maxval({err})"
                self.line(f"{target} = max({target}, {err})")
            elif intrinsic in ("INTEGER", "BOOLEAN"):
                op = ".neqv." if intrinsic == "BOOLEAN" else "/="
                cmp = f"any({cur} {op} {ref})" if arr else f"{cur} {op} {ref}"
                self.line(f"if ({cmp}) {target} = max({target}, 1.0_adf_dp)")


def _wrap(line: str, width: int = 120) -> str:
    """Free-form continuation lines for long generated statements."""
    if len(line) <= width:
        return line
    indent = len(line) - len(line.lstrip())
    out, cur = [], line
    while len(cur) > width:
        cut = cur.rfind(" ", indent + 10, width - 2)
        if cut <= 0:
            cut = width - 2
        out.append(cur[:cut] + " &")
        cur = " " * (indent + 4) + "& " + cur[cut:].lstrip()
    out.append(cur)
    return "\n".join(out)


def arg_names(prob: Problem) -> List[str]:
    return [a.name for a in prob.sig.args]


def write_check_driver(prob: Problem) -> str:
    """The dot-product check program; prints ``@name k value`` lines."""
    fix = prob.fix
    w = DriverWriter(prob)
    w.decls += ["real(adf_dp) :: adf_lhs, adf_rhs, adf_err"]
    w.base_point()
    state_names = arg_names(prob) + list(prob.modvars)
    # Directions, presets and seeds.
    for name in fix.indep:
        w.declare(name, ["dir"], real_dp=True)
        # Directions scale with each element (the step is relative), with
        # a floor from the variable's range for elements near zero.
        lo_hi = _range(fix, name)
        if lo_hi is None and "::" not in name:
            lo_hi = (0.5, 1.5)
        scale = max(abs(lo_hi[0]), abs(lo_hi[1])) if lo_hi else 0.0
        floor = 0.1 * scale if scale > 0 else 1e-3
        base = w.var(name, "base")
        w.fill(name, w.var(name, "dir"),
               lambda u: f"(2.0_adf_dp * {u} - 1.0_adf_dp) * "
                         f"max(abs(real({base}, adf_dp)), {_flit(floor)})")
        if name not in fix.dep:
            w.declare(name, ["pre"])
            w.fill(name, w.var(name, "pre"),
                   lambda u: f"0.25_adf_dp + {u}")
    for name in fix.dep:
        w.declare(name, ["seed"])
        w.declare(name, ["yp", "ym"], real_dp=True)
        w.fill(name, w.var(name, "seed"), lambda u: f"0.5_adf_dp + {u}")
    for name in sorted(w.active):
        if "::" not in name:
            w.declare(name, ["adj"])
    # Reference primal run.
    w.line("! reference: the original routine from the base point")
    w.line("call adf_reset()")
    w.line(w.call(fix.routine, False))
    w.save("ref", state_names)
    # Adjoint run, twice: what a first reversal leaves behind (in module
    # variables' adjoints, tapes…) must not change the second.
    for run in ("a first reversal, results discarded", "the checked reversal"):
        w.line(f"! adjoint ({run}): seeds in, presets on the independents' adjoints")
        w.line("call adf_reset()")
        for name in sorted(w.active, key=lambda n: (fix.dep + fix.indep).index(n)):
            w.line(f"{w.var(name, 'adj')} = "
                   + (w.var(name, "seed") if name in fix.dep
                      else w.var(name, "pre")))
        w.line(w.call(f"{fix.routine}_rev", True))
    w.primal_diff("adf_err", arg_names(prob))
    w.line("print '(a,1x,es27.17e3)', '@primal_err', adf_err")
    for k, name in enumerate(prob.modvars, start=1):
        w.primal_diff("adf_err", [name])
        w.line(f"print '(a,1x,i0,1x,es27.17e3)', '@module_err', {k}, adf_err")
    for k, name in enumerate(fix.indep, start=1):
        adj = w.var(name, "adj")
        incr = adj if name in fix.dep else f"({adj} - {w.var(name, 'pre')})"
        w.line("adf_lhs = " + w.red(name, f"{w.var(name, 'dir')} * "
                                          f"real({incr}, adf_dp)"))
        w.line(f"print '(a,1x,i0,1x,es27.17e3)', '@lhs', {k}, adf_lhs")
    # Fourth-order central differences, one independent at a time:
    # (8 (y(h) - y(-h)) - (y(2h) - y(-2h))) / 12h.
    for name in fix.dep:
        w.declare(name, ["yp2", "ym2"], real_dp=True)
    for k, name in enumerate(fix.indep, start=1):
        w.line(f"! central differences along the direction of {name}")
        for step, role in (("+ adf_h", "yp"), ("- adf_h", "ym"),
                           ("+ 2.0_adf_dp * adf_h", "yp2"),
                           ("- 2.0_adf_dp * adf_h", "ym2")):
            w.line("call adf_reset()")
            w.line(f"{w.var(name)} = {w.var(name, 'base')} {step} * "
                   f"{w.var(name, 'dir')}")
            w.line(w.call(fix.routine, False))
            for dname in fix.dep:
                w.line(f"{w.var(dname, role)} = real({w.var(dname)}, adf_dp)")
        terms = [w.red(d, f"real({w.var(d, 'seed')}, adf_dp) * "
                          f"(8.0_adf_dp * ({w.var(d, 'yp')} - {w.var(d, 'ym')})"
                          f" - ({w.var(d, 'yp2')} - {w.var(d, 'ym2')}))")
                 for d in fix.dep]
        w.line("adf_rhs = (" + " + ".join(terms) + ") / (12.0_adf_dp * adf_h)")
        w.line(f"print '(a,1x,i0,1x,es27.17e3)', '@rhs', {k}, adf_rhs")
    return w.program("adf_calls_check", [f"{fix.routine}_rev"])


# --------------------------------------------------------------------------
# the check
# --------------------------------------------------------------------------

@dataclasses.dataclass
class Result:
    fixture: str
    schedule: Schedule
    lhs: Dict[int, float]
    rhs: Dict[int, float]
    primal_err: float
    module_errs: Dict[str, float]   # module::var -> max relative deviation
    generated: Path
    driver: Path
    indep: List[str]
    stdout: str

    def rel_err(self, k: int) -> float:
        a, b = self.lhs[k], self.rhs[k]
        return abs(a - b) / max(abs(a), abs(b), 1e-300)

    @property
    def max_rel_err(self) -> float:
        return max(self.rel_err(k) for k in self.rhs)

    @property
    def module_err(self) -> float:
        return max(self.module_errs.values(), default=0.0)

    def describe(self) -> str:
        rows = [f"{self.fixture} [{self.schedule.name}: "
                f"{' '.join(self.schedule.cli())}]"]
        for k, name in enumerate(self.indep, start=1):
            rows.append(f"  {name:28s} lhs {self.lhs[k]: .15e}  rhs "
                        f"{self.rhs[k]: .15e}  rel err {self.rel_err(k):.2e}")
        rows.append(f"  arguments after r_rev vs r: max rel diff "
                    f"{self.primal_err:.2e}")
        for name, err in self.module_errs.items():
            rows.append(f"  {name} after r_rev vs r: max rel diff {err:.2e}")
        rows.append(f"  generated: {self.generated}\n  driver: {self.driver}")
        return "\n".join(rows)


def check(fix: Fixture, schedule: Schedule, workdir: Path,
          generated: Optional[Path] = None) -> Result:
    """Generate (unless ``generated`` is given), build and run the check."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    prob = resolve(fix)
    if generated is None:
        generated = generate(fix, schedule, workdir / f"{fix.name}_ad.f90")
    driver = workdir / "adf_calls_check.f90"
    driver.write_text(write_check_driver(prob))
    exe = workdir / "adf_calls_check"
    compile_and_link(fix, generated, driver, exe, RUN_FFLAGS)
    proc = run([exe], workdir, "running the check driver",
               show=[generated, driver], timeout=300)
    lhs, rhs, mods, vals = {}, {}, {}, {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] in ("@lhs", "@rhs", "@module_err"):
            {"@lhs": lhs, "@rhs": rhs, "@module_err": mods}[parts[0]][
                int(parts[1])] = float(parts[2])
        elif len(parts) == 2 and parts[0].startswith("@"):
            vals[parts[0][1:]] = float(parts[1])
    n = len(fix.indep)
    if sorted(lhs) != list(range(1, n + 1)) or sorted(rhs) != sorted(lhs) \
            or len(mods) != len(prob.modvars) or "primal_err" not in vals:
        raise HarnessError(f"check driver printed incomplete results:\n"
                           f"{proc.stdout}")
    module_errs = {name: mods[k] for k, name in enumerate(prob.modvars, 1)}
    return Result(fix.name, schedule, lhs, rhs, vals["primal_err"],
                  module_errs, generated, driver, fix.indep, proc.stdout)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """python tests/calls_harness.py [NAME...] [--schedule S] [--workdir D]:
    run the checks by hand, keeping every file."""
    import argparse
    import tempfile
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--schedule", action="append",
                        help="split, joint, mixed1, ... (default: all)")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--warnings", action="store_true",
                        help="only compile the generated code strictly and "
                        "count its warnings")
    args = parser.parse_args(argv)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="adfort_calls_"))
    bad = 0
    for fix in fixtures():
        if args.names and fix.name not in args.names:
            continue
        for sched in fix.schedules:
            if args.schedule and sched.name not in args.schedule:
                continue
            work = root / fix.name / sched.name
            if args.warnings:
                work.mkdir(parents=True, exist_ok=True)
                try:
                    out = compile_strict(fix, generate(
                        fix, sched, work / f"{fix.name}_ad.f90"), work)
                    print(f"{fix.name} [{sched.name}]: "
                          f"{harness.format_warnings(harness.count_warnings(out))}")
                except HarnessError as err:
                    print(f"{fix.name} [{sched.name}]: ERROR\n{err}")
                    bad += 1
                continue
            try:
                res = check(fix, sched, work)
                print(res.describe())
                bad += (res.max_rel_err >= TOL or res.primal_err > 1e-10
                        or res.module_err > 1e-10)
            except HarnessError as err:
                print(f"{fix.name} [{sched.name}]: ERROR\n{err}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
