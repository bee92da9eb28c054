"""``adfort check``: validate an adjoint (and a tangent) by running it.

The package writes a Fortran program with random inputs around the
routine and its generated motions, compiles it with gfortran together
with the original sources, runs it and judges what it prints:

- :mod:`adfort.check.problem`: what the routine takes and touches
  (arguments, module variables, COMMON members), with their types and
  shapes, from the sources and the command line's ``--size``/``--range``;
  :mod:`adfort.check.modulevars` finds the module variables and COMMON
  members;
- :mod:`adfort.check.tangent`: the tangent to check, when there is one;
- :mod:`adfort.check.driver`: the Fortran program;
- :mod:`adfort.check.build`: generating the motions, compiling, running;
- :mod:`adfort.check.report`: the tests' verdicts, the printed report and
  the ``--plot`` figure.
"""

from adfort.check.build import CheckRequest, run_check  # noqa: F401
