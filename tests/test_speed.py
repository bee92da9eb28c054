"""adfort's own speed, through properties that cannot be flaky: sympy is
never imported on a kernel's path (adfort/lazy.py), the plain answers
given in its place are sympy's, PSyclone's faster lookups
(adfort/patches.py) answer as the originals, and the module cache
(``--cache``) is hit, invalidated and survives corrupt entries."""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from adfort import lazy

ROOT = Path(__file__).resolve().parents[1]


def run_python(code, cwd=ROOT):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd,
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


# ---- sympy is loaded only if used -----------------------------------------
def test_diff_of_a_kernel_never_imports_sympy(tmp_path):
    out = tmp_path / "out.f90"
    done = run_python(f"""
        import sys
        from adfort.cli import main
        try:
            main(["diff", "benchmarks/advection_limiter.f90", "--routine", "run",
                  "--dep", "cost", "--indep", "c,u", "-o", {str(out)!r}],
                 standalone_mode=False)
        except SystemExit as stop:
            assert not stop.code, stop.code
        print("sympy.core" in sys.modules, "sympy" in sys.modules,
              "pyparsing" in sys.modules, type(sys.modules["psyclone.psyGen"]).__name__,
              "psyclone.parse.module_manager" in sys.modules)
        """)
    assert done.returncode == 0, done.stderr
    # The stand-ins are there; sympy, psyGen (pyparsing…) and the module
    # manager never were.
    assert done.stdout.split() == ["False", "True", "False", "_StandIn", "False"], \
        done.stdout + done.stderr
    assert re.search(r"^\s*end subroutine run_rev$", out.read_text(), re.M)


def test_bounds_with_min_max_and_inquiries_need_no_sympy(tmp_path):
    # The soil column's work arrays are handed over on MIN(nmax, MAX(nz, 1))
    # elements, the shortwave fixture's on SIZE(albedo, dim=1): the writer
    # compares those with declared bounds without sympy.
    for source, routine, dep, indep in (
            ("benchmarks/soil_column_newton.f", "SOILRN", "COST", "TS0,CND"),
            ("tests/fortran_fixtures/shortwave_level_albedo.f90", None, None, None)):
        if routine is None:
            text = (ROOT / source).read_text()
            routine = re.search(r"routine=(\w+)", text).group(1)
            dep = re.search(r" dep=([\w,]+)", text).group(1)
            indep = re.search(r"indep=([\w,]+)", text).group(1)
        out = tmp_path / "out.f90"
        done = run_python(f"""
            import sys
            from adfort.cli import main
            try:
                main(["diff", {source!r}, "--routine", {routine!r}, "--dep", {dep!r},
                      "--indep", {indep!r}, "-o", {str(out)!r}], standalone_mode=False)
            except SystemExit as stop:
                assert not stop.code, stop.code
            print("sympy.core" in sys.modules)
            """)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["False"], (source, done.stdout + done.stderr)


def test_sympy_is_loaded_when_something_uses_it():
    done = run_python("""
        import sys
        import adfort
        from psyclone.core import SymbolicMaths
        from psyclone.psyir.frontend.fortran import FortranReader
        assert "sympy.core" not in sys.modules
        x = FortranReader().psyir_from_expression("2*i + j")
        y = FortranReader().psyir_from_expression("j + i + i")
        # identical_variables is not a plain case: the real SymbolicMaths.
        print(SymbolicMaths.equal(x, y, identical_variables={"i": "i"}),
              "sympy.core" in sys.modules)
        import sympy
        print(sympy.Symbol("a") + 1)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "a", "+", "1"], done.stdout


PAIRS = [("n", "n"), ("n", "m"), ("n + 1", "n"), ("n + 1", "1 + n"), ("2*n", "n + n"),
         ("(n - 1)*(n + 1)", "n**2 - 1"), ("1", "1"), ("1", "2"), ("n", "1"),
         ("n - n", "0"), ("-n + 3", "3 - n"), ("n*m - m*n + k", "k"), ("n/2", "n/2"),
         ("size(a, 1)", "size(a, 1)"), ("size(a, 1)", "n"), ("n/2", "n"),
         ("1.5", "1.5"), ("a(1)", "a(1)"), ("a(1)", "a(2)"), ("N", "n")]


@pytest.mark.parametrize("first, second", PAIRS)
def test_plain_answers_are_those_of_sympy(first, second):
    from psyclone.psyir.frontend.fortran import FortranReader
    from psyclone.psyir.nodes import Routine
    source = f"""\
        subroutine s(a, n, m, k)
          integer :: n, m, k
          real :: a(n), x
          x = {first}
          x = {second}
        end subroutine s
        """
    routine = FortranReader().psyir_from_source(textwrap.dedent(source)).walk(Routine)[0]
    one, two = (stmt.rhs for stmt in routine.children)
    answer = lazy.plain_equal(one, two)
    if answer is not None:
        truth = lazy._real("psyclone.core.symbolic_maths").SymbolicMaths.get().equal(one, two)
        assert answer == truth
    assert lazy.plain_equal(None, None) is True and lazy.plain_equal(one, None) is False


def test_plain_cases_are_answered_without_sympy():
    from psyclone.psyir.frontend.fortran import FortranReader
    read = FortranReader().psyir_from_expression
    assert lazy.plain_equal(read("n + 1"), read("1 + n")) is True
    assert lazy.plain_equal(read("n + 1"), read("n")) is False
    assert lazy.plain_equal(read("1.5"), read("1.5")) is None      # a Float zero
    assert lazy.plain_equal(read("n/2"), read("n")) is None


def test_stand_ins_behave_as_the_real_modules():
    done = run_python("""
        import sys
        import adfort
        from psyclone.psyGen import InternalError, Kern
        from psyclone.errors import InternalError as Real
        assert InternalError is Real
        assert not isinstance(3, Kern) and "pyparsing" not in sys.modules
        from psyclone.psyir.tools.call_tree_utils import CallTreeUtils
        utils = CallTreeUtils()
        assert "pyparsing" not in sys.modules
        print(type(utils.get_non_local_read_write_info).__name__)
        import psyclone.psyGen
        from psyclone.psyir.tools import DependencyTools
        assert isinstance(DependencyTools(), DependencyTools)
        print(type(sys.modules["psyclone.psyir.tools"]).__name__,
              type(sys.modules["psyclone.psyGen"]).__name__, Kern.__name__)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["method", "module", "_StandIn", "Kern"], done.stdout


def test_the_module_manager_gets_the_modules_to_ignore_when_used():
    done = run_python("""
        import sys
        import adfort
        from psyclone.configuration import Config
        from psyclone.parse import ModuleManager
        Config.get()                                # noted, not loaded
        assert "psyclone.parse.module_manager" not in sys.modules
        pending = ModuleManager.get()
        assert isinstance(pending.ignores(), set)   # (loads the real one)
        from psyclone.parse import ModuleManager as Real
        real = Real.get()
        assert type(sys.modules["psyclone.parse"]).__name__ == "module"
        assert ModuleManager.get() is real and isinstance(real, ModuleManager)
        pending.add_ignore_module("later")
        configured = Config.get()._config["DEFAULT"].getlist("IGNORE_MODULES", [])
        assert configured and real.ignores() == set(configured) | {"later"}, real.ignores()
        print("ok")
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok"], done.stdout


# ---- PSyclone's lookups -----------------------------------------------------
def test_faster_lookup_answers_as_psyclone():
    from psyclone.psyir.frontend.fortran import FortranReader
    from psyclone.psyir.nodes import Routine
    from psyclone.psyir.symbols import Symbol
    from adfort import patches
    tree = FortranReader().psyir_from_source(textwrap.dedent("""\
        module m
          integer :: a, b
          private :: b
        contains
          subroutine s()
            integer :: b, c
            b = a
          end subroutine s
        end module m
        """))
    table = tree.walk(Routine)[0].symbol_table
    for name in ("a", "B", "c", "m", "s", "nothing"):
        ours = table.lookup(name, otherwise=None)
        theirs = patches._original_lookup(table, name, otherwise=None)
        assert ours is theirs, name
        limited = table.lookup(name, scope_limit=tree.walk(Routine)[0], otherwise=None)
        assert limited is patches._original_lookup(
            table, name, scope_limit=tree.walk(Routine)[0], otherwise=None)
    with pytest.raises(KeyError, match="Could not find 'nothing'"):
        table.lookup("nothing")
    assert table.lookup("a", visibility=Symbol.Visibility.PUBLIC).name == "a"


def test_comment_lines_are_judged_once_per_reader_as_fparser_would():
    # A licence header of 150 comment lines: fparser tests every line read
    # so far again at each failed match at the top of the unit; adfort's
    # reader remembers each line's answer (adfort/fparser_speed.py).
    from fparser.common.readfortran import FortranReaderBase, FortranStringReader
    from fparser.common.sourceinfo import FortranFormat
    from psyclone.psyir.frontend.fortran import FortranReader
    from adfort import fparser_speed
    original = fparser_speed.ORIGINALS["is_comment_line"]
    lines = ["! a comment", "   ", "x = 1 ! trailing", "c fixed comment", "C", "*",
             "      x = 'a!b'", "!$omp parallel do", "  print *, \"!\"", "      END", "!f2py x"]
    for free, strict in ((True, False), (False, False), (False, True)):
        reader = FortranStringReader("x = 1\n")
        reader.set_format(FortranFormat(free, strict))
        for line in lines + lines:
            assert reader.is_comment_line(line) == original(reader, line), (free, line)
    header = "".join(f"! Copyright line {i} of the licence text, the same as any other.\n"
                     for i in range(150))
    source = header + textwrap.dedent("""\
        module m
          implicit none
        contains
          subroutine s(x, y)
            real, intent(in) :: x
            real, intent(out) :: y
            y = 2.0*x
          end subroutine s
        end module m
        """)
    calls = []
    judge = FortranReaderBase.handle_inline_comment

    def counted(self, line, *args, **kwargs):
        calls.append(line)
        return judge(self, line, *args, **kwargs)
    FortranReaderBase.handle_inline_comment = counted
    try:
        FortranReader().psyir_from_source(source)
    finally:
        FortranReaderBase.handle_inline_comment = judge
    # Each line once to read it and at most once more to judge it (without
    # the memory: thousands of times).
    assert len(calls) <= 2 * source.count("\n") + 10, len(calls)


# ---- the module cache (--cache) and the search path ----------------------
SEARCH = ROOT / "tests" / "fortran_fixtures" / "calls" / "column_eos_search_path"


def differentiate(tmp_path, cache=None, src=None):
    from adfort import api, schedules
    text, _, _ = api.differentiate_file(
        str(SEARCH / "column_energy.f90"), ["pe", "strat"], ["temp", "salt"],
        schedules.SplitReversalSchedule(), "column_pe", search_path=[str(src or SEARCH / "src")],
        cache=cache)
    return text


def test_cache_gives_the_same_output_and_is_hit(tmp_path):
    from adfort import cache
    plain = differentiate(tmp_path)
    first = differentiate(tmp_path, tmp_path / "cache")
    assert first == plain
    # The file given and the two modules found with -I, each parsed once.
    assert (cache.last.hits, cache.last.misses) == (0, 3)
    assert len(list((tmp_path / "cache").glob("parse-*.pickle"))) == 3
    second = differentiate(tmp_path, tmp_path / "cache")
    assert second == plain
    assert (cache.last.hits, cache.last.misses) == (3, 0)


def test_cache_entry_of_a_changed_module_is_not_used(tmp_path):
    from adfort import cache
    import shutil
    src = tmp_path / "src"
    shutil.copytree(SEARCH / "src", src)
    before = differentiate(tmp_path, tmp_path / "cache", src)
    eos = src / "seawater_eos.f90"
    eos.write_text(eos.read_text().replace("0.5_wp * cabbel", "0.25_wp * cabbel"))
    after = differentiate(tmp_path, tmp_path / "cache", src)
    # Only the module edited is parsed again.
    assert (cache.last.hits, cache.last.misses) == (2, 1)
    assert after == differentiate(tmp_path, None, src)
    assert after != before and "0.25" in after and "0.25" not in before


def test_corrupt_cache_entries_are_ignored(tmp_path):
    from adfort import cache
    plain = differentiate(tmp_path)
    differentiate(tmp_path, tmp_path / "cache")
    entries = sorted((tmp_path / "cache").glob("parse-*.pickle"))
    entries[0].write_bytes(b"not a pickle")
    entries[1].write_bytes(entries[1].read_bytes()[:100])      # truncated
    entries[2].write_bytes(__import__("pickle").dumps({"a": "dict"}))
    assert differentiate(tmp_path, tmp_path / "cache") == plain
    assert (cache.last.hits, cache.last.misses) == (0, 3)
    assert differentiate(tmp_path, tmp_path / "cache") == plain    # written again
    assert (cache.last.hits, cache.last.misses) == (3, 0)


def test_cli_cache_option(tmp_path):
    args = [sys.executable, "-m", "adfort", "diff", str(SEARCH / "column_energy.f90"),
            "--routine", "column_pe", "--dep", "pe,strat", "--indep", "temp,salt",
            "-I", str(SEARCH / "src"), "-o", "-"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    plain = subprocess.run(args, capture_output=True, text=True, env=env, cwd=tmp_path)
    cached = [subprocess.run(args + ["--cache", "build/adfort-cache"], capture_output=True,
                             text=True, env=env, cwd=tmp_path) for _ in range(2)]
    assert plain.returncode == 0, plain.stderr
    assert [c.stdout for c in cached] == [plain.stdout] * 2
    assert len(list((tmp_path / "build" / "adfort-cache").iterdir())) == 3
    (tmp_path / "afile").write_text("")
    refused = subprocess.run(args + ["--cache", "afile"], capture_output=True, text=True,
                             env=env, cwd=tmp_path)
    assert refused.returncode != 0 and "afile" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_modules_on_the_search_path_are_read_once(tmp_path, monkeypatch):
    from adfort import reading
    opened = []
    real_open = open

    def counting_open(path, *args, **kwargs):
        opened.append(os.path.basename(str(path)))
        return real_open(path, *args, **kwargs)

    src = tmp_path / "src"
    src.mkdir()
    for name in ("ocean_kinds.f90", "seawater_eos.f90"):
        (src / name).write_text((SEARCH / "src" / name).read_text())
    monkeypatch.setattr(reading, "open", counting_open, raising=False)
    for _ in range(3):
        assert reading.find_module_file("ocean_kinds", [str(src)]) == str(src / "ocean_kinds.f90")
        assert reading.find_module_file("SEAWATER_EOS", [str(src)]) == \
            str(src / "seawater_eos.f90")
        assert reading.find_module_file("nowhere", [str(src)]) is None
    assert sorted(opened) == ["ocean_kinds.f90", "seawater_eos.f90"]
    # A file changed (or added) is read again.
    (src / "extra.f90").write_text("module nowhere\nend module nowhere\n")
    assert reading.find_module_file("nowhere", [str(src)]) == str(src / "extra.f90")


# ---- what is parsed grows with the call tree, not with the file -----------
@pytest.mark.parametrize("routines", [12, 40])
def test_only_the_call_tree_is_parsed_whatever_the_size_of_the_file(tmp_path, routines):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import tool_speed
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    from psyclone.psyir.nodes import Routine
    from adfort.frontend import read_file
    from adfort.reading import ReadPlan
    text, alone = tool_speed.generate(routines, 3)
    source = tmp_path / "big_model.f90"
    source.write_text(text)
    for target, tree_size in (("model_step", 10), (alone, 1)):
        plan = ReadPlan()
        plan.specialise([str(source)])
        plan.plan(str(source), target)
        parsed = sorted(r.name for r in read_file(str(source), plan=plan).walk(Routine))
        assert len(parsed) == tree_size, parsed
        if target == "model_step":
            assert parsed == ["kern_001", "kern_002", "kern_003", "kern_004", "kern_005",
                              "kern_006", "level_01", "level_02", "level_03", "model_step"]
        else:
            assert parsed == [alone]


@pytest.mark.parametrize("terms", [
    # a chemistry mechanism's flat sum: products, subscripts, exponent
    # literals, a unary minus first, a parenthesised group, a string-free
    # function call; and a chain just below and at the shortcut's length
    lambda k: f"1.5d-3*x({k % 7 + 1})*x({k % 5 + 1})",
    lambda k: f"(x({k % 3 + 1}) - 2.0e+1)**2",
    lambda k: f"sin(x({k % 4 + 1}))/3.0",
])
@pytest.mark.parametrize("count", [7, 8, 200])
def test_long_sums_read_once_into_the_same_tree(terms, count):
    """A chain of + and - is mapped once, not once per operator
    (adfort/fparser_speed.py): the same parse tree as fparser's own way,
    and the text fparser maps grows with the statement, not its square."""
    from fparser.common import splitline
    from fparser.common.readfortran import FortranStringReader
    from fparser.two import Fortran2003
    from fparser.two.parser import ParserFactory
    from adfort import fparser_speed
    fparser_speed.apply()
    # (fparser's own way recurses once per operator, a few frames each)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    rhs = " - ".join([f"-{terms(0)}"] + [terms(k) for k in range(1, count)])
    source = (f"subroutine s(x, y)\n  real(8) :: x(7), y\n  y = {rhs}\n"
              "end subroutine s\n")
    parser = ParserFactory().create(std="f2008")
    mapped = []
    original_map = splitline.string_replace_map

    def counting(line, lower=False):
        mapped.append(len(line))
        return original_map(line, lower)
    patched = Fortran2003.Level_2_Expr.match
    import fparser.two.utils as fputils
    # (BinaryOpBase.match, in fparser.two.utils, maps the operands' text)
    fputils.string_replace_map = counting
    try:
        ours = parser(FortranStringReader(source))
        ours_mapped = sum(mapped)
        Fortran2003.Level_2_Expr.match = staticmethod(
            fparser_speed.ORIGINALS["Level_2_Expr.match"])
        mapped.clear()
        theirs = parser(FortranStringReader(source))
        theirs_mapped = sum(mapped)
        same = repr(ours) == repr(theirs) and str(ours) == str(theirs)
    finally:
        Fortran2003.Level_2_Expr.match = staticmethod(patched)
        fputils.string_replace_map = original_map
        sys.setrecursionlimit(limit)
    assert same
    if count == 200:
        # (each level of the expression grammar maps the whole statement
        # once: linear; fparser's own way maps every prefix of the sum)
        assert ours_mapped < 30*len(source) and theirs_mapped > 4*ours_mapped, \
            (ours_mapped, theirs_mapped)
