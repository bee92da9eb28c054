C     Van Leer limited upwind fluxes and a piecewise drag law, in the
C     style of 1970s F77 transport codes: three-way arithmetic IFs choose
C     the branch by the sign of a product or a difference, a two-way one
C     (IF (X) 10,20,20) guards the divide, and branches end by jumping to
C     the DO loop's terminal CONTINUE.
C adfort: routine=vanler dep=f,drag indep=q,u
C adfort: init n=9 ucrit=1.0 q=0.5:1.5 u=0.2:2.0
      SUBROUTINE VANLER(N, Q, U, UCRIT, F, DRAG)
      INTEGER N, I
      DOUBLE PRECISION Q(N), U(N), UCRIT, F(N), DRAG
      DOUBLE PRECISION DQL, DQR, R
      F(1) = Q(1)
      F(N) = Q(N)
      DO 30 I = 2, N-1
         DQL = Q(I) - Q(I-1)
         DQR = Q(I+1) - Q(I)
         IF (DQL*DQR) 10, 10, 20
   10    F(I) = Q(I)
         GO TO 30
   20    R = DQL/DQR
         F(I) = Q(I) + 0.5D0*DQR*(R + ABS(R))/(1.0D0 + ABS(R))
   30 CONTINUE
C     drag: linear below UCRIT, quadratic above, cubic blend between
      DRAG = 0.0D0
      DO 60 I = 1, N
         IF (U(I) - UCRIT) 40, 50, 55
   40    DRAG = DRAG + 0.8D0*UCRIT*U(I)
         GO TO 60
   50    DRAG = DRAG + 0.8D0*U(I)**2
         GO TO 60
   55    IF (U(I) - 2.0D0*UCRIT) 57, 58, 58
   57    DRAG = DRAG + 0.8D0*U(I)**2 + 0.1D0*(U(I) - UCRIT)**3
         GO TO 60
   58    DRAG = DRAG + 0.8D0*U(I)**2 + 0.1D0*UCRIT**3
   60 CONTINUE
      RETURN
      END
