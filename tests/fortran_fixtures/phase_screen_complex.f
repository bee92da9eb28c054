C adfort: routine=phscr dep=y indep=x,a
C adfort: init n=8 x=0.5:1.5 a=0.2:0.9
C adfort: shape x=n
C
C     Energy of a real signal seen through a passive phase screen, in the
C     style of old FORTRAN 77 optics codes: DOUBLE COMPLEX work variables
C     and the GNU specific intrinsics DCMPLX, DCONJG, DIMAG, DREAL, CDABS
C     (written as standard complex(8) and generic intrinsics in the
C     adjoint, which compiles with -std=f2008).
C
      SUBROUTINE PHSCR(N, X, A, Y)
      INTEGER N, I
      DOUBLE PRECISION X(N), A, Y, PH, W, S
      DOUBLE COMPLEX Z, ZS
      Y = 0.0D0
      ZS = DCMPLX(0.0D0, 0.0D0)
      DO 10 I = 1, N
         Z = DCMPLX(COS(0.3D0*I), SIN(0.3D0*I))
         ZS = ZS + Z*DCONJG(Z)
         PH = DBLE(Z*DCONJG(Z)) + DIMAG(Z)**2
         W = CDABS(Z + DCMPLX(1.0D0, 0.0D0))
         Y = Y + PH*W*X(I)**2 + A*SIN(X(I))
   10 CONTINUE
      S = DREAL(ZS)/N
      Y = Y*S
      END
