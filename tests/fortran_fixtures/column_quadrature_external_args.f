C     A column integral by 5-point Gauss-Legendre quadrature in the style
C     of QUADPACK and MINPACK: the library routine QGAUS5 takes the
C     integrand as an EXTERNAL function argument, RESID2 a SUBROUTINE
C     argument (MINPACK's FCN) that it passes on to EVAL2.  The user's
C     routine passes its own function and subroutine, which read their
C     parameter from a COMMON block (the F77 idiom for closures).
C adfort: routine=colint dep=total indep=p
C adfort: init p=0.5:1.5 h=1.0:2.0
      SUBROUTINE COLINT(P, H, TOTAL)
      DOUBLE PRECISION P, H, TOTAL, PC, ANS, RES(2)
      COMMON /DECAY/ PC
      EXTERNAL PROFIL, TWOVAL
      PC = P
      CALL QGAUS5(PROFIL, 0.0D0, H, ANS)
      CALL RESID2(TWOVAL, H, RES)
      TOTAL = ANS + RES(1)*RES(2)
      END

      DOUBLE PRECISION FUNCTION PROFIL(Z)
      DOUBLE PRECISION Z, PC
      COMMON /DECAY/ PC
      PROFIL = EXP(-PC*Z)*(1.0D0 + 0.1D0*Z*Z)
      END

      SUBROUTINE TWOVAL(X, F)
      DOUBLE PRECISION X, F(2), PC
      COMMON /DECAY/ PC
      F(1) = SIN(PC*X)
      F(2) = PC*X**2
      END

      SUBROUTINE QGAUS5(F, A, B, RESULT)
      DOUBLE PRECISION F, A, B, RESULT, XM, XR, DX, W(3), X(3)
      INTEGER J
      EXTERNAL F
      DATA W /0.5688888888888889D0, 0.4786286704993665D0,
     *        0.2369268850561891D0/
      DATA X /0.0D0, 0.5384693101056831D0, 0.9061798459386640D0/
      XM = 0.5D0*(B + A)
      XR = 0.5D0*(B - A)
      RESULT = W(1)*F(XM)
      DO 10 J = 2, 3
         DX = XR*X(J)
         RESULT = RESULT + W(J)*(F(XM + DX) + F(XM - DX))
   10 CONTINUE
      RESULT = XR*RESULT
      END

      SUBROUTINE RESID2(FCN, X, FVEC)
      DOUBLE PRECISION X, FVEC(2)
      EXTERNAL FCN
      CALL EVAL2(FCN, 2.0D0*X, FVEC)
      END

      SUBROUTINE EVAL2(FCN, X, FVEC)
      DOUBLE PRECISION X, FVEC(2)
      EXTERNAL FCN
      CALL FCN(X, FVEC)
      FVEC(1) = FVEC(1) + 1.0D0
      END
