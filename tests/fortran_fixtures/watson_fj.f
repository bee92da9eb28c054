C adfort: routine=watfj dep=fvec,fjac indep=x
C adfort: init m=31 n=6 ldfjac=31 x=-0.5:0.5
C
C     Watson function (Moré, Garbow and Hillstrom, problem 20): residuals
C     and analytic Jacobian of a polynomial fit on 29 points.  Three
C     inner loops per point share the temporaries DX (a running power),
C     S1, S2 and TEMP, reset before each loop and read after it.
C
      SUBROUTINE WATFJ(M, N, X, FVEC, FJAC, LDFJAC)
      IMPLICIT NONE
      INTEGER M, N, LDFJAC
      DOUBLE PRECISION X(N), FVEC(M), FJAC(LDFJAC,N)
      INTEGER I, J
      DOUBLE PRECISION DIV, DX, S1, S2, TEMP, TI
      DO 40 I = 1, 29
         DIV = DBLE(I)/29.0D0
         S1 = 0.0D0
         DX = 1.0D0
         DO 10 J = 2, N
            S1 = S1 + DBLE(J-1)*DX*X(J)
            DX = DIV*DX
   10    CONTINUE
         S2 = 0.0D0
         DX = 1.0D0
         DO 20 J = 1, N
            S2 = S2 + DX*X(J)
            DX = DIV*DX
   20    CONTINUE
         FVEC(I) = S1 - S2**2 - 1.0D0
         TEMP = 2.0D0*DIV*S2
         TI = 1.0D0/DIV
         DX = 1.0D0/DIV
         DO 30 J = 1, N
            FJAC(I,J) = DX*(DBLE(J-1)*TI - TEMP)
            DX = DIV*DX
   30    CONTINUE
   40 CONTINUE
      FVEC(30) = X(1)
      FVEC(31) = X(2) - X(1)**2 - 1.0D0
      DO 50 J = 1, N
         FJAC(30,J) = 0.0D0
         FJAC(31,J) = 0.0D0
   50 CONTINUE
      FJAC(30,1) = 1.0D0
      FJAC(31,1) = -2.0D0*X(1)
      FJAC(31,2) = 1.0D0
      END
