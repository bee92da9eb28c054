C     F77 column physics without INTENT declarations: the loop index and
C     constants are passed to routines whose dummies have no intent, the
C     level index comes back from a search routine and subscripts the
C     next call's arguments, and the driver's intent(in) array is passed on.
      SUBROUTINE LAYER(K, N, T, Q, DP, HEAT)
      INTEGER K, N
      DOUBLE PRECISION T(N), Q(N), DP, HEAT
      DOUBLE PRECISION ES
      ES = 6.112D0*EXP(17.67D0*(T(K) - 273.15D0)/(T(K) - 29.65D0))
      HEAT = HEAT + DP*Q(K)*ES/(1.0D3 + ES)
      RETURN
      END

      SUBROUTINE SCALE(NPOW, X)
      INTEGER NPOW
      DOUBLE PRECISION X
      X = X**NPOW/(1.0D0 + X**NPOW)
      RETURN
      END

      SUBROUTINE FINDLV(N, P, PT, K)
      INTEGER N, K, J
      DOUBLE PRECISION P(N), PT
      K = 2
      DO 20 J = 2, N - 1
        IF (P(J) .GT. PT) K = J
   20 CONTINUE
      RETURN
      END

      SUBROUTINE BUMP(K, A, W)
      INTEGER K
      DOUBLE PRECISION A, W
      W = W + A**2
      K = K - 1
      RETURN
      END

      SUBROUTINE COLUMN(N, T, Q, P, HEAT)
      INTEGER N
      DOUBLE PRECISION T(N), Q(N), P(N), HEAT
      INTEGER K
      DOUBLE PRECISION DP, W
      HEAT = 0.0D0
      DO 10 K = 1, N
        DP = 1.0D2*K
        CALL LAYER(K, N, T, Q, DP, HEAT)
   10 CONTINUE
      CALL SCALE(2, HEAT)
      CALL FINDLV(N, P, 5.0D4, K)
      W = 0.0D0
      CALL BUMP(K, T(K), W)
      CALL BUMP(K, Q(K), W)
      HEAT = HEAT + 1.0D-8*W*T(K+1)
      RETURN
      END
