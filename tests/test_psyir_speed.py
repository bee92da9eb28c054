"""The shortcuts of adfort/psyir_speed.py leave the PSyIR PSyclone builds as
it is: every symbol of every table (its class and interface), and the
Fortran written from it, are the same with and without them."""

from psyclone.psyir.backend.fortran import FortranWriter
from psyclone.psyir.frontend.fortran import FortranReader
from psyclone.psyir.nodes import CodeBlock, Container, Routine

from adfort import psyir_speed

MODULE = """\
module chain
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  interface smooth
    module procedure smooth1, smooth2
  end interface smooth
contains
  subroutine top(n, q, cost)
    integer, intent(in) :: n
    real(wp), intent(inout) :: q(n)
    real(wp), intent(out) :: cost
    call middle(n, q)
    cost = total(n, q)
  end subroutine top
  subroutine middle(n, q)
    integer, intent(in) :: n
    real(wp), intent(inout) :: q(n)
    call smooth(q)
    if (n > 1) call middle(n - 1, q)
  end subroutine middle
  real(wp) function total(n, q)
    integer, intent(in) :: n
    real(wp), intent(in) :: q(n)
    total = sum(q**2) + helper(q(1))
  end function total
  subroutine smooth1(q)
    real(wp), intent(inout) :: q(:)
    q = 0.5_wp*q
  end subroutine smooth1
  subroutine smooth2(q)
    real(wp), intent(inout) :: q(:, :)
    q = 0.5_wp*q
  end subroutine smooth2
  subroutine with_internal(x)
    real(wp), intent(inout) :: x
    x = twice(x)
  contains
    real(wp) function twice(y)
      real(wp), intent(in) :: y
      twice = 2.0_wp*y
    end function twice
  end subroutine with_internal
  subroutine calls_internal_one(x)
    real(wp), intent(inout) :: x
    call with_internal(x)
  end subroutine calls_internal_one
  subroutine lonely(x)
    real(wp), intent(inout) :: x
    x = x + 1.0_wp
  contains
    subroutine inner()
    end subroutine inner
  end subroutine lonely
  real(wp) function helper(x)
    real(wp), intent(in) :: x
    helper = x**3
  end function helper
end module chain

subroutine outside(x)
  real(8), intent(inout) :: x
  call outside_too(x)
end subroutine outside

subroutine outside_too(x)
  real(8), intent(inout) :: x
  x = 3.0d0*x
end subroutine outside_too
"""


def _summary(tree):
    """Every table's symbols (name, class, interface) and the routines and
    CodeBlocks of every container, in order."""
    lines = []
    for scope in [tree] + tree.walk((Container, Routine)):
        table = scope.symbol_table
        lines.append(f"{type(scope).__name__} {getattr(scope, 'name', '')}")
        for symbol in sorted(table.symbols, key=lambda s: s.name):
            lines.append(f"  {symbol.name} {type(symbol).__name__} "
                         f"{type(symbol.interface).__name__}")
        if isinstance(scope, Container):
            for child in scope.children:
                if isinstance(child, (Routine, CodeBlock)):
                    lines.append(f"  child {type(child).__name__} "
                                 f"{getattr(child, 'name', str(child)[:30])}")
    return lines


def _read(shortcuts):
    reader = FortranReader()
    if shortcuts:
        with psyir_speed.reading(MODULE, True):
            return reader.psyir_from_source(MODULE)
    return reader.psyir_from_source(MODULE)


def test_shortcuts_leave_the_psyir_unchanged():
    plain, quick = _read(False), _read(True)
    assert _summary(quick) == _summary(plain)
    writer = FortranWriter()
    assert writer(quick) == writer(plain)


def _module_checks(monkeypatch, shortcuts):
    """How many times the symbols accessed in the whole module are collected
    while it is read."""
    from psyclone.psyir.symbols.symbol_table import SymbolTable
    collected = []
    original = SymbolTable.get_all_accessed_symbols

    def counting(table):
        if isinstance(table.node, Container) and table.node.name == "chain":
            collected.append(table)
        return original(table)

    monkeypatch.setattr(SymbolTable, "get_all_accessed_symbols", counting)
    _read(shortcuts)
    return len(collected)


def test_shortcuts_are_taken_while_reading(monkeypatch):
    # PSyclone collects them once per routine detached; while reading, only
    # for the routines it gives up (lonely, with_internal: CodeBlocks).
    assert _module_checks(monkeypatch, False) >= 8
    assert _module_checks(monkeypatch, True) <= 2
