C adfort: routine=dintfj dep=fvec,fjac indep=x
C adfort: init n=6 ldfjac=6 x=-0.5:0.5
C
C     Discrete integral equation function (Moré, Garbow and Hillstrom,
C     problem 29): residuals and analytic Jacobian.  The quadrature sums
C     run up to k and down from n to k+1 (a loop with a negative step,
C     guarded against zero trips), reusing TJ and TEMP each iteration.
C
      SUBROUTINE DINTFJ(N, X, FVEC, FJAC, LDFJAC)
      IMPLICIT NONE
      INTEGER N, LDFJAC
      DOUBLE PRECISION X(N), FVEC(N), FJAC(LDFJAC,N)
      INTEGER J, K
      DOUBLE PRECISION H, SUM1, SUM2, TEMP, TJ, TK
      H = 1.0D0/DBLE(N+1)
      DO 10 K = 1, N
         FVEC(K) = X(K)
   10 CONTINUE
      DO 40 K = 1, N
         TK = DBLE(K)*H
         SUM1 = 0.0D0
         DO 20 J = 1, K
            TJ = DBLE(J)*H
            TEMP = (X(J) + TJ + 1.0D0)**3
            SUM1 = SUM1 + TJ*TEMP
   20    CONTINUE
         SUM2 = 0.0D0
         IF (N .GE. K+1) THEN
            DO 30 J = N, K+1, -1
               TJ = DBLE(J)*H
               TEMP = (X(J) + TJ + 1.0D0)**3
               SUM2 = SUM2 + (1.0D0 - TJ)*TEMP
   30       CONTINUE
         END IF
         FVEC(K) = FVEC(K) + H*((1.0D0 - TK)*SUM1 + TK*SUM2)/2.0D0
   40 CONTINUE
      DO 60 K = 1, N
         TK = DBLE(K)*H
         DO 50 J = 1, N
            TJ = DBLE(J)*H
            TEMP = 3.0D0*(X(J) + TJ + 1.0D0)**2
            FJAC(K,J) = H*MIN(TJ*(1.0D0-TK), TK*(1.0D0-TJ))*TEMP/2.0D0
   50    CONTINUE
         FJAC(K,K) = FJAC(K,K) + 1.0D0
   60 CONTINUE
      END
