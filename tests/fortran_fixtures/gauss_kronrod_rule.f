C adfort: routine=qkrule dep=result,abserr indep=p,b
C adfort: init n=3 irule=2 a=0 b=2:2.5 p=0.5:1.5
C adfort: bench n=200000
C
C     Composite quadrature of a damped profile
C         F(T) = P(1)*EXP(-P(2)*T)*T**2 + P(3)/(1 + T**2)
C     over [A, B] on N panels, QUADPACK style: IRULE picks the rule
C     with a computed GO TO (1 midpoint, 2 Simpson, 3 two-point Gauss,
C     anything else the midpoint sum), the integrand is a statement
C     function (and the Simpson midpoint term a second one using it),
C     degenerate input returns early, and ABSERR compares the rule
C     with the midpoint sum.
C
      SUBROUTINE QKRULE(N, IRULE, A, B, P, RESULT, ABSERR)
      INTEGER N, IRULE, I
      DOUBLE PRECISION A, B, P(3), RESULT, ABSERR
      DOUBLE PRECISION H, T, C, RESMID, F, FMID, X, HALF, GAUSS
      PARAMETER (HALF = 0.5D0, GAUSS = 0.5773502691896258D0)
      F(X) = P(1)*EXP(-P(2)*X)*X**2 + P(3)/(1.0D0 + X*X)
      FMID(X) = F(X + HALF*H)
C
      RESULT = 0.0D0
      ABSERR = 0.0D0
      IF (N .LE. 0) RETURN
      H = (B - A)/DFLOAT(N)
      IF (H .EQ. 0.0D0) RETURN
      RESMID = 0.0D0
      DO 10 I = 1, N
         C = A + (DFLOAT(I) - HALF)*H
         RESMID = RESMID + F(C)
   10 CONTINUE
      RESMID = RESMID*H
      GO TO (20, 40, 60), IRULE
C     unknown rule: the midpoint sum, no estimate
      RESULT = RESMID
      RETURN
C     midpoint
   20 RESULT = RESMID
      GO TO 80
C     Simpson
   40 DO 50 I = 1, N
         T = A + DFLOAT(I - 1)*H
         RESULT = RESULT + F(T) + 4.0D0*FMID(T) + F(T + H)
   50 CONTINUE
      RESULT = RESULT*H/6.0D0
      GO TO 80
C     two-point Gauss
   60 DO 70 I = 1, N
         C = A + (DFLOAT(I) - HALF)*H
         RESULT = RESULT + HALF*H*(F(C - HALF*H*GAUSS)
     &                           + F(C + HALF*H*GAUSS))
   70 CONTINUE
   80 ABSERR = ABS(RESULT - RESMID)
      IF (ABSERR .GT. 1.0D-2*ABS(RESULT)) GO TO 90
      RETURN
C     a poor estimate: widen it by the panel width
   90 ABSERR = ABSERR + H*ABSERR
      RETURN
      END
