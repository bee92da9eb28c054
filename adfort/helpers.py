"""Functions the derivative rules call that Fortran does not have, written
into the generated file where a generated routine calls them.

The derivatives of ``GAMMA`` and ``LOG_GAMMA`` need the digamma function
ψ = Γ'/Γ.  :func:`digamma` is the rules' call of it; :func:`helper_routines`
gives the routines a generated module (or the tape module of routines
outside any module) must hold, from the calls its routines make.

ψ is computed in double precision (the argument converted, the value
converted back to the argument's kind): for x < 1/2 from ψ(1 - x) by the
reflection ψ(x) = ψ(1 - x) - π/tan(πx); the argument raised to 10 or more
by ψ(x) = ψ(x + 1) - 1/x; there the asymptotic series
ψ(y) = ln y - 1/(2y) - Σ B₂ₖ/(2k y²ᵏ) to the y⁻¹⁴ term, whose first
omitted term is below 5e-17: within a few units of the last
place of double precision.
"""

from psyclone.psyir.nodes import Call
from psyclone.psyir.symbols import RoutineSymbol, ScalarType

from adfort import naming
from adfort.writer import VerbatimRoutine

_DOUBLE = ScalarType(ScalarType.Intrinsic.REAL, ScalarType.Precision.DOUBLE)

_DIGAMMA_SOURCE = f"""\
elemental function {naming.DIGAMMA}(x) result(psi)
  ! The digamma function psi(x) = d log(gamma(x))/dx (not an intrinsic):
  ! the derivatives of GAMMA and LOG_GAMMA call it.
  double precision, intent(in) :: x
  double precision :: psi
  double precision, parameter :: pi = 3.141592653589793238462643383279503d0
  double precision :: y, w

  psi = 0.0d0
  y = x
  if (y < 0.5d0) then
    psi = -pi / tan(pi * y)
    y = 1.0d0 - y
  end if
  do while (y < 10.0d0)
    psi = psi - 1.0d0 / y
    y = y + 1.0d0
  end do
  w = 1.0d0 / (y * y)
  psi = psi + log(y) - 0.5d0 / y - w * (1.0d0 / 12.0d0 - w * (1.0d0 / 120.0d0 &
      - w * (1.0d0 / 252.0d0 - w * (1.0d0 / 240.0d0 - w * (1.0d0 / 132.0d0 &
      - w * (691.0d0 / 32760.0d0 - w / 12.0d0))))))

end function {naming.DIGAMMA}
"""

_SOURCES = {naming.DIGAMMA: _DIGAMMA_SOURCE}


def digamma_call(argument):
    """A call of the digamma helper on the double precision node `argument`."""
    return Call.create(RoutineSymbol(naming.DIGAMMA, _DOUBLE.copy()), [argument])


def called_helpers(routines):
    """Names of the helpers the `routines` (PSyIR) call, in a fixed order."""
    called = set()
    for routine in routines:
        for call in routine.walk(Call):
            name = call.routine.name.lower()
            if name in _SOURCES:
                called.add(name)
    return sorted(called)


def helper_routines(names):
    """The routines (written as they are) defining the helpers `names`."""
    return [VerbatimRoutine(name, _SOURCES[name]) for name in names]


def check_free(routines, names, filename):
    """A helper's name must be free in every routine calling it: a user
    name ``adfort_digamma`` there would hide it.

    :raises AdfortError: naming the routine and what to rename."""
    from adfort.errors import AdfortError, where
    for routine in routines:
        table = routine.symbol_table
        for name in names:
            symbol = table.lookup(name, otherwise=None, scope_limit=routine)
            if symbol is not None and any(
                    call.routine.name.lower() == name for call in routine.walk(Call)):
                raise AdfortError(
                    f"'{symbol.name}' is the name of the function adfort generates for the "
                    f"derivatives of GAMMA and LOG_GAMMA: rename it",
                    where(routine, filename))

