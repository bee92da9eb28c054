C     Tridiagonal solve in the style of LAPACK's drivers: the diagonals
C     DL(*), D(*), DU(*) are overwritten by the factorisation and the
C     right-hand sides B(LDB,*) by the solution, all assumed-size; an
C     error code in INFO with an early RETURN; labelled DO loops.  r_rev
C     must keep what the routine overwrites although no size is declared:
C     the recording motion measures how far it assigns each array.
C adfort: routine=trisol dep=b indep=dl,d,du,b
C adfort: init n=7 nrhs=2 ldb=8 dl=-0.4:0.4 d=2:3 du=-0.4:0.4 b=0.5:1.5
C adfort: shape dl=n-1 d=n du=n-1 b=ldb,nrhs
      SUBROUTINE TRISOL(N, NRHS, DL, D, DU, B, LDB, INFO)
      INTEGER N, NRHS, LDB, INFO
      DOUBLE PRECISION DL(*), D(*), DU(*), B(LDB,*)
      INTEGER I, J
      DOUBLE PRECISION FACT
      INFO = 0
      IF (N .LT. 0) THEN
         INFO = -1
      ELSE IF (LDB .LT. MAX(1, N)) THEN
         INFO = -7
      END IF
      IF (INFO .NE. 0) RETURN
      IF (N .EQ. 0) RETURN
C     forward elimination
      DO 20 I = 1, N - 1
         IF (D(I) .EQ. 0.0D0) THEN
            INFO = I
            RETURN
         END IF
         FACT = DL(I) / D(I)
         DL(I) = FACT
         D(I+1) = D(I+1) - FACT*DU(I)
         DO 10 J = 1, NRHS
            B(I+1,J) = B(I+1,J) - FACT*B(I,J)
   10    CONTINUE
   20 CONTINUE
      IF (D(N) .EQ. 0.0D0) THEN
         INFO = N
         RETURN
      END IF
C     back substitution
      DO 40 J = 1, NRHS
         B(N,J) = B(N,J) / D(N)
         DO 30 I = N - 1, 1, -1
            B(I,J) = (B(I,J) - DU(I)*B(I+1,J)) / D(I)
   30    CONTINUE
   40 CONTINUE
      RETURN
      END
