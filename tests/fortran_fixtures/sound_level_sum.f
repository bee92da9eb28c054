C adfort: routine=splsum dep=ltot,lband indep=lp,atten
C adfort: init nsrc=4 nband=6 lp=60:90 atten=0.5:3
C
C     A-weighted total sound pressure level of NSRC sources over NBAND
C     octave bands: band levels add as energies, 10**(L/10), and the
C     total goes back to decibels.  The energy sum is written with an
C     integer base, 10**(...), as in most acoustics code: its partial in
C     the exponent needs LOG of a real ten.  Sources quieter than the
C     hearing threshold contribute no energy at all (a zero base raised
C     to a positive power, whose exponent partial must stay finite).
C
      SUBROUTINE SPLSUM(NSRC, NBAND, LP, ATTEN, LBAND, LTOT)
      IMPLICIT NONE
      INTEGER NSRC, NBAND
      DOUBLE PRECISION LP(NSRC), ATTEN(NBAND), LBAND(NBAND), LTOT
      INTEGER IB, IS
      DOUBLE PRECISION AWT(6), E, EB, ETOT, LEV, RELIN, THRESH
      DATA AWT /-16.1D0, -8.6D0, -3.2D0, 0.0D0, 1.2D0, 1.0D0/
      PARAMETER (THRESH = 20.0D0)
C
      ETOT = 0.0D0
      DO 20 IB = 1, NBAND
         EB = 0.0D0
         DO 10 IS = 1, NSRC
            LEV = LP(IS) - DBLE(IS + IB)*ATTEN(IB) + AWT(IB)
C           Relative level above the threshold: 0 for inaudible sources.
            RELIN = MAX(LEV - THRESH, 0.0D0)/10.0D0
            IF (RELIN .GT. 0.0D0) THEN
               E = 10**((LEV - THRESH)/10.0D0)
            ELSE
               E = 0.0D0
            END IF
C           An audibility weight: zero base for inaudible sources.
            E = E*RELIN**(1.0D0 + ATTEN(IB)/2.0D0)
            EB = EB + E
   10    CONTINUE
         LBAND(IB) = THRESH + 10.0D0*LOG10(1.0D0 + EB)
         ETOT = ETOT + EB
   20 CONTINUE
      LTOT = THRESH + 10.0D0*LOG10(1.0D0 + ETOT)
      END
