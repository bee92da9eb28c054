C adfort: routine=RAINSD dep=PRECIP,QR indep=QR,NR,RHO
C adfort: init NZ=8 NT=3 DT=10.0 DZ=250.0 QR=2.0e-4:2.0e-3 NR=2.0e3:5.0e4 RHO=0.9:1.2
C adfort: bench NZ=80 NT=200
C
C     Two-moment rain sedimentation: drops follow a gamma size distribution
C     N(D) = N0 D**MU exp(-LAM D) whose shape MU is diagnosed from the mean
C     drop diameter, whose slope LAM follows from the mass and number
C     mixing ratios through GAMMA(MU+4)/GAMMA(MU+1); the mass- and
C     number-weighted fall speeds of a power law V = A D**B are ratios of
C     gamma functions (the mass one through LOG_GAMMA, as codes do to
C     avoid overflow).  Upwind flux divergence, NT sub-steps, precipitation
C     at the ground accumulated.  F77: labelled loops, a statement
C     function, a COMMON block of constants, work arrays of a PARAMETER
C     size, external subroutines.
C
      SUBROUTINE RAINSD(NZ, NT, DT, DZ, RHO, QR, NR, PRECIP)
      IMPLICIT NONE
      INTEGER NZ, NT
      DOUBLE PRECISION DT, DZ, RHO(NZ), QR(NZ), NR(NZ), PRECIP
      INTEGER NMAX
      PARAMETER (NMAX = 500)
      DOUBLE PRECISION VQ(NMAX), VN(NMAX), FQ(NMAX+1), FN(NMAX+1)
      INTEGER K, IT
      PRECIP = 0.0D0
      DO 30 IT = 1, NT
        CALL FALLSP(NZ, RHO, QR, NR, VQ, VN)
        FQ(NZ+1) = 0.0D0
        FN(NZ+1) = 0.0D0
        DO 10 K = 1, NZ
          FQ(K) = VQ(K)*RHO(K)*QR(K)
          FN(K) = VN(K)*RHO(K)*NR(K)
   10   CONTINUE
        DO 20 K = 1, NZ
          QR(K) = QR(K) + DT*(FQ(K+1) - FQ(K))/(RHO(K)*DZ)
          NR(K) = NR(K) + DT*(FN(K+1) - FN(K))/(RHO(K)*DZ)
   20   CONTINUE
        PRECIP = PRECIP + DT*FQ(1)
   30 CONTINUE
      RETURN
      END
C
C     Fall speeds of the rain of each level (m/s), air-density corrected.
C
      SUBROUTINE FALLSP(NZ, RHO, QR, NR, VQ, VN)
      IMPLICIT NONE
      INTEGER NZ
      DOUBLE PRECISION RHO(NZ), QR(NZ), NR(NZ), VQ(NZ), VN(NZ)
      DOUBLE PRECISION PI, RHOW, AV, BV, RHO0
      COMMON /RAINC/ PI, RHOW, AV, BV, RHO0
      DOUBLE PRECISION DM, MU, LAM, CORR, X
      DOUBLE PRECISION CUBRT
      INTEGER K
      CUBRT(X) = X**(1.0D0/3.0D0)
      PI = 3.14159265358979D0
      RHOW = 1000.0D0
      AV = 842.0D0
      BV = 0.8D0
      RHO0 = 1.2D0
      DO 10 K = 1, NZ
C       mean volume diameter, then the shape of the distribution
        DM = CUBRT(6.0D0*QR(K)/(PI*RHOW*NR(K)))
        MU = 1.0D0 + 6.0D0*TANH(800.0D0*DM)
        LAM = CUBRT(PI/6.0D0*RHOW*NR(K)*GAMMA(MU + 4.0D0)
     &        /(QR(K)*GAMMA(MU + 1.0D0)))
        CORR = SQRT(RHO0/RHO(K))
        VQ(K) = CORR*AV*EXP(LOG_GAMMA(MU + 4.0D0 + BV)
     &          - LOG_GAMMA(MU + 4.0D0))/LAM**BV
        VN(K) = CORR*AV*GAMMA(MU + 1.0D0 + BV)/(GAMMA(MU + 1.0D0)
     &          *LAM**BV)
        VQ(K) = MIN(VQ(K), 9.0D0)
        VN(K) = MIN(VN(K), 9.0D0)
   10 CONTINUE
      RETURN
      END
