"""Generate the motions, write the check program, compile, run.

:func:`run_check` is what ``adfort check`` runs; it returns the
:class:`adfort.check.report.Outcome` of the tests (or raises
:class:`AdfortError` for bad input).
"""

import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Sequence

from adfort.errors import AdfortError

RUN_FFLAGS = ["-O0", "-g", "-fcheck=all", "-fbacktrace"]
PROMOTE_FFLAGS = ["-fdefault-real-8", "-fdefault-double-8"]
FIXED_SUFFIXES = (".f", ".for", ".ftn", ".f77", ".fpp")
_MODULE = re.compile(r"^\s*module\s+(?!procedure\b)(\w+)\s*$", re.I | re.M)
_USE = re.compile(r"^\s*use\s*(?:,\s*\w+\s*::|::)?\s*(\w+)", re.I | re.M)


@dataclasses.dataclass
class CheckRequest:
    """Everything ``adfort check`` was asked.

    :ivar reading: the keyword arguments of
        :func:`adfort.api.differentiate_file` about the sources.
    :ivar adjoint: a file holding ``r_rev`` to check instead of generating it.
    :ivar tangent: a file holding ``r_fwd`` to check instead of generating it.
    """

    path: str
    dependents: List[str]
    independents: List[str]
    routine: Optional[str] = None
    schedule: object = None
    options: dict = dataclasses.field(default_factory=dict)
    reading: dict = dataclasses.field(default_factory=dict)
    cache: Optional[str] = None
    sizes: dict = dataclasses.field(default_factory=dict)
    ranges: dict = dataclasses.field(default_factory=dict)
    fflags: Sequence[str] = ()
    compile_files: Sequence[str] = ()
    adjoint: Optional[str] = None
    tangent: Optional[str] = None
    keep: Optional[str] = None
    seed: int = 20261126
    timeout: float = 600.0
    plot: Optional[str] = None
    progress: object = None


def _progress(request, text):
    if request.progress is not None:
        request.progress(text)


def run_check(request):
    """Run every test of `request`; returns an :class:`Outcome`.

    :raises AdfortError: for bad input (sources, options, an original that
        does not compile).
    """
    workdir = Path(request.keep or tempfile.mkdtemp(prefix="adfort_check_"))
    if request.keep:
        if workdir.exists() and not workdir.is_dir():
            raise AdfortError(f"--keep {request.keep}: not a directory")
        workdir.mkdir(parents=True, exist_ok=True)
    try:
        outcome = _run(request, workdir.resolve())
        if request.keep:
            outcome.notes.append(f"the check program and its files are in {workdir}")
        return outcome
    finally:
        if not request.keep:
            shutil.rmtree(workdir, ignore_errors=True)


def _run(request, workdir):
    from adfort.check.report import Outcome, judge
    from adfort.check import tangent as tangent_mode
    path = request.path
    if not os.path.isfile(path):
        raise AdfortError(f"no such file: '{path}'")
    reading = request.reading
    for extra in list(reading.get("extra_files", ())) + list(
            reading.get("adjoint_libraries", ())) + list(request.compile_files):
        if not os.path.isfile(extra):
            raise AdfortError(f"no such file: '{extra}'")
    for given in (request.adjoint, request.tangent):
        if given is not None and not os.path.isfile(given):
            raise AdfortError(f"no such file: '{given}'")
    notes = []
    _progress(request, "reading the sources…")
    tree, routine, module_trees = _read(request)
    name = routine.name
    if request.adjoint:
        adjoint = Path(request.adjoint).read_text()
        notes.append(f"adjoint from {request.adjoint} (not generated)")
    else:
        _progress(request, "generating the adjoint…")
        adjoint = _generate(request, name)
    if request.tangent:
        tangent = Path(request.tangent).read_text()
        notes.append(f"tangent from {request.tangent} (not generated)")
    else:
        tangent, why = tangent_mode.generate(request, name)
        if tangent is None:
            notes.append(why)
    from adfort.check.problem import describe
    layout = _layout_modules(adjoint)
    problem = describe(path, routine, module_trees + layout, request.dependents,
                       request.independents, request.sizes, request.ranges)
    notes += problem.notes
    rev_module = _owner(adjoint, f"{name}_rev", "the adjoint")
    fwd_module = _owner(tangent, f"{name}_fwd", "the tangent") if tangent else False
    from adfort.check.driver import Driver
    holders = {v.key: declaring_module(tangent, f"{v.local}_d")
               for v in problem.globals if v.active} if tangent else {}
    driver = Driver(problem, rev_module, fwd_module if tangent else False,
                    request.seed, holders).text()
    (workdir / "adjoint.f90").write_text(adjoint)
    if tangent:
        (workdir / "tangent.f90").write_text(tangent)
    (workdir / "check_driver.f90").write_text(driver)
    promote = _promote(problem)
    if promote:
        notes.append("default REAL variables are active: everything is compiled with "
                     + " ".join(PROMOTE_FFLAGS) + " (finite differences need double "
                     "precision)")
    _progress(request, "compiling…")
    times = {}
    start = time.perf_counter()
    failure = _compile(request, workdir, bool(tangent), promote)
    times["compile"] = time.perf_counter() - start
    if failure is not None:
        return Outcome(problem, None, notes, failure=failure, workdir=str(workdir),
                       times=times)
    _progress(request, "running…")
    start = time.perf_counter()
    output, failure = _execute(request, workdir)
    times["run"] = time.perf_counter() - start
    if failure is not None:
        return Outcome(problem, None, notes, failure=failure, workdir=str(workdir),
                       times=times)
    outcome = judge(problem, output, notes, bool(tangent), str(workdir))
    outcome.times = times
    return outcome


def _read(request):
    """(tree, routine, [(tree, path)] of every source) with adfort's front end."""
    from adfort.api import choose_routine
    from adfort.frontend import read_file, routines
    from adfort.preprocess import Preprocessing
    from adfort.reading import ReadPlan
    reading = request.reading
    preprocessing = Preprocessing(reading.get("defines", ()), reading.get("undefines", ()),
                                  list(reading.get("search_path", ())),
                                  reading.get("cpp", False), reading.get("form"))
    plan = ReadPlan(preprocessing, reading.get("search_path", ()))
    extra = list(reading.get("extra_files", ()))
    plan.specialise([request.path] + extra)
    tree = read_file(request.path, preprocessing, plan)
    name = request.routine or choose_routine(
        tree, list(request.dependents) + list(request.independents), request.path)
    found = [r for r in routines(tree) if r.name.lower() == name.lower()]
    if not found:
        raise AdfortError(f"no routine '{name}' in this file (routines: "
                          f"{', '.join(r.name for r in routines(tree))})", request.path)
    trees = [(tree, request.path)]
    for extra_path in extra:
        trees.append((read_file(extra_path, preprocessing, plan), extra_path))
    # the modules of the -I directories the sources use: their variables
    # are reset between calls too
    given = [os.path.abspath(p) for p in [request.path] + extra]
    graph = _search_modules(_module_graph(given), reading.get("search_path", ()))
    for module_path in graph:
        if module_path not in given:
            trees.append((read_file(module_path, preprocessing, plan), module_path))
    return tree, found[0], trees


def _generate(request, name):
    from adfort.api import differentiate_file
    text, _, _ = differentiate_file(request.path, request.dependents, request.independents,
                                    request.schedule, name, request.options,
                                    cache=request.cache, **request.reading)
    return text


def _layout_modules(text):
    """PSyIR of the COMMON blocks' layout modules of a generated file."""
    from psyclone.psyir.frontend.fortran import FortranReader
    trees = []
    for match in re.finditer(r"^module\s+(\w+_common)\s*$.*?^end module\s+\1\s*$", text,
                             re.I | re.M | re.S):
        try:
            trees.append((FortranReader().psyir_from_source(match.group(0)), "adjoint"))
        except Exception:   # noqa: BLE001 (a module adfort check does not need)
            continue
    return trees


def _owner(text, procedure, what):
    """The module of `text` that holds `procedure`, or None when it is an
    external procedure.

    :raises AdfortError: when `text` has no such procedure."""
    module = None
    for line in text.splitlines():
        stripped = line.strip().lower()
        opened = _MODULE.match(line)
        if opened:
            module = opened.group(1)
        elif re.match(r"end\s*module\b", stripped):
            module = None
        elif re.match(rf"(?:\w+\s+)*subroutine\s+{re.escape(procedure.lower())}\s*\(",
                      stripped):
            return module
    raise AdfortError(f"{what} has no subroutine {procedure}")


def declaring_module(text, name):
    """The module of `text` whose specification part declares `name`, or
    None."""
    module, in_spec = None, False
    for line in text.splitlines():
        opened = _MODULE.match(line)
        stripped = line.strip().lower()
        if opened:
            module, in_spec = opened.group(1), True
        elif re.match(r"(end\s*module|contains)\b", stripped):
            in_spec = False
        elif in_spec and "::" in stripped and re.search(
                rf"(?<![\w%]){re.escape(name.lower())}\b", stripped.split("::", 1)[1]):
            return module
    return None


def _promote(problem):
    """Whether active variables are default (single precision) REAL."""
    return any(v.is_real and v.active and v.type_text == "real" for v in problem.variables)


def _module_graph(paths):
    """{path: (modules defined, modules used)}."""
    graph = {}
    for path in paths:
        try:
            text = Path(path).read_text(errors="replace")
        except OSError as err:
            raise AdfortError(f"cannot read '{path}': {err.strerror}") from None
        text = re.sub(r"!.*", "", text)
        defined = {m.lower() for m in _MODULE.findall(text)}
        used = {u.lower() for u in _USE.findall(text)} - defined
        graph[path] = (defined, used)
    return graph


def _search_modules(graph, search_path):
    """Add the files of the -I directories that define modules the sources
    use (and what those use)."""
    candidates = {}
    for directory in search_path:
        for entry in sorted(Path(directory).glob("*")):
            if entry.suffix.lower() in (".f90", ".f", ".f95", ".f03", ".f08", ".for"):
                candidates[os.path.abspath(entry)] = None
    cand_graph = _module_graph(list(candidates)) if candidates else {}
    while True:
        defined = set().union(*(d for d, _ in graph.values())) if graph else set()
        wanted = set().union(*(u for _, u in graph.values())) - defined if graph else set()
        added = False
        for path, (mods, used) in cand_graph.items():
            if path not in graph and mods & wanted:
                graph[path] = (mods, used)
                added = True
        if not added:
            return graph


def _ordered(graph, first=()):
    """Paths with every module's definer before its users."""
    definer = {m: p for p, (mods, _) in graph.items() for m in mods}
    order, seen = [], set()

    def visit(path, stack=()):
        if path in seen or path in stack:
            return
        for used in sorted(graph[path][1]):
            if used in definer and definer[used] != path:
                visit(definer[used], stack + (path,))
        seen.add(path)
        order.append(path)
    for path in list(first) + list(graph):
        visit(path)
    return order


def _fc():
    found = shutil.which(os.environ.get("FC", "gfortran")) or shutil.which("gfortran")
    if not found:
        raise AdfortError("gfortran not found on PATH: adfort check compiles with it "
                          "(install it, e.g. apt-get install gfortran)")
    return found


def _source_flags(request):
    reading = request.reading
    flags = [f"-D{d}" for d in reading.get("defines", ())]
    flags += [f"-U{u}" for u in reading.get("undefines", ())]
    flags += [f"-I{os.path.abspath(d)}" for d in reading.get("search_path", ())]
    if reading.get("cpp"):
        flags.append("-cpp")
    if reading.get("form") == "free":
        flags.append("-ffree-form")
    elif reading.get("form") == "fixed":
        flags.append("-ffixed-form")
    return flags


def _run_tool(cmd, cwd, timeout):
    try:
        proc = subprocess.run([str(c) for c in cmd], cwd=str(cwd), capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout:.0f} s"
    return proc.returncode, proc.stdout, proc.stderr


def _first_error(stderr, limit=12):
    lines = [line for line in stderr.splitlines() if line.strip()]
    for k, line in enumerate(lines):
        if "Error" in line or "error" in line:
            start = max(0, k - 4)
            return "\n".join(lines[start:start + limit])
    return "\n".join(lines[-limit:])


def _compile(request, workdir, with_tangent, promote):
    """Compile everything in `workdir`; None, or the failure (check,
    message) when generated code or the program does not compile.

    :raises AdfortError: when the original sources do not compile."""
    fc = _fc()
    reading = request.reading
    base = RUN_FFLAGS + (PROMOTE_FFLAGS if promote else []) + list(request.fflags)
    originals = [os.path.abspath(p) for p in list(reading.get("extra_files", ()))
                 + [request.path]]
    sources = [os.path.abspath(p) for p in request.compile_files
               if not p.endswith((".o", ".a", ".so"))]
    linked = [os.path.abspath(p) for p in request.compile_files
              if p.endswith((".o", ".a", ".so"))]
    graph = _search_modules(_module_graph(sources + originals),
                            reading.get("search_path", ()))
    order = _ordered(graph, sources)
    mod_flags = ["-J", str(workdir), f"-I{workdir}"]
    objects = []
    for path in order:
        obj = workdir / f"orig{len(objects)}_{Path(path).stem}.o"
        code, _, err = _run_tool([fc, "-c", *base, *_source_flags(request), *mod_flags,
                                  path, "-o", obj], workdir, request.timeout)
        if code != 0:
            raise AdfortError("the original sources do not compile with gfortran:\n"
                              + _first_error(err))
        objects.append(obj)
    libs = [os.path.abspath(p) for p in reading.get("adjoint_libraries", ())]
    for path in libs:
        obj = workdir / f"lib{len(objects)}_{Path(path).stem}.o"
        code, _, err = _run_tool([fc, "-c", *base, *_source_flags(request), *mod_flags,
                                  path, "-o", obj], workdir, request.timeout)
        if code != 0:
            raise AdfortError(f"the adjoint library {path} does not compile with "
                              "gfortran:\n" + _first_error(err))
        objects.append(obj)
    generated = [("adjoint", "adjoint.f90")] + (
        [("tangent", "tangent.f90")] if with_tangent else [])
    for what, name in generated:
        obj = workdir / name.replace(".f90", ".o")
        code, _, err = _run_tool([fc, "-c", *base, *mod_flags, name, "-o", obj], workdir,
                                 request.timeout)
        if code != 0:
            return ("compile", f"the {what} does not compile with gfortran:\n"
                    + _first_error(err))
        objects.append(obj)
    code, _, err = _run_tool([fc, *base, *mod_flags, "check_driver.f90", *objects,
                              *linked, "-o", "check_driver"], workdir, request.timeout)
    if code != 0:
        return ("compile", "the check program does not compile or link against the "
                f"{'motions' if with_tangent else 'adjoint'} (calling convention?):\n"
                + _first_error(err))
    return None


def _execute(request, workdir):
    code, out, err = _run_tool(["./check_driver"], workdir, request.timeout)
    if code is None:
        return None, ("run", f"the check program {err}")
    # gfortran's message, without the backtrace of the temporary program
    tail = "\n".join(err.strip().split("Error termination")[0].strip().splitlines()[-15:])
    if code != 0 and "@ran_r" not in out:
        raise AdfortError(f"the original routine stops at the random base point "
                          f"(exit {code}); choose inputs with --size/--range:\n{tail}")
    if code != 0 or "@end" not in out:
        return None, ("run", f"the check program stopped (exit {code}):\n{tail}")
    return out, None


def progress_printer(stream=None):
    """A progress callback writing ``adfort check: …`` lines on stderr."""
    stream = stream or sys.stderr

    def show(text):
        from adfort.check.report import plain
        print(plain(f"adfort check: {text}", getattr(stream, "encoding", None)),
              file=stream, flush=True)
    return show
