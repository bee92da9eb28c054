C adfort: routine=SOILRN dep=COST indep=TS0,CND
C adfort: init NZ=8 NT=6 DT=600.0 TS0=270:290 CND=0.5:2.0 TAIR=270:290
C adfort: bench NZ=60 NT=4000
C
C     Soil column heat conduction with an implicit (backward Euler)
C     step solved by a Thomas sweep written in line, and a surface energy
C     balance solved by three Newton iterations for the skin temperature
C     (longwave emission ~ T**4).  F77: labelled loops, a COMMON block of
C     constants, work arrays of a PARAMETER size.
C
      SUBROUTINE SOILRN(NZ, NT, DT, TS0, CND, TAIR, COST)
      IMPLICIT NONE
      INTEGER NZ, NT
      DOUBLE PRECISION DT, TS0(NZ), CND(NZ), TAIR, COST
      DOUBLE PRECISION SIGMA, EMIS, HCAP, DZ
      COMMON /SOILC/ SIGMA, EMIS, HCAP, DZ
      INTEGER NMAX
      PARAMETER (NMAX = 200)
      DOUBLE PRECISION T(NMAX)
      INTEGER K, IT
      SIGMA = 5.67D-8
      EMIS = 0.95D0
      HCAP = 2.0D6
      DZ = 0.1D0
      DO 10 K = 1, NZ
        T(K) = TS0(K)
   10 CONTINUE
      DO 20 IT = 1, NT
        CALL SOILST(NZ, DT, CND, TAIR, T)
   20 CONTINUE
      COST = 0.0D0
      DO 30 K = 1, NZ
        COST = COST + T(K)**2/NZ
   30 CONTINUE
      RETURN
      END
C
      SUBROUTINE SOILST(NZ, DT, CND, TAIR, T)
      IMPLICIT NONE
      INTEGER NZ
      DOUBLE PRECISION DT, CND(NZ), TAIR, T(NZ)
      DOUBLE PRECISION SIGMA, EMIS, HCAP, DZ
      COMMON /SOILC/ SIGMA, EMIS, HCAP, DZ
      INTEGER NMAX
      PARAMETER (NMAX = 200)
      DOUBLE PRECISION A(NMAX), B(NMAX), C(NMAX), R(NMAX)
      DOUBLE PRECISION TS, F, DF, S, W
      INTEGER K, ITER
C     skin temperature: sensible flux + longwave balance the conduction
      TS = T(1)
      DO 5 ITER = 1, 3
        F = 10.0D0*(TAIR - TS) - EMIS*SIGMA*TS**4
     &      + 250.0D0 - CND(1)*(TS - T(1))/DZ
        DF = -10.0D0 - 4.0D0*EMIS*SIGMA*TS**3 - CND(1)/DZ
        TS = TS - F/DF
    5 CONTINUE
      S = DT/(HCAP*DZ*DZ)
      DO 10 K = 1, NZ
        A(K) = 0.0D0
        C(K) = 0.0D0
        IF (K .GT. 1) A(K) = -S*CND(K-1)
        IF (K .LT. NZ) C(K) = -S*CND(K)
        B(K) = 1.0D0 - A(K) - C(K)
        R(K) = T(K)
   10 CONTINUE
      B(1) = B(1) + S*CND(1)
      R(1) = R(1) + S*CND(1)*TS
C     forward elimination, back substitution in place
      DO 20 K = 2, NZ
        W = A(K)/B(K-1)
        B(K) = B(K) - W*C(K-1)
        R(K) = R(K) - W*R(K-1)
   20 CONTINUE
      T(NZ) = R(NZ)/B(NZ)
      DO 30 K = NZ - 1, 1, -1
        T(K) = (R(K) - C(K)*T(K+1))/B(K)
   30 CONTINUE
      RETURN
      END
