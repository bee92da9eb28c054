C adfort: routine=l96run dep=cost indep=x0,forc
C adfort: init n=40 nt=10 dt=0.005 forc=7.5:8.5 x0=-2:8 xobs=-2:8
C adfort: bench n=2000 nt=400
C
C     Lorenz-96 model dX(i)/dt = (X(i+1) - X(i-2))*X(i-1) - X(i) + F,
C     cyclic in i, integrated with the classical fourth-order Runge-Kutta
C     scheme over NT steps.  COST is the misfit of the final state to
C     observations XOBS.  FORTRAN 77: fixed form, labelled DO loops,
C     work arrays of a PARAMETER size, no modules.
C
      SUBROUTINE L96RUN(N, NT, DT, FORC, X0, XOBS, COST)
      IMPLICIT NONE
      INTEGER N, NT
      DOUBLE PRECISION DT, FORC, X0(N), XOBS(N), COST
      INTEGER NMAX
      PARAMETER (NMAX = 10000)
      DOUBLE PRECISION X(NMAX)
      INTEGER I, K
C
      DO 10 I = 1, N
        X(I) = X0(I)
   10 CONTINUE
      DO 20 K = 1, NT
        CALL L96RK4(N, DT, FORC, X)
   20 CONTINUE
      COST = 0.0D0
      DO 30 I = 1, N
        COST = COST + 0.5D0*(X(I) - XOBS(I))**2
   30 CONTINUE
      RETURN
      END
C
C     One RK4 step of length DT, X updated in place.
C
      SUBROUTINE L96RK4(N, DT, FORC, X)
      IMPLICIT NONE
      INTEGER N
      DOUBLE PRECISION DT, FORC, X(N)
      INTEGER NMAX
      PARAMETER (NMAX = 10000)
      DOUBLE PRECISION XT(NMAX), K1(NMAX), K2(NMAX), K3(NMAX),
     &                 K4(NMAX)
      INTEGER I
C
      CALL L96TND(N, FORC, X, K1)
      DO 10 I = 1, N
        XT(I) = X(I) + 0.5D0*DT*K1(I)
   10 CONTINUE
      CALL L96TND(N, FORC, XT, K2)
      DO 20 I = 1, N
        XT(I) = X(I) + 0.5D0*DT*K2(I)
   20 CONTINUE
      CALL L96TND(N, FORC, XT, K3)
      DO 30 I = 1, N
        XT(I) = X(I) + DT*K3(I)
   30 CONTINUE
      CALL L96TND(N, FORC, XT, K4)
      DO 40 I = 1, N
        X(I) = X(I) + DT/6.0D0*(K1(I) + 2.0D0*K2(I) + 2.0D0*K3(I)
     &         + K4(I))
   40 CONTINUE
      RETURN
      END
C
C     Tendency of the Lorenz-96 model (cyclic neighbours).
C
      SUBROUTINE L96TND(N, FORC, X, DXDT)
      IMPLICIT NONE
      INTEGER N
      DOUBLE PRECISION FORC, X(N), DXDT(N)
      INTEGER I, IM2, IM1, IP1
C
      DO 10 I = 1, N
        IM2 = I - 2
        IM1 = I - 1
        IP1 = I + 1
        IF (IM2 .LT. 1) IM2 = IM2 + N
        IF (IM1 .LT. 1) IM1 = IM1 + N
        IF (IP1 .GT. N) IP1 = IP1 - N
        DXDT(I) = (X(IP1) - X(IM2))*X(IM1) - X(I) + FORC
   10 CONTINUE
      RETURN
      END
