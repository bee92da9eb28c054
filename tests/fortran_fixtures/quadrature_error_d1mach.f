C adfort: routine=qkerr dep=abserr indep=fv,resasc
C adfort: init n=7 fv=0.2:1.5 resasc=0.5:1.0
C
C     Error estimate of a quadrature rule in the QUADPACK style: the
C     machine constants come from D1MACH, the netlib function that builds
C     them from integer bit patterns through EQUIVALENCE and keeps a flag
C     in COMMON /D9MACH/.  adfort cannot read D1MACH, but no derivative
C     flows through it: it is called as it is and its results are taped.
C
      SUBROUTINE QKERR(N, FV, RESASC, ABSERR)
      INTEGER N, J
      DOUBLE PRECISION FV(N), RESASC, ABSERR, EPMACH, UFLOW, D1MACH,
     *                 RESK, DIFF
      EPMACH = D1MACH(4)
      UFLOW = D1MACH(1)
      RESK = 0.0D+00
      DO 10 J = 1, N
         RESK = RESK + FV(J)/DBLE(N)
   10 CONTINUE
      DIFF = 0.0D+00
      DO 20 J = 1, N
         DIFF = DIFF + DABS(FV(J) - RESK)*FV(J)
   20 CONTINUE
      ABSERR = DIFF
C     an unlabelled CONTINUE, a no-op old code keeps here and there
      CONTINUE
      IF (RESASC .NE. 0.0D+00 .AND. ABSERR .NE. 0.0D+00)
     *   ABSERR = RESASC*DMIN1(1.0D+00,
     *                         (2.0D+02*ABSERR/RESASC)**1.5D+00)
      IF (RESASC .GT. UFLOW/(5.0D+01*EPMACH))
     *   ABSERR = DMAX1((EPMACH*5.0D+01)*RESASC*1.0D+12, ABSERR)
      RETURN
      END
C
      DOUBLE PRECISION FUNCTION D1MACH(I)
      INTEGER I
      INTEGER SMALL(2), LARGE(2), RIGHT(2), DIVER(2), LOG10(2), SC
      DOUBLE PRECISION DMACH(5)
      COMMON /D9MACH/ SC
      EQUIVALENCE (DMACH(1), SMALL(1))
      EQUIVALENCE (DMACH(2), LARGE(1))
      EQUIVALENCE (DMACH(3), RIGHT(1))
      EQUIVALENCE (DMACH(4), DIVER(1))
      EQUIVALENCE (DMACH(5), LOG10(1))
      SAVE DMACH
C     IEEE double precision, little-endian word order
      IF (SC .NE. 987) THEN
         SMALL(1) = 0
         SMALL(2) = 1048576
         LARGE(1) = -1
         LARGE(2) = 2146435071
         RIGHT(1) = 0
         RIGHT(2) = 1017118720
         DIVER(1) = 0
         DIVER(2) = 1018167296
         LOG10(1) = 1352628735
         LOG10(2) = 1070810131
         SC = 987
      END IF
      IF (I .LT. 1 .OR. I .GT. 5) STOP 'D1MACH: I out of bounds'
      D1MACH = DMACH(I)
      RETURN
      END
