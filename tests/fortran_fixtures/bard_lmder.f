C adfort: routine=bardfn dep=fjac indep=x
C adfort: init m=15 n=3 ldfjac=15 iflag=2 x=0.5:1.5
C
C     Bard's curve fit (Moré, Garbow and Hillstrom, problem 8) as the
C     FCN of an LMDER driver: IFLAG = 1 evaluates the residuals, IFLAG
C     = 2 the analytic Jacobian.  Differentiating the Jacobian branch
C     gives second derivatives (for a Newton or tensor method).
C
C        f(i) = y(i) - (x1 + u/(v*x2 + w*x3)),
C        u = i, v = 16 - i, w = min(u, v)
C
      SUBROUTINE BARDFN(M, N, X, FVEC, FJAC, LDFJAC, IFLAG)
      INTEGER M, N, LDFJAC, IFLAG
      DOUBLE PRECISION X(N), FVEC(M), FJAC(LDFJAC,N)
      INTEGER I
      DOUBLE PRECISION TMP1, TMP2, TMP3, TMP4, Y1(15)
      DATA Y1 /1.4D-1, 1.8D-1, 2.2D-1, 2.5D-1, 2.9D-1, 3.2D-1, 3.5D-1,
     *         3.9D-1, 3.7D-1, 5.8D-1, 7.3D-1, 9.6D-1, 1.34D0, 2.1D0,
     *         4.39D0/
C
      IF (IFLAG .EQ. 1) THEN
         DO 10 I = 1, M
            TMP1 = DBLE(I)
            TMP2 = DBLE(16 - I)
            TMP3 = TMP1
            IF (I .GT. 8) TMP3 = TMP2
            FVEC(I) = Y1(I) - (X(1) + TMP1/(X(2)*TMP2 + X(3)*TMP3))
   10    CONTINUE
      ELSE
         DO 20 I = 1, M
            TMP1 = DBLE(I)
            TMP2 = DBLE(16 - I)
            TMP3 = TMP1
            IF (I .GT. 8) TMP3 = TMP2
            TMP4 = (X(2)*TMP2 + X(3)*TMP3)**2
            FJAC(I,1) = -1.0D0
            FJAC(I,2) = TMP1*TMP2/TMP4
            FJAC(I,3) = TMP1*TMP3/TMP4
   20    CONTINUE
      END IF
      END
