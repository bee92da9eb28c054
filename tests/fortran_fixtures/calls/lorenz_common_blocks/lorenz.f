C     Lorenz-63 model written the F77 way: parameters and state in COMMON
C     blocks, set and advanced by called routines that name the members
C     differently; the cost is accumulated from the state in COMMON.
      SUBROUTINE SETPAR(S, R, B)
      DOUBLE PRECISION S, R, B
      DOUBLE PRECISION SIGMA, RHO, BETA
      COMMON /PARAM/ SIGMA, RHO, BETA
      SIGMA = S
      RHO = R
      BETA = B
      RETURN
      END

      SUBROUTINE TEND(DX, DY, DZ)
      DOUBLE PRECISION DX, DY, DZ
      DOUBLE PRECISION SIG, RH, BET, XS, YS, ZS
      COMMON /PARAM/ SIG, RH, BET
      COMMON /STATE/ XS, YS, ZS
      DX = SIG*(YS - XS)
      DY = XS*(RH - ZS) - YS
      DZ = XS*YS - BET*ZS
      RETURN
      END

      SUBROUTINE STEP(DT)
      DOUBLE PRECISION DT
      DOUBLE PRECISION X, Y, Z, DX, DY, DZ
      COMMON /STATE/ X, Y, Z
      CALL TEND(DX, DY, DZ)
      X = X + DT*DX
      Y = Y + DT*DY
      Z = Z + DT*DZ
      RETURN
      END

      SUBROUTINE RUN(NT, DT, S, R, B, X0, COST)
      INTEGER NT
      DOUBLE PRECISION DT, S, R, B, X0(3), COST
      DOUBLE PRECISION X, Y, Z
      COMMON /STATE/ X, Y, Z
      INTEGER IT
      CALL SETPAR(S, R, B)
      X = X0(1)
      Y = X0(2)
      Z = X0(3)
      COST = 0.0D0
      DO 10 IT = 1, NT
        CALL STEP(DT)
        COST = COST + 0.5D0*(X**2 + Y**2 + Z**2)*DT
   10 CONTINUE
      RETURN
      END
