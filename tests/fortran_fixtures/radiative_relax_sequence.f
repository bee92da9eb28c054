C adfort: routine=radcol dep=cost indep=t,emis
C adfort: init n=9 t=250:300 emis=0.6:0.95
C adfort: shape t=n emis=n
C
C     Radiative cooling of a column, FORTRAN 77 style: the emitted flux
C     reads the temperatures, then a library routine relaxes the column
C     in place, called with the first element (CALL RELAX(N, T(1), ...):
C     sequence association, RELAX sees T(1..N) as its array A).  The
C     adjoint of the flux needs the temperatures from before the call,
C     all of them, not only T(1).
C
      SUBROUTINE RADCOL(N, T, EMIS, COST)
      INTEGER N, K
      DOUBLE PRECISION T(N), EMIS(N), COST, F(100), SIGMA
      PARAMETER (SIGMA = 5.670374D-8)
      DO 10 K = 1, N
         F(K) = EMIS(K)*SIGMA*T(K)**4
   10 CONTINUE
      CALL RELAX(N, T(1), 0.3D0)
      COST = 0.0D0
      DO 20 K = 1, N
         COST = COST + 1.0D-3*F(K)*T(K) + 0.5D0*T(K)**2
   20 CONTINUE
      END

      SUBROUTINE RELAX(N, A, R)
      INTEGER N, K
      DOUBLE PRECISION A(N), R, AMEAN
      AMEAN = 0.0D0
      DO 10 K = 1, N
         AMEAN = AMEAN + A(K)
   10 CONTINUE
      AMEAN = AMEAN/N
      DO 20 K = 1, N
         A(K) = A(K) + R*(AMEAN - A(K))
   20 CONTINUE
      END
