C adfort: routine=LWRUN dep=COST indep=Q,VEL
C adfort: init N=12 NT=5 Q=0.5:1.5 VEL=-0.9:0.9 QOBS=0.5:1.5
C adfort: bench N=4000 NT=150
C
C     Flux-limited Lax-Wendroff (Sweby) advection of a tracer by a
C     cell-face velocity on a periodic grid, fixed-form F77: implicit
C     typing, a COMMON block of grid constants set by the driver,
C     labelled DO loops, the face velocities' sign choosing the upwind
C     side, a monotonised-central limiter FUNCTION called per face,
C     a step routine updating the tracer in place through a work array.
C
      SUBROUTINE LWRUN(N, NT, Q, VEL, QOBS, COST)
      IMPLICIT DOUBLE PRECISION (A-H, O-Z)
      DIMENSION Q(N), VEL(N), QOBS(N)
      COMMON /GRID/ DX, DT, EPSL
      DX = 1.0D0
      DT = 0.5D0
      EPSL = 1.0D-12
      DO 10 IT = 1, NT
        CALL LWSTEP(N, Q, VEL)
   10 CONTINUE
      COST = 0.0D0
      DO 20 I = 1, N
        COST = COST + 0.5D0*(Q(I) - QOBS(I))**2
   20 CONTINUE
      RETURN
      END
C
      DOUBLE PRECISION FUNCTION PHIMC(R)
      IMPLICIT DOUBLE PRECISION (A-H, O-Z)
      PHIMC = MAX(0.0D0, MIN(2.0D0*R, 0.5D0*(1.0D0 + R), 2.0D0))
      RETURN
      END
C
      SUBROUTINE LWSTEP(N, Q, VEL)
      IMPLICIT DOUBLE PRECISION (A-H, O-Z)
      DIMENSION Q(N), VEL(N)
      COMMON /GRID/ DX, DT, EPSL
      PARAMETER (NMAX = 20000)
      DIMENSION F(0:NMAX)
C     face I lies between cells I and I+1 (periodic)
      DO 30 I = 1, N
        IM = I - 1
        IF (IM .LT. 1) IM = N
        IP = I + 1
        IF (IP .GT. N) IP = 1
        IPP = IP + 1
        IF (IPP .GT. N) IPP = 1
        C = VEL(I)*DT/DX
        DQ = Q(IP) - Q(I)
        IF (ABS(DQ) .LT. EPSL) DQ = SIGN(EPSL, DQ)
        IF (C .GE. 0.0D0) THEN
          R = (Q(I) - Q(IM))/DQ
          F(I) = VEL(I)*(Q(I) + 0.5D0*(1.0D0 - C)*PHIMC(R)*DQ)
        ELSE
          R = (Q(IPP) - Q(IP))/DQ
          F(I) = VEL(I)*(Q(IP) - 0.5D0*(1.0D0 + C)*PHIMC(R)*DQ)
        END IF
   30 CONTINUE
      F(0) = F(N)
      DO 40 I = 1, N
        Q(I) = Q(I) - DT/DX*(F(I) - F(I-1))
   40 CONTINUE
      RETURN
      END
