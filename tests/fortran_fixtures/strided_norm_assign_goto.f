C     Euclidean norm of a strided vector in the style of 1970s netlib
C     code: the phase of the scan is kept in ASSIGNed labels and entered
C     through assigned GO TOs.  Phase 1 sums the squares relative to the
C     largest component seen so far (no overflow for tiny values); the
C     first component above CUTHI rescales the sum and switches to phase
C     2, a plain sum of squares.  An early RETURN for an empty vector.
C adfort: routine=snrm2s dep=snrm2s indep=x
C adfort: init n=9 incx=2 x=-2:2
C adfort: shape x=n*incx
      DOUBLE PRECISION FUNCTION SNRM2S(N, X, INCX)
      INTEGER N, INCX, I, NN, NEXT, FINISH
      DOUBLE PRECISION X(*), SUM, XMAX, CUTHI
      DATA CUTHI /1.5D0/
      SNRM2S = 0.0D0
      IF (N .LE. 0) RETURN
      ASSIGN 20 TO NEXT
      ASSIGN 50 TO FINISH
      SUM = 0.0D0
      XMAX = 0.0D0
      NN = N*INCX
      DO 40 I = 1, NN, INCX
         GO TO NEXT, (20, 30)
C        phase 1: components below CUTHI, relative to the largest
   20    IF (ABS(X(I)) .GE. CUTHI) GO TO 25
         IF (ABS(X(I)) .LE. XMAX) GO TO 22
            SUM = 1.0D0 + SUM*(XMAX/X(I))**2
            XMAX = ABS(X(I))
            GO TO 40
   22    SUM = SUM + (X(I)/XMAX)**2
         GO TO 40
C        a large component: undo the scaling, go on in phase 2
   25    SUM = (SUM*XMAX)*XMAX
         ASSIGN 30 TO NEXT
         ASSIGN 60 TO FINISH
C        phase 2: plain sum of squares
   30    SUM = SUM + X(I)**2
   40 CONTINUE
      GO TO FINISH
   50 SNRM2S = XMAX*SQRT(SUM)
      RETURN
   60 SNRM2S = SQRT(SUM)
      RETURN
      END
