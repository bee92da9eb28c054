C adfort: routine=extfj dep=fvec,fjac indep=x
C adfort: init n=8 ldfjac=8 x=0.5:1.5
C
C     A sum of three classic square systems on one Jacobian (Moré,
C     Garbow and Hillstrom, problems 13, 31 and 21): the extended Powell
C     singular function in blocks of four (DO with step 4), the Broyden
C     banded function (inner loops over a band whose bounds K1, K2 the
C     outer loop recomputes) and the extended Rosenbrock function on
C     pairs, counted down with step -2.  TEMP and TEMP1 are reused by all.
C
      SUBROUTINE EXTFJ(N, X, FVEC, FJAC, LDFJAC)
      IMPLICIT NONE
      INTEGER N, LDFJAC
      DOUBLE PRECISION X(N), FVEC(N), FJAC(LDFJAC,N)
      INTEGER I, J, K, K1, K2, ML, MU
      DOUBLE PRECISION TEMP, TEMP1, TEMP2
      DO 20 J = 1, N
         DO 10 K = 1, N
            FJAC(K,J) = 0.0D0
   10    CONTINUE
   20 CONTINUE
C     Extended Powell singular, in blocks of four.
      DO 30 J = 1, N, 4
         TEMP = X(J+1) - 2.0D0*X(J+2)
         TEMP1 = X(J) - X(J+3)
         FVEC(J) = X(J) + 10.0D0*X(J+1)
         FVEC(J+1) = SQRT(5.0D0)*(X(J+2) - X(J+3))
         FVEC(J+2) = TEMP**2
         FVEC(J+3) = SQRT(10.0D0)*TEMP1**2
         FJAC(J,J) = 1.0D0
         FJAC(J,J+1) = 10.0D0
         FJAC(J+1,J+2) = SQRT(5.0D0)
         FJAC(J+1,J+3) = -FJAC(J+1,J+2)
         FJAC(J+2,J+1) = 2.0D0*TEMP
         FJAC(J+2,J+2) = -2.0D0*FJAC(J+2,J+1)
         FJAC(J+3,J) = 2.0D0*SQRT(10.0D0)*TEMP1
         FJAC(J+3,J+3) = -FJAC(J+3,J)
   30 CONTINUE
C     Broyden banded added on top.
      ML = 2
      MU = 1
      DO 60 K = 1, N
         K1 = MAX(1, K-ML)
         K2 = MIN(K+MU, N)
         TEMP = 0.0D0
         DO 40 J = K1, K2
            IF (J .NE. K) TEMP = TEMP + X(J)*(1.0D0 + X(J))
   40    CONTINUE
         TEMP2 = X(K)*(2.0D0 + 5.0D0*X(K)**2) + 1.0D0 - TEMP
         FVEC(K) = FVEC(K) + TEMP2
         DO 50 J = K1, K2
            IF (J .NE. K) FJAC(K,J) = FJAC(K,J) - (1.0D0 + 2.0D0*X(J))
   50    CONTINUE
         FJAC(K,K) = FJAC(K,K) + 2.0D0 + 15.0D0*X(K)**2
   60 CONTINUE
C     Extended Rosenbrock on odd/even pairs, counted down.
      DO 70 J = N-1, 1, -2
         TEMP1 = 1.0D0 - X(J)
         FVEC(J+1) = FVEC(J+1) + TEMP1
         FJAC(J+1,J) = FJAC(J+1,J) - 1.0D0
         TEMP1 = X(J+1) - X(J)**2
         FVEC(J) = FVEC(J) + 10.0D0*TEMP1
         FJAC(J,J) = FJAC(J,J) - 20.0D0*X(J)
         FJAC(J,J+1) = FJAC(J,J+1) + 10.0D0
   70 CONTINUE
      END
