C adfort: routine=dkowfj dep=fvec,fjac indep=x
C adfort: init m=11 n=4 ldfjac=11 x=0.1:0.4 task='FJ'
C
C     Kowalik-Osborne enzyme reaction problem (Moré, Garbow and
C     Hillstrom, problem 15) in the MINPACK-2 style: TASK = 'F', 'J' or
C     'FJ' asks for the residuals, the analytic Jacobian or both.
C
C        f(i) = y(i) - x1*(u(i)**2 + u(i)*x2)/(u(i)**2 + u(i)*x3 + x4)
C
C     The data are in DATA statements, the Jacobian reuses scalar
C     temporaries of the residual in every iteration, and column 3 is
C     built from columns 1 and 2 of the same row.
C
      SUBROUTINE DKOWFJ(M, N, X, FVEC, FJAC, LDFJAC, TASK)
      IMPLICIT NONE
      INTEGER M, N, LDFJAC
      DOUBLE PRECISION X(N), FVEC(M), FJAC(LDFJAC,N)
      CHARACTER*(*) TASK
      INTEGER I
      DOUBLE PRECISION TMP1, TMP2, TMP3, TMP4, U(11), Y(11)
      DATA U /4.0D0, 2.0D0, 1.0D0, 5.0D-1, 2.5D-1, 1.67D-1, 1.25D-1,
     *        1.0D-1, 8.33D-2, 7.14D-2, 6.25D-2/
      DATA Y /1.957D-1, 1.947D-1, 1.735D-1, 1.6D-1, 8.44D-2, 6.27D-2,
     *        4.56D-2, 3.42D-2, 3.23D-2, 2.35D-2, 2.46D-2/
C
      IF (TASK .EQ. 'F' .OR. TASK .EQ. 'FJ') THEN
         DO 10 I = 1, M
            TMP1 = U(I)*(U(I) + X(2))
            TMP2 = U(I)*(U(I) + X(3)) + X(4)
            FVEC(I) = Y(I) - X(1)*TMP1/TMP2
   10    CONTINUE
      END IF
      IF (TASK .EQ. 'J' .OR. TASK .EQ. 'FJ') THEN
         DO 20 I = 1, M
            TMP1 = U(I)*(U(I) + X(2))
            TMP2 = U(I)*(U(I) + X(3)) + X(4)
            TMP3 = -X(1)*U(I)/TMP2
            TMP4 = TMP1/TMP2
            FJAC(I,1) = -TMP4
            FJAC(I,2) = TMP3
            FJAC(I,4) = X(1)*TMP4/TMP2
            FJAC(I,3) = U(I)*FJAC(I,4)
   20    CONTINUE
      END IF
      END
