C adfort: routine=snorm2 dep=snorm2 indep=x
C adfort: init n=12 x=-2:3
C
C     Euclidean norm of X without destructive underflow or overflow, as
C     in MINPACK-era libraries: components are split into small,
C     intermediate and large by two thresholds and summed in three scaled
C     accumulators, the large and small ones relative to their running
C     maximum.  A FUNCTION is the routine differentiated: its result is
C     the dependent (adfort's motions take it as the last argument).
C     Thresholds chosen so that the test data visits all three classes.
C
      DOUBLE PRECISION FUNCTION SNORM2(N, X)
      INTEGER N, I
      DOUBLE PRECISION X(N), RDWARF, RGIANT, S1, S2, S3, X1MAX, X3MAX,
     *                 AGIANT, XABS, ONE, ZERO
      PARAMETER (ONE = 1.0D0, ZERO = 0.0D0)
      RDWARF = 0.3D0
      RGIANT = 25.0D0
      S1 = ZERO
      S2 = ZERO
      S3 = ZERO
      X1MAX = ZERO
      X3MAX = ZERO
      AGIANT = RGIANT/DBLE(N)
      DO 90 I = 1, N
         XABS = DABS(X(I))
         IF (XABS .GT. RDWARF .AND. XABS .LT. AGIANT/10.0D0) THEN
C           intermediate components
            S2 = S2 + XABS**2
         ELSE IF (XABS .LE. RDWARF) THEN
C           small components
            IF (XABS .GT. X3MAX) THEN
               S3 = ONE + S3*(X3MAX/XABS)**2
               X3MAX = XABS
            ELSE IF (XABS .NE. ZERO) THEN
               S3 = S3 + (XABS/X3MAX)**2
            END IF
         ELSE
C           large components
            IF (XABS .GT. X1MAX) THEN
               S1 = ONE + S1*(X1MAX/XABS)**2
               X1MAX = XABS
            ELSE
               S1 = S1 + (XABS/X1MAX)**2
            END IF
         END IF
   90 CONTINUE
      IF (S1 .NE. ZERO) THEN
         SNORM2 = X1MAX*DSQRT(S1 + (S2/X1MAX)/X1MAX)
      ELSE IF (S2 .NE. ZERO) THEN
         IF (S2 .GE. X3MAX) SNORM2 =
     *      DSQRT(S2*(ONE + (X3MAX/S2)*(X3MAX*S3)))
         IF (S2 .LT. X3MAX) SNORM2 =
     *      DSQRT(X3MAX*((S2/X3MAX) + (X3MAX*S3)))
      ELSE
         SNORM2 = X3MAX*DSQRT(S3)
      END IF
      END
