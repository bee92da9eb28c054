C adfort: routine=LFRUN dep=COST indep=H0,U
C adfort: init N=14 NT=6 H0=1.0:2.0 U=0.1:0.5 HOBS=1.0:2.0
C adfort: bench N=5000 NT=80
C
C     Leapfrog advection of a layer thickness by cell-face velocities
C     with a Robert-Asselin time filter; the three time levels are
C     rotated by copying (HOLD <- H <- HNEW) every step.  The face value
C     is upwind plus a van Albada limited correction (FUNCTION VALBA,
C     SIGN/ABS/MAX).  The first step is a forward Euler step.  Fixed form
C     F77: COMMON blocks, PARAMETER, labelled DO loops, a GOTO for the
C     periodic index and the time loop, explicit-shape dummies.
C
      SUBROUTINE LFRUN(N, NT, H0, U, HOBS, COST)
      IMPLICIT NONE
      INTEGER N, NT
      DOUBLE PRECISION H0(N), U(N), HOBS(N), COST
      INTEGER NMAX
      PARAMETER (NMAX = 10000)
      DOUBLE PRECISION HOLD(NMAX), H(NMAX), HNEW(NMAX)
      DOUBLE PRECISION DX, DT, ASSEL
      COMMON /LFPAR/ DX, DT, ASSEL
      INTEGER I, IT
      DX = 1.0D3
      DT = 4.0D2
      ASSEL = 0.1D0
      DO 10 I = 1, N
        HOLD(I) = H0(I)
        H(I) = H0(I)
   10 CONTINUE
C     forward start
      CALL LFSTEP(N, HOLD, H, U, HNEW, 0.5D0)
      DO 15 I = 1, N
        H(I) = HNEW(I)
   15 CONTINUE
      IT = 1
   20 CONTINUE
      IF (IT .GE. NT) GOTO 40
        CALL LFSTEP(N, HOLD, H, U, HNEW, 1.0D0)
C       Robert-Asselin filter on the middle level, then rotate
        DO 30 I = 1, N
          HOLD(I) = H(I) + ASSEL*(HOLD(I) - 2.0D0*H(I) + HNEW(I))
          H(I) = HNEW(I)
   30   CONTINUE
        IT = IT + 1
      GOTO 20
   40 CONTINUE
      COST = 0.0D0
      DO 50 I = 1, N
        COST = COST + (H(I) - HOBS(I))**2
   50 CONTINUE
      COST = 0.5D0*COST
      RETURN
      END
C
      DOUBLE PRECISION FUNCTION VALBA(A, B)
      DOUBLE PRECISION A, B, EPS2
      PARAMETER (EPS2 = 1.0D-10)
      IF (A*B .LE. 0.0D0) THEN
        VALBA = 0.0D0
      ELSE
        VALBA = SIGN(1.0D0, A)*MAX(0.0D0, (A*B*(ABS(A) + ABS(B)))
     &          /(A*A + B*B + EPS2))
      END IF
      RETURN
      END
C
      SUBROUTINE LFFLUX(N, H, U, F)
      INTEGER N
      DOUBLE PRECISION H(N), U(N), F(0:N)
      DOUBLE PRECISION DX, DT, ASSEL
      COMMON /LFPAR/ DX, DT, ASSEL
      DOUBLE PRECISION VALBA, C, HF
      INTEGER I, IM, IP, IPP
      EXTERNAL VALBA
      DO 60 I = 1, N
        IM = I - 1
        IF (IM .LT. 1) IM = IM + N
        IP = I + 1
        IF (IP .GT. N) IP = IP - N
        IPP = IP + 1
        IF (IPP .GT. N) IPP = IPP - N
        C = U(I)*DT/DX
        IF (U(I) .GT. 0.0D0) THEN
          HF = H(I) + 0.5D0*(1.0D0 - C)*VALBA(H(I) - H(IM),
     &         H(IP) - H(I))
        ELSE
          HF = H(IP) - 0.5D0*(1.0D0 + C)*VALBA(H(IP) - H(I),
     &         H(IPP) - H(IP))
        END IF
        F(I) = U(I)*HF
   60 CONTINUE
      F(0) = F(N)
      RETURN
      END
C
      SUBROUTINE LFSTEP(N, HOLD, H, U, HNEW, FAC)
      INTEGER N
      DOUBLE PRECISION HOLD(N), H(N), U(N), HNEW(N), FAC
      DOUBLE PRECISION DX, DT, ASSEL
      COMMON /LFPAR/ DX, DT, ASSEL
      INTEGER NMAX
      PARAMETER (NMAX = 10000)
      DOUBLE PRECISION F(0:NMAX)
      INTEGER I
      CALL LFFLUX(N, H, U, F)
      DO 70 I = 1, N
        HNEW(I) = HOLD(I) - 2.0D0*FAC*DT/DX*(F(I) - F(I-1))
   70 CONTINUE
      RETURN
      END
