C adfort: routine=wsrun dep=cost indep=x0,c
C adfort: init n=7 nt=3 c=0.5:1.5 x0=-1:1
C
C     FORTRAN 77 work arrays of a PARAMETER size NMAX used on 1:N only,
C     given whole to routines declaring them X(N): the callees reach
C     their first N elements.  WSGRAD sets only the interior of G and
C     never reads it; WSRUN sets G(1) and G(N) itself and reads all of G
C     after the calls; WSSTEP hands its work array XM over to its reversal
C     (the tape: XM(1:N) only).
C
      SUBROUTINE WSRUN(N, NT, C, X0, COST)
      IMPLICIT NONE
      INTEGER N, NT
      DOUBLE PRECISION C, X0(N), COST
      INTEGER NMAX
      PARAMETER (NMAX = 50)
      DOUBLE PRECISION X(NMAX), G(NMAX)
      INTEGER I, K
      DO 10 I = 1, N
        X(I) = X0(I)
   10 CONTINUE
      DO 20 K = 1, NT
        G(1) = SIN(X(1))
        G(N) = X(N)*X(1)
        CALL WSGRAD(N, C, X, G)
        CALL WSSTEP(N, C, X, G)
   20 CONTINUE
      COST = 0.0D0
      DO 30 I = 1, N
        COST = COST + X(I)**2*G(I)
   30 CONTINUE
      RETURN
      END
C
C     Centred differences on the interior: G(2:N-1) only, G never read.
C
      SUBROUTINE WSGRAD(N, C, X, G)
      IMPLICIT NONE
      INTEGER N
      DOUBLE PRECISION C, X(N), G(N)
      INTEGER I
      DO 10 I = 2, N - 1
        G(I) = C*(X(I+1) - X(I-1))*X(I)
   10 CONTINUE
      RETURN
      END
C
C     A midpoint step with a work array of NMAX elements set on 1:N.
C
      SUBROUTINE WSSTEP(N, C, X, G)
      IMPLICIT NONE
      INTEGER N
      DOUBLE PRECISION C, X(N), G(N)
      INTEGER NMAX
      PARAMETER (NMAX = 50)
      DOUBLE PRECISION XM(NMAX)
      INTEGER I
      DO 10 I = 1, N
        XM(I) = X(I) + 0.1D0*G(I)*X(I)
   10 CONTINUE
      DO 20 I = 1, N
        X(I) = X(I) + 0.1D0*C*XM(I)*XM(I)
   20 CONTINUE
      RETURN
      END
