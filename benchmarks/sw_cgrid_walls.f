C adfort: routine=SWRUN dep=COST indep=H0,DEPTH
C adfort: init NX=6 NY=5 NT=4 H0=-0.1:0.1 DEPTH=50:100 HOBS=-0.1:0.1
C adfort: bench NX=120 NY=100 NT=40
C
C     Linear shallow water on an Arakawa C grid, forward-backward time
C     stepping, walls on all sides.  F77: a COMMON block of grid
C     constants, labelled loops, a boundary routine called every step.
C
      SUBROUTINE SWRUN(NX, NY, NT, H0, DEPTH, HOBS, COST)
      IMPLICIT NONE
      INTEGER NX, NY, NT
      DOUBLE PRECISION H0(NX,NY), DEPTH(NX,NY), HOBS(NX,NY), COST
      DOUBLE PRECISION DT, DX, G, F
      COMMON /GRIDC/ DT, DX, G, F
      INTEGER MX, MY
      PARAMETER (MX = 200, MY = 200)
      DOUBLE PRECISION U(MX+1,MY), V(MX,MY+1), H(MX,MY)
      INTEGER I, J, IT
      DT = 20.0D0
      DX = 1.0D4
      G = 9.81D0
      F = 1.0D-4
      DO 20 J = 1, NY
        DO 10 I = 1, NX
          H(I,J) = H0(I,J)
   10   CONTINUE
   20 CONTINUE
      DO 40 J = 1, NY
        DO 30 I = 1, NX + 1
          U(I,J) = 0.0D0
   30   CONTINUE
   40 CONTINUE
      DO 60 J = 1, NY + 1
        DO 50 I = 1, NX
          V(I,J) = 0.0D0
   50   CONTINUE
   60 CONTINUE
      DO 100 IT = 1, NT
        CALL SWSTEP(NX, NY, MX, MY, U, V, H, DEPTH)
        CALL SWWALL(NX, NY, MX, MY, U, V)
  100 CONTINUE
      COST = 0.0D0
      DO 120 J = 1, NY
        DO 110 I = 1, NX
          COST = COST + (H(I,J) - HOBS(I,J))**2
  110   CONTINUE
  120 CONTINUE
      RETURN
      END
C
      SUBROUTINE SWSTEP(NX, NY, MX, MY, U, V, H, DEPTH)
      IMPLICIT NONE
      INTEGER NX, NY, MX, MY
      DOUBLE PRECISION U(MX+1,MY), V(MX,MY+1), H(MX,MY), DEPTH(NX,NY)
      DOUBLE PRECISION DT, DX, G, F
      COMMON /GRIDC/ DT, DX, G, F
      DOUBLE PRECISION VBAR, UBAR, HU, HV
      INTEGER I, J
C     momentum first (uses the old h), Coriolis from averaged neighbours
      DO 20 J = 1, NY
        DO 10 I = 2, NX
          VBAR = 0.25D0*(V(I-1,J) + V(I,J) + V(I-1,J+1) + V(I,J+1))
          U(I,J) = U(I,J) - DT*G*(H(I,J) - H(I-1,J))/DX + DT*F*VBAR
   10   CONTINUE
   20 CONTINUE
      DO 40 J = 2, NY
        DO 30 I = 1, NX
          UBAR = 0.25D0*(U(I,J-1) + U(I+1,J-1) + U(I,J) + U(I+1,J))
          V(I,J) = V(I,J) - DT*G*(H(I,J) - H(I,J-1))/DX - DT*F*UBAR
   30   CONTINUE
   40 CONTINUE
C     continuity with the new velocities (forward-backward)
      DO 60 J = 1, NY
        DO 50 I = 1, NX
          HU = U(I+1,J) - U(I,J)
          HV = V(I,J+1) - V(I,J)
          H(I,J) = H(I,J) - DT*DEPTH(I,J)*(HU + HV)/DX
   50   CONTINUE
   60 CONTINUE
      RETURN
      END
C
      SUBROUTINE SWWALL(NX, NY, MX, MY, U, V)
      IMPLICIT NONE
      INTEGER NX, NY, MX, MY
      DOUBLE PRECISION U(MX+1,MY), V(MX,MY+1)
      INTEGER I, J
      DO 10 J = 1, NY
        U(1,J) = 0.0D0
        U(NX+1,J) = 0.0D0
   10 CONTINUE
      DO 20 I = 1, NX
        V(I,1) = 0.0D0
        V(I,NY+1) = 0.0D0
   20 CONTINUE
      RETURN
      END
