C     Meyer-Peter and Mueller style bed-load flux, FORTRAN 77.
      SUBROUTINE BEDLOAD(U, H, Q)
      DOUBLE PRECISION U, H, Q
      DOUBLE PRECISION TAU, EXCESS
      TAU = 0.003D0*U**2/H**0.33D0
      EXCESS = 0.5D0*(TAU - 0.047D0 + SQRT((TAU - 0.047D0)**2 + 1.0D-4))
      Q = 8.0D0*EXCESS**1.5D0
      RETURN
      END
