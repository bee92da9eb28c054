C adfort: routine=column dep=tout indep=t0,alpha
C adfort: init t0=270:300 alpha=0.05:0.3
C
C     A column held in COMMON is nudged towards a reference value.  The
C     reference is passed as a parenthesised COMMON member, (TBAR) or
C     (T(1)): Fortran passes a copy, so the reference stays fixed while
C     NUDGE updates TBAR and T through the COMMON block.  Passing the
C     variable itself would let the reference drift as the loop runs.
C
      SUBROUTINE NUDGE(TREF, ALPHA)
      DOUBLE PRECISION TREF, ALPHA
      DOUBLE PRECISION T(10), TBAR
      COMMON /COL/ T, TBAR
      INTEGER K
      DO 10 K = 1, 10
         TBAR = TBAR + 0.1D0*ALPHA*(TREF - T(K))
         T(K) = T(K) + ALPHA*(TREF - T(K))
   10 CONTINUE
      END

      SUBROUTINE COLUMN(T0, ALPHA, TOUT)
      DOUBLE PRECISION T0(10), ALPHA, TOUT(10)
      DOUBLE PRECISION T(10), TBAR
      COMMON /COL/ T, TBAR
      INTEGER K
      TBAR = 0.0D0
      DO 20 K = 1, 10
         T(K) = T0(K)
         TBAR = TBAR + 0.1D0*T0(K)
   20 CONTINUE
      CALL NUDGE((TBAR), ALPHA)
      CALL NUDGE((T(1)), 0.5D0*ALPHA)
      DO 30 K = 1, 10
         TOUT(K) = T(K) + TBAR
   30 CONTINUE
      END
