"""The ``adfort`` command line."""

import gc
import os
import sys
import tempfile
import time
import traceback

import click

from adfort import __version__, timing
from adfort.deep import deep
from adfort.api import differentiate_file, differentiate_heads
from adfort.checkpoint_loops import parse_cli
from adfort.errors import AdfortError
from adfort.reading import recording
from adfort.schedules import SCHEDULES, LinkReversalSchedule


def _names(values):
    """Flatten repeated and comma-separated option values."""
    names = []
    for value in values:
        names.extend(n.strip() for n in value.split(",") if n.strip())
    return names


def _print_timings(startup, phases):
    """The ``-v`` report on standard error: one line per phase, then the
    total (start-up is CPU time, the phases wall time)."""
    rows = [("start-up", startup)] + [(name, phases.get(name, 0.0)) for name in timing.PHASES]
    for name, seconds in rows:
        click.echo(f"adfort: {name:<9} {seconds:7.3f} s", err=True)
    click.echo(f"adfort: {'total':<9} {sum(s for _, s in rows):7.3f} s", err=True)


def _collect_less():
    """Collect garbage less often in this one-shot process: the objects of
    the imports are kept out of every collection (``gc.freeze``) and a
    collection waits for 1,000,000 new objects (not 700).  PSyIR copies make
    hundreds of thousands of nodes, which the collector kept walking: at
    100,000 a collection still cost 40 ms on a large call tree (a tenth of
    its run time, for 30 MB less at the peak of 150); a run making more
    than a million objects still collects.  (Once per process: the CLI may
    run several times in one, as in tests.)"""
    global _FROZEN
    if not _FROZEN:
        _FROZEN = True
        gc.freeze()
        gc.set_threshold(1_000_000, 50, 1000)


_FROZEN = False


def _check_output(path):
    """Fail before any work when `path` cannot be written.

    :raises AdfortError: if `path` is a directory or its directory does not
        exist or is not writable.
    """
    directory = os.path.dirname(os.path.realpath(path))
    if os.path.isdir(path):
        raise AdfortError(f"the output '{path}' is a directory: give a file name "
                          f"with -o (e.g. -o {os.path.join(path, 'model_ad.f90')})")
    if not os.path.isdir(directory):
        raise AdfortError(f"cannot write the output '{path}': the directory "
                          f"'{directory}' does not exist; create it first")
    if not os.access(directory, os.W_OK | os.X_OK) or (
            os.path.exists(path) and not os.access(path, os.W_OK)):
        raise AdfortError(f"cannot write the output '{path}': permission denied")


def _refuse_input(output, inputs):
    """Fail when `output` is one of the files `inputs` (real paths, or
    paths) adfort reads: the adjoint would replace a source.

    :raises AdfortError: naming the input.
    """
    target = os.path.realpath(output)
    exists = os.path.exists(output)
    for path in sorted(inputs):
        if os.path.realpath(path) == target or (
                exists and os.path.exists(path) and os.path.samefile(path, output)):
            raise AdfortError(f"the output file '{output}' is an input file ('{path}' is "
                              "read to differentiate): choose another with -o")


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_atomically(path, text):
    """Write `text` to `path` only once it is complete (no partial files).

    The text goes to a temporary file beside the file `path` names (a
    symbolic link is followed: the link is kept, its target replaced),
    which then replaces it; it takes the mode of the file it replaces, or
    a new file's (0o666 less the umask), as a plain write would.

    :raises AdfortError: if the file system refuses (read-only, full…).
    """
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    tmp = None
    try:
        try:
            mode = os.stat(target).st_mode & 0o777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        handle, tmp = tempfile.mkstemp(dir=directory, prefix=".adfort-", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8", errors="surrogateescape") as out:
            out.write(text)
            os.fchmod(out.fileno(), mode)
        os.replace(tmp, target)
    except OSError as err:
        raise AdfortError(f"cannot write the output '{path}': "
                          f"{err.strerror or err}") from err
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _head(value, dependents, independents):
    """(routine, dependents, independents) of a --routine value: ``NAME``
    (the --dep/--indep variables) or ``NAME:DEPS/INDEPS``, each a comma list
    (a COMMON member ``/block/x`` keeps its slashes)."""
    name, colon, variables = value.partition(":")
    if not colon:
        return name.strip(), dependents, independents
    split = _separator(variables)
    if not name.strip() or split is None:
        raise AdfortError(f"--routine '{value}': write NAME or NAME:DEPS/INDEPS "
                          "(e.g. step:y/x,u)")
    return (name.strip(), _names([variables[:split]]), _names([variables[split + 1:]]))


def _separator(variables):
    """Position of the '/' between the dependents and the independents of
    ``DEPS/INDEPS``, or None: a name starting with '/' (a COMMON member
    ``/block/x``) keeps its two slashes."""
    found, position, start = None, 0, True
    while position < len(variables):
        char = variables[position]
        if char == "/" and start:
            closing = variables.find("/", position + 1)
            if closing < 0:
                return None
            position, start = closing + 1, False
            continue
        if char == "/":
            if found is not None:
                return None
            found, start = position, True
        elif char == ",":
            start = True
        elif not char.isspace():
            start = False
        position += 1
    return found


def _schedule(default, links):
    """The reversal schedule from --schedule and --link options."""
    if not links:
        return SCHEDULES[default]()
    strong, weak = [], []
    for link in links:
        pair, _, choice = link.partition("=")
        caller, _, callee = pair.partition(":")
        if not caller.strip() or not callee.strip() or choice.strip() not in SCHEDULES:
            raise AdfortError(f"--link '{link}': write CALLER:CALLEE=split or "
                              "CALLER:CALLEE=joint")
        (strong if choice.strip() == "split" else weak).append(
            (caller.strip(), callee.strip()))
    return LinkReversalSchedule(strong, weak, SCHEDULES[default]())


# The options of `adfort diff` that `adfort check` takes too: the sources,
# the variables, the schedule and the generation options.
_DIFF_OPTIONS = [
    click.argument("file", type=click.Path(dir_okay=False)),
    click.argument("extra_files", nargs=-1, type=click.Path(dir_okay=False)),
    click.option("--dep", "deps", multiple=True, metavar="NAME[,NAME…]",
                  help="Dependent variable(s): the outputs to differentiate. Repeatable."),
    click.option("--indep", "indeps", multiple=True, metavar="NAME[,NAME…]",
                  help="Independent variable(s): the inputs to differentiate with "
                       "respect to. Repeatable."),
    click.option("--routine", "routines", multiple=True, metavar="NAME[:DEPS/INDEPS]",
                  help="Routine to differentiate (default: the only routine whose arguments "
                       "include all the variables). Repeat it to write the adjoints of several "
                       "routines of FILE into one output, each with its own variables: "
                       "--routine step:y/x,u --routine cost:j/x."),
    click.option("--schedule", type=click.Choice(sorted(SCHEDULES)), default="split",
                  show_default=True, help="Reversal schedule for called routines."),
    click.option("--link", "links", multiple=True, metavar="CALLER:CALLEE=split|joint",
                  help="Reversal of one caller→callee link, overriding --schedule. Repeatable."),
    click.option("--checkpoint", "checkpoints", multiple=True,
                  metavar="ROUTINE:LOOP=binomial(snapshots=S)|every(k)",
                  help="Checkpoint a time loop, as a '!$adfort checkpoint' directive before "
                       "it would: LOOP is the loop's position among ROUTINE's DO loops (1 = "
                       "the first) or its DO variable.  binomial(snapshots=S): at most S "
                       "snapshots of the state the loop body overwrites, steps recomputed "
                       "following the optimal binomial schedule; every(k): a snapshot every "
                       "k steps. Repeatable."),
    click.option("--adjoint-lib", "adjoint_libs", multiple=True, metavar="FILE",
                  type=click.Path(dir_okay=False),
                  help="Fortran file with hand-written adjoints <name>_rev (calling "
                       "convention of adfort) of routines without source. Repeatable."),
    click.option("--passive", "passive", multiple=True, metavar="NAME[,NAME…]",
                  help="Routine through which no derivative flows: called as it is, never "
                       "differentiated (as a '!$adfort passive' directive). Repeatable."),
    click.option("-I", "search_path", multiple=True, metavar="DIR",
                  type=click.Path(file_okay=False),
                  help="Directory where modules named in USE statements, #include and "
                       "INCLUDE files are looked for. Repeatable."),
    click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]",
                  help="Define a macro for the C preprocessor (run on .F, .F90, .FPP… "
                       "sources, as compilers do). Repeatable."),
    click.option("-U", "undefines", multiple=True, metavar="NAME",
                  help="Undefine a macro for the C preprocessor. Repeatable."),
    click.option("--cpp", is_flag=True,
                  help="Run the C preprocessor on every source, whatever its suffix."),
    click.option("--free-form", is_flag=True,
                  help="Read every source as free form, whatever its suffix (as gfortran's "
                       "-ffree-form: WRF's and MPAS's .F files)."),
    click.option("--fixed-form", is_flag=True,
                  help="Read every source as fixed form, whatever its suffix (as gfortran's "
                       "-ffixed-form)."),
    click.option("--cache", "cache", metavar="DIR", type=click.Path(file_okay=False),
                  help="Keep the parse of every source read in DIR (created if needed) and "
                       "reuse it in later runs while the source is unchanged: a rebuild "
                       "parses again only the files that changed.  Default: no cache."),
    click.option("--jacobian", is_flag=True, help="Also generate r_jacobian."),
    click.option("--verbose", is_flag=True,
                  help="Comment each adjoint block with the statement it reverses."),
    click.option("-v", "--timings", is_flag=True,
                  help="Print the time of each phase (start-up, read, analyse, transform, "
                       "write) on standard error."),
    click.option("--no-simplify", is_flag=True, help="Do not simplify generated expressions."),
    click.option("--simplify-n-times", type=click.IntRange(min=0), default=5,
                  show_default=True, help="Passes of simplification."),
    click.option("--no-inline-operation-adjoints", is_flag=True,
                  help="Keep every op_adj temporary instead of substituting single-use ones."),
    click.option("--no-pool-work-arrays", is_flag=True,
                  help="Leave the automatic arrays of generated routines as they are (gfortran "
                       "allocates each on the heap at every call) instead of passing them "
                       "sections of one buffer."),
    click.option("--no-inline", is_flag=True,
                  help="Keep calls of short functions and subroutines as calls (each gets its "
                       "motions) instead of putting their statements in the caller."),
    click.option("--no-iteration-reversal", is_flag=True,
                  help="Reverse a last loop of independent iterations as a whole (record "
                       "every iteration, then return) instead of block by block."),
    click.option("--no-split-tapeless", is_flag=True,
                  help="Reverse joint also the calls of routines whose recording tapes "
                       "nothing, where the schedule says joint (by default they are "
                       "reversed split: no tape to save, one forward run less)."),
]


def _fail(err):
    """Report `err` and exit: 1 for input adfort cannot handle (an
    :class:`AdfortError`, naming file:line), 2 for a bug of adfort's."""
    if isinstance(err, AdfortError):
        click.echo(f"adfort: error: {err}", err=True)
        sys.exit(1)
    if os.environ.get("ADFORT_DEBUG"):
        traceback.print_exception(err)
    click.echo(f"adfort: internal error: {type(err).__name__}: {err}\n"
               "This is a bug in adfort; please report it with the input file "
               "(set ADFORT_DEBUG=1 for details).", err=True)
    sys.exit(2)


def _generation_options(jacobian, verbose, no_simplify, simplify_n_times,
                        no_inline_operation_adjoints, no_pool_work_arrays=False,
                        no_inline=False, no_iteration_reversal=False,
                        no_split_tapeless=False):
    """The options of the generated code (see :mod:`adfort.context`)."""
    return {
        "jacobian": jacobian,
        "verbose": verbose,
        "simplify": not no_simplify,
        "simplify_n_times": simplify_n_times,
        "inline_operation_adjoints": not no_inline_operation_adjoints,
        "pool_work_arrays": not no_pool_work_arrays,
        "inline": not no_inline,
        "iteration_reversal": not no_iteration_reversal,
        "split_tapeless": not no_split_tapeless,
    }


def _reading(search_path, extra_files, adjoint_libs, passive, defines, undefines, cpp,
             free_form, fixed_form, checkpoints):
    """The keyword arguments of :func:`adfort.api.differentiate_file` about
    the sources, from the options diff and check share."""
    return dict(search_path=search_path, extra_files=extra_files,
                adjoint_libraries=adjoint_libs, passive_routines=_names(passive),
                defines=defines, undefines=undefines, cpp=cpp,
                form="free" if free_form else "fixed" if fixed_form else None,
                checkpoints=[parse_cli(value) for value in checkpoints])


def _diff_options(command):
    """Apply the options of :data:`_DIFF_OPTIONS` to `command`."""
    for option in reversed(_DIFF_OPTIONS):
        command = option(command)
    return command


class _Main(click.Group):
    """adfort's command group: a usage error (an unknown option, a bad
    option value, a missing argument) is bad input, exit 1 with click's
    message, as adfort documents; click's own code, 2, is adfort's for its
    bugs.  (--help and --version still exit 0.)"""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as err:     # (BadParameter, NoSuchOption…)
            err.exit_code = 1
            raise

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.UsageError as err:     # (a subcommand's options and arguments)
            err.exit_code = 1
            raise


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="adfort")
def main():
    """adfort: reverse-mode automatic differentiation of Fortran."""


@main.command(epilog="""\b
Example:
  adfort diff eos.f90 --dep rho --indep temp,salt -o eos_ad.f90
  gfortran -c eos.f90 eos_ad.f90
  adfort diff model.f90 --dep cost --indep u0 -I src/ --schedule joint \\
      --link step:flux=split
\b
For a routine r of module m the output defines module m_ad with r_rec,
r_ret and r_rev; call r_rev(args...) where each --dep/--indep argument is
followed by its adjoint <name>_adj.""")
@_diff_options
@click.option("-o", "--output", metavar="OUT",
              help="Output file ('-' for standard output; default <stem>_ad.f90 "
                   "in the current directory).")
@click.option("--mode", type=click.Choice(["reverse", "forward", "hvp"]), default="reverse",
              show_default=True,
              help="reverse: the adjoint r_rev (pullback) in module <m>_ad; forward: the "
                   "tangent r_fwd (pushforward, Jacobian-vector product) in <m>_fwd; hvp: "
                   "r_hvp, the Hessian-vector product of a scalar dependent (tangent of "
                   "the adjoint) in <m>_hvp.")
def diff(file, extra_files, deps, indeps, routines, output, mode, schedule, links, checkpoints,
         adjoint_libs,
         passive, search_path, defines, undefines, cpp, free_form, fixed_form, cache, jacobian,
         verbose, timings, no_simplify, simplify_n_times, no_inline_operation_adjoints,
         no_pool_work_arrays, no_inline, no_iteration_reversal, no_split_tapeless):
    """Differentiate FILE and write the adjoint (default), tangent (--mode
    forward) or Hessian-vector product (--mode hvp) Fortran.

    EXTRA_FILES hold routines and modules that FILE's routines call.
    """
    options = _generation_options(jacobian, verbose, no_simplify, simplify_n_times,
                                  no_inline_operation_adjoints, no_pool_work_arrays,
                                  no_inline, no_iteration_reversal, no_split_tapeless)
    try:
        if free_form and fixed_form:
            raise AdfortError("--free-form and --fixed-form exclude each other: give one")
        dependents, independents = _names(deps), _names(indeps)
        heads = [_head(value, dependents, independents) for value in routines]
        if not heads:
            heads = [(None, dependents, independents)]
        for name, head_deps, head_indeps in heads:
            which = f" of '{name}'" if len(heads) > 1 else ""
            if not head_deps:
                raise AdfortError(f"no dependent variable{which}: name at least one with "
                                  "--dep (or --routine NAME:DEPS/INDEPS)")
            if not head_indeps:
                raise AdfortError(f"no independent variable{which}: name at least one with "
                                  "--indep (or --routine NAME:DEPS/INDEPS)")
        if mode != "reverse" and len(heads) > 1:
            raise AdfortError(f"--mode {mode} differentiates one routine: give one --routine")
        if mode != "reverse" and checkpoints:
            raise AdfortError(f"--checkpoint is for the reverse mode: leave it out with "
                              f"--mode {mode}")
        if output is None:
            suffix = {"reverse": "_ad", "forward": "_fwd", "hvp": "_hvp"}[mode]
            output = os.path.splitext(os.path.basename(file))[0] + suffix + ".f90"
        if output != "-" and os.path.exists(file) and os.path.exists(output) \
                and os.path.samefile(file, output):
            raise AdfortError(f"the output file '{output}' is the input file: choose "
                              "another with -o")
        if output != "-":
            _check_output(output)
            _refuse_input(output, list(extra_files) + list(adjoint_libs))
        for path in list(extra_files) + list(adjoint_libs):
            if not os.path.isfile(path):
                raise AdfortError(f"no such file: '{path}'")
        _collect_less()
        if timings:
            startup = time.process_time()  # CPU of the interpreter and imports
            timing.start()
        reading = _reading(search_path, extra_files, adjoint_libs, passive, defines,
                           undefines, cpp, free_form, fixed_form, checkpoints)
        with recording() as inputs:     # every source read: -I modules, INCLUDEs too
            if len(heads) == 1:
                routine, head_deps, head_indeps = heads[0]
                text, _, _ = differentiate_file(file, head_deps, head_indeps,
                                                _schedule(schedule, links), routine, options,
                                                cache=cache, mode=mode, **reading)
            else:
                text, _, _ = differentiate_heads(file, heads, _schedule(schedule, links),
                                                 options, cache=cache, **reading)
        if output == "-":
            # (Bytes of the source that are not UTF-8, Latin-1 text in a
            # string, go out as they came in.)
            sys.stdout.flush()
            sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
            sys.stdout.buffer.flush()
        else:
            _refuse_input(output, inputs | {file, *extra_files, *adjoint_libs})
            _write_atomically(output, text)
        if timings:
            _print_timings(startup, timing.stop())
    except Exception as err:  # noqa: BLE001 (never show users a traceback)
        _fail(err)


@main.command(epilog="""\b
Example:
  adfort check examples/seawater.f90 --dep rho --indep temp,salt
  adfort check l96.f --dep x --indep x,forc --size n=40,nt=20 --range x=-2:8
  adfort check model.f90 --dep cost --indep u0 --size u0=100 --plot taylor.png
\b
Exit status: 0 when every check passes, 3 when one fails (named in the
last line), 1 for bad input or a usage error, 2 for a bug of adfort.""")
@_diff_options
@click.option("--size", "sizes", multiple=True, metavar="NAME=VALUE[,…]",
              help="Value of an integer (or logical) argument (--size n=100), or the "
                   "extents of an assumed-shape/assumed-size array (--size x=100, "
                   "--size a=n,m) or of an allocatable module array (--size m::w=50). "
                   "Repeatable, comma lists.")
@click.option("--range", "ranges", multiple=True, metavar="NAME=LO:HI",
              help="Interval of the random values of a real input (argument, module "
                   "variable m::x, COMMON member /b/x), or one value: --range p=1000. "
                   "Default 0.5:1.5 for arguments and active globals.")
@click.option("--plot", metavar="FILE.png", type=click.Path(dir_okay=False),
              help="Draw the Taylor remainders against h (log-log, with a slope-2 "
                   "reference line) into FILE.png.")
@click.option("--keep", metavar="DIR", type=click.Path(file_okay=False),
              help="Keep the generated motions, the check program and its build in DIR.")
@click.option("--adjoint", "adjoint_file", metavar="FILE", type=click.Path(dir_okay=False),
              help="Check the r_rev of FILE (e.g. a hand-edited adjoint) instead of "
                   "generating one.")
@click.option("--tangent", "tangent_file", metavar="FILE", type=click.Path(dir_okay=False),
              help="Check the r_fwd of FILE (a hand-written tangent) against the adjoint.")
@click.option("--fflags", metavar="FLAGS", default="",
              help="Extra gfortran flags for every compilation (quoted: --fflags '-O1').")
@click.option("--compile", "compile_files", multiple=True, metavar="FILE",
              type=click.Path(dir_okay=False),
              help="Further source, object or library file to compile and link with the "
                   "check program but not to read (a routine adfort gets the adjoint of "
                   "from --adjoint-lib). Repeatable.")
@click.option("--seed", type=click.IntRange(min=1, max=2147483646), default=20261126,
              show_default=True, help="Seed of the random inputs.")
@click.option("--timeout", type=click.FloatRange(min=1), default=600, show_default=True,
              help="Seconds allowed to each compilation and to the run.")
def check(file, extra_files, deps, indeps, routines, schedule, links, checkpoints,
          adjoint_libs, passive,
          search_path, defines, undefines, cpp, free_form, fixed_form, cache, jacobian, verbose,
          timings, no_simplify, simplify_n_times, no_inline_operation_adjoints,
          no_pool_work_arrays, no_inline, no_iteration_reversal, no_split_tapeless, sizes, ranges,
          plot, keep, adjoint_file, tangent_file, fflags, compile_files, seed, timeout):
    """Check the adjoint of a routine of FILE by running it.

    Generates the adjoint (r_rev), writes a Fortran program with random
    inputs, compiles it with gfortran with the original sources and runs the
    dot-product test, the Taylor test and the calling convention's contract
    checks.  EXTRA_FILES hold routines and modules that FILE's routines call.
    """
    import shlex
    from adfort.check import CheckRequest, run_check
    from adfort.check.build import progress_printer
    from adfort.check.problem import parse_assignments
    from adfort.check.report import format_report, plain, plot as draw
    options = _generation_options(jacobian, verbose, no_simplify, simplify_n_times,
                                  no_inline_operation_adjoints, no_pool_work_arrays,
                                  no_inline, no_iteration_reversal, no_split_tapeless)
    try:
        if free_form and fixed_form:
            raise AdfortError("--free-form and --fixed-form exclude each other: give one")
        if len(routines) > 1:
            raise AdfortError("adfort check checks one routine: give one --routine")
        dependents, independents = _names(deps), _names(indeps)
        routine = None
        if routines:
            routine, dependents, independents = _head(routines[0], dependents, independents)
        if not dependents:
            raise AdfortError("no dependent variable: name at least one with --dep")
        if not independents:
            raise AdfortError("no independent variable: name at least one with --indep")
        if plot and not plot.lower().endswith(".png"):
            raise AdfortError(f"--plot {plot}: give a .png file name")
        if plot:
            _check_output(plot)
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                raise AdfortError("--plot needs matplotlib: pip install 'adfort[plot]' "
                                  "(or pip install matplotlib)") from None
        _collect_less()
        if timings:
            startup = time.process_time()
            timing.start()
        request = CheckRequest(
            path=file, dependents=dependents, independents=independents, routine=routine,
            schedule=_schedule(schedule, links), options=options,
            reading=_reading(search_path, extra_files, adjoint_libs, passive, defines,
                             undefines, cpp, free_form, fixed_form, checkpoints),
            cache=cache, sizes=parse_assignments(sizes, "--size"),
            ranges=parse_assignments(ranges, "--range"), fflags=shlex.split(fflags),
            compile_files=compile_files, adjoint=adjoint_file, tangent=tangent_file,
            keep=keep, seed=seed, timeout=timeout, plot=plot,
            progress=progress_printer())
        outcome = run_check(request)
        if timings:
            _print_timings(startup, timing.stop())
            for phase, seconds in outcome.times.items():
                click.echo(f"adfort: {phase:<9} {seconds:7.3f} s "
                           + ("(gfortran)" if phase == "compile" else "(check program)"), err=True)
        header = [f"adfort check: {outcome.problem.routine} of {file}; dependents "
                  f"{', '.join(dependents)}; independents {', '.join(independents)}; "
                  f"schedule {request.schedule.name}; seed {seed}"]
        click.echo(plain(format_report(outcome, header), sys.stdout.encoding), nl=False)
        if plot and outcome.taylor is not None:
            draw(outcome, plot, f"Taylor test of {outcome.problem.routine}")
            click.echo(f"adfort check: Taylor remainders drawn in {plot}")
        sys.exit(0 if outcome.passed else 3)
    except Exception as err:  # noqa: BLE001 (never show users a traceback)
        _fail(err)


def _main_code():
    try:
        main()
        return 0
    except SystemExit as stop:
        return stop.code


def run():
    """Run :func:`main` as a process (``python -m adfort``) and end it at
    once, without freeing its objects one by one: Python's own exit frees
    every node of the trees a run built, 0.8 s after a large call tree
    (everything is written and closed by then; standard output and error
    are flushed here)."""
    code = deep(_main_code)
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)     # as Python does for sys.exit("…")
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass        # a closed pipe: nothing more can be said
    os._exit(code)
