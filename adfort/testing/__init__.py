"""Random-program fuzzing of adfort.

- :mod:`adfort.testing.generator`: random, valid, realistic Fortran kernels
  (levels of features) with a model of every argument;
- :mod:`adfort.testing.checker`: differentiates a case in-process, compiles
  it with a generated driver (gfortran, run-time checks and floating-point
  traps), runs the dot-product test against central differences and the
  calling-convention checks, checks the tangent ``r_fwd`` against the
  adjoint (dot-product test, primal results, tangent convention), and
  classifies the outcome;
- :mod:`adfort.testing.shrink`: reduces a failing case to a small one that
  fails the same way;
- ``python -m adfort.testing``: campaigns (see ``--help``).
"""
