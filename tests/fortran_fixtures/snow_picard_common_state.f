C adfort: routine=SNWRUN dep=COST indep=T0,CK
C adfort: init NZ=6 NCOL=3 NT=4 T0=250:272 CK=0.1:0.4 TAIR=240:275 TOBS=250:272
C adfort: bench NZ=40 NCOL=64 NT=40
C
C     Heat conduction in NCOL snow columns with a temperature-dependent
C     conductivity K(T) = CK*(1 + ALPHA*(T - TREF)) and a bulk exchange
C     with the air at the top.  Each backward-Euler step is solved by
C     NPIC Picard iterations; every iteration assembles the tridiagonal
C     matrix with K frozen at the current iterate and calls the Thomas
C     solver TRIDAG once per column, from the column loop.  The state
C     lives in a COMMON block; fixed form F77 with labelled loops, a
C     GOTO iteration loop and explicit-shape work arrays.
C
      SUBROUTINE SNWRUN(NZ, NCOL, NT, T0, CK, TAIR, TOBS, COST)
      IMPLICIT NONE
      INTEGER NZ, NCOL, NT
      DOUBLE PRECISION T0(NZ, NCOL), CK(NZ, NCOL), TAIR(NCOL),
     &                 TOBS(NZ, NCOL), COST
      INTEGER NZM, NCM
      PARAMETER (NZM = 100, NCM = 200)
      DOUBLE PRECISION TS(NZM, NCM)
      COMMON /SNWST/ TS
      INTEGER IT, J, K
      DO 10 J = 1, NCOL
        DO 10 K = 1, NZ
          TS(K, J) = T0(K, J)
   10 CONTINUE
      DO 20 IT = 1, NT
        DO 15 J = 1, NCOL
          CALL SNWCOL(NZ, J, CK(1, J), TAIR(J))
   15   CONTINUE
   20 CONTINUE
      COST = 0.0D0
      DO 30 J = 1, NCOL
        DO 30 K = 1, NZ
          COST = COST + (TS(K, J) - TOBS(K, J))**2
   30 CONTINUE
      RETURN
      END
C
      SUBROUTINE SNWCOL(NZ, J, CK, TA)
      IMPLICIT NONE
      INTEGER NZ, J
      DOUBLE PRECISION CK(NZ), TA
      INTEGER NZM, NCM, NPIC
      PARAMETER (NZM = 100, NCM = 200, NPIC = 3)
      DOUBLE PRECISION TS(NZM, NCM)
      COMMON /SNWST/ TS
      DOUBLE PRECISION DZ, DT, RHOC, ALPHA, TREF, HEX
      PARAMETER (DZ = 0.05D0, DT = 1800.0D0, RHOC = 7.0D5,
     &           ALPHA = 0.02D0, TREF = 273.15D0, HEX = 10.0D0)
      DOUBLE PRECISION TOLD(NZM), TK(NZM), A(NZM), B(NZM), C(NZM),
     &                 R(NZM), KF(NZM)
      DOUBLE PRECISION CAP
      INTEGER K, IPIC
      CAP = RHOC*DZ*DZ/DT
      DO 40 K = 1, NZ
        TOLD(K) = TS(K, J)
        TK(K) = TS(K, J)
   40 CONTINUE
      IPIC = 0
   50 CONTINUE
      IPIC = IPIC + 1
C     face conductivities, face K between levels K and K+1
      DO 60 K = 1, NZ - 1
        KF(K) = 0.5D0*(CK(K)*(1.0D0 + ALPHA*(TK(K) - TREF))
     &        + CK(K+1)*(1.0D0 + ALPHA*(TK(K+1) - TREF)))
        KF(K) = MAX(KF(K), 0.01D0)
   60 CONTINUE
      DO 70 K = 1, NZ
        A(K) = 0.0D0
        C(K) = 0.0D0
        IF (K .GT. 1) A(K) = -KF(K-1)
        IF (K .LT. NZ) C(K) = -KF(K)
        B(K) = CAP - A(K) - C(K)
        R(K) = CAP*TOLD(K)
   70 CONTINUE
C     bulk exchange with the air at the top level
      B(1) = B(1) + HEX*DZ
      R(1) = R(1) + HEX*DZ*TA
      CALL TRIDAG(NZ, A, B, C, R, TK)
      IF (IPIC .LT. NPIC) GOTO 50
      DO 80 K = 1, NZ
        TS(K, J) = TK(K)
   80 CONTINUE
      RETURN
      END
C
      SUBROUTINE TRIDAG(N, A, B, C, R, U)
      IMPLICIT NONE
      INTEGER N
      DOUBLE PRECISION A(N), B(N), C(N), R(N), U(N)
      INTEGER NZM
      PARAMETER (NZM = 100)
      DOUBLE PRECISION GAM(NZM), BET
      INTEGER K
      BET = B(1)
      U(1) = R(1)/BET
      DO 90 K = 2, N
        GAM(K) = C(K-1)/BET
        BET = B(K) - A(K)*GAM(K)
        U(K) = (R(K) - A(K)*U(K-1))/BET
   90 CONTINUE
      DO 95 K = N - 1, 1, -1
        U(K) = U(K) - GAM(K+1)*U(K+1)
   95 CONTINUE
      RETURN
      END
