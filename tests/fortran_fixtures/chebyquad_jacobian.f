C adfort: routine=chqjac dep=fjac indep=x
C adfort: init m=5 n=4 ldfjac=5 x=0.1:0.9
C
C     Analytic Jacobian of the Chebyquad residuals (Moré, Garbow and
C     Hillstrom, problem 35): column j holds the derivatives of the
C     shifted Chebyshev polynomials T_k(2 x_j - 1), k = 1..m, by the
C     three-term recurrence.  The recurrence rotates scalar temporaries
C     (TMP1..TMP4, TI) that each iteration writes and reads again; the
C     second derivatives come from differentiating FJAC.
C
      SUBROUTINE CHQJAC(M, N, X, FJAC, LDFJAC)
      IMPLICIT NONE
      INTEGER M, N, LDFJAC
      DOUBLE PRECISION X(N), FJAC(LDFJAC,N)
      INTEGER J, K
      DOUBLE PRECISION DX, TEMP, TI, TK, TMP1, TMP2, TMP3, TMP4
      TK = 1.0D0/DBLE(N)
      DO 20 J = 1, N
         TMP1 = 1.0D0
         TMP2 = 2.0D0*X(J) - 1.0D0
         TEMP = 2.0D0*TMP2
         TMP3 = 0.0D0
         TMP4 = 2.0D0
         DO 10 K = 1, M
            FJAC(K,J) = TK*TMP4
            TI = 4.0D0*TMP2 + TEMP*TMP4 - TMP3
            TMP3 = TMP4
            TMP4 = TI
            TI = TEMP*TMP2 - TMP1
            TMP1 = TMP2
            TMP2 = TI
   10    CONTINUE
   20 CONTINUE
      END
