C adfort: routine=brnfj dep=fvec,fjac indep=x
C adfort: init n=5 ldfjac=5 x=0.5:1.5
C
C     Brown almost-linear function (Moré, Garbow and Hillstrom, problem
C     27): residuals and analytic Jacobian.  The last row is the product
C     of all x divided by x(j), recomputed without the division when
C     x(j) = 0 (an IF on a temporary the loop writes each iteration).
C
      SUBROUTINE BRNFJ(N, X, FVEC, FJAC, LDFJAC)
      IMPLICIT NONE
      INTEGER N, LDFJAC
      DOUBLE PRECISION X(N), FVEC(N), FJAC(LDFJAC,N)
      INTEGER J, K
      DOUBLE PRECISION PROD, SUM, TEMP
      SUM = -DBLE(N+1)
      PROD = 1.0D0
      DO 10 J = 1, N
         SUM = SUM + X(J)
         PROD = X(J)*PROD
   10 CONTINUE
      DO 20 K = 1, N-1
         FVEC(K) = X(K) + SUM
   20 CONTINUE
      FVEC(N) = PROD - 1.0D0
      PROD = 1.0D0
      DO 30 J = 1, N
         PROD = X(J)*PROD
   30 CONTINUE
      DO 50 J = 1, N
         TEMP = X(J)
         IF (TEMP .EQ. 0.0D0) THEN
            TEMP = 1.0D0
            PROD = 1.0D0
            DO 40 K = 1, N
               IF (K .NE. J) PROD = X(K)*PROD
   40       CONTINUE
         END IF
         FJAC(N,J) = PROD/TEMP
   50 CONTINUE
      DO 70 J = 1, N
         DO 60 K = 1, N-1
            FJAC(K,J) = 1.0D0
   60    CONTINUE
         FJAC(J,J) = 2.0D0
   70 CONTINUE
      FJAC(N,N) = PROD/X(N)
      END
