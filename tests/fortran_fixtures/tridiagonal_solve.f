C adfort: routine=tridag dep=x indep=a,b,c,d
C adfort: init n=30 a=-1:-0.2 b=3:4 c=-1:-0.2 d=0.5:1.5
C adfort: shape a=n b=n c=n d=n
C adfort: bench n=9000
C
C     Thomas algorithm for a diagonally dominant tridiagonal system
C     A(I)*X(I-1) + B(I)*X(I) + C(I)*X(I+1) = D(I), I = 1..N
C     (A(1) and C(N) unused).  FORTRAN 77: assumed-size coefficient
C     arrays, labelled DO loops, the back substitution runs with step -1,
C     work arrays of a PARAMETER size.
C
      SUBROUTINE TRIDAG(N, A, B, C, D, X)
      IMPLICIT NONE
      INTEGER N
      DOUBLE PRECISION A(*), B(*), C(*), D(*), X(N)
      INTEGER NMAX
      PARAMETER (NMAX = 10000)
      DOUBLE PRECISION CP(NMAX), DP(NMAX), DENOM
      INTEGER I
C
      CP(1) = C(1)/B(1)
      DP(1) = D(1)/B(1)
      DO 10 I = 2, N
         DENOM = B(I) - A(I)*CP(I-1)
         CP(I) = C(I)/DENOM
         DP(I) = (D(I) - A(I)*DP(I-1))/DENOM
   10 CONTINUE
      X(N) = DP(N)
      DO 20 I = N - 1, 1, -1
         X(I) = DP(I) - CP(I)*X(I+1)
   20 CONTINUE
      END
