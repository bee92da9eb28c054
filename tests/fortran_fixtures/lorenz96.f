C adfort: routine=l96 dep=x indep=x,forc
C adfort: init n=40 nt=20 dt=0.01 x=-2:8 forc=7.5:8.5
C adfort: bench n=4000 nt=500
C
C     Lorenz-96 model, dX(i)/dt = (X(i+1) - X(i-2))*X(i-1) - X(i) + F,
C     cyclic in i, integrated with Heun's method (RK2) over NT steps.
C     FORTRAN 77: fixed form, labelled DO loops (the time loop and the
C     last inner loop share label 30), work arrays of a PARAMETER size.
C
      SUBROUTINE L96(N, NT, DT, FORC, X)
      IMPLICIT NONE
      INTEGER N, NT
      DOUBLE PRECISION DT, FORC, X(N)
      INTEGER NMAX
      PARAMETER (NMAX = 10000)
      DOUBLE PRECISION D1(NMAX), D2(NMAX), XT(NMAX)
      INTEGER I, K, IM2, IM1, IP1
C
      DO 30 K = 1, NT
      DO 10 I = 1, N
         IM2 = MOD(I + N - 3, N) + 1
         IM1 = MOD(I + N - 2, N) + 1
         IP1 = MOD(I, N) + 1
         D1(I) = (X(IP1) - X(IM2))*X(IM1) - X(I) + FORC
         XT(I) = X(I) + DT*D1(I)
   10 CONTINUE
      DO 20 I = 1, N
         IM2 = MOD(I + N - 3, N) + 1
         IM1 = MOD(I + N - 2, N) + 1
         IP1 = MOD(I, N) + 1
         D2(I) = (XT(IP1) - XT(IM2))*XT(IM1) - XT(I) + FORC
   20 CONTINUE
      DO 30 I = 1, N
         X(I) = X(I) + 0.5D0*DT*(D1(I) + D2(I))
   30 CONTINUE
      END
