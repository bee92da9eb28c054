C adfort: routine=resnrm dep=rnorm,w indep=a,x,b
C adfort: init n=6 a=0.2:1.5 x=-1:1 b=-0.5:0.5
C
C     Scaled norm of the residual A*X - B of a small dense system, kept
C     in W, written the LINPACK/MINPACK way: arrays dimensioned by a
C     DIMENSION statement, an INTRINSIC statement, typed intrinsics
C     (DOUBLE PRECISION DABS, DSQRT: legal F77, the names stay the
C     intrinsics), and a RECURSIVE prefix that a later port added
C     although the routine never calls itself.  The norm is accumulated
C     with the largest component factored out to avoid overflow.
C
      RECURSIVE SUBROUTINE RESNRM(N, A, X, B, W, RNORM)
      INTEGER N, I, J
      DOUBLE PRECISION A, X, B, W, RNORM, S, SCALE, DABS, DSQRT
      DIMENSION A(N,N), X(N),
     *          B(N), W(N)
      INTRINSIC DMAX1
      SCALE = 1.0D-30
      DO 20 I = 1, N
         S = -B(I)
         DO 10 J = 1, N
            S = S + A(I,J)*X(J)
   10    CONTINUE
         W(I) = S
         SCALE = DMAX1(SCALE, DABS(S))
   20 CONTINUE
      RNORM = 0.0D0
      DO 30 I = 1, N
         RNORM = RNORM + (W(I)/SCALE)**2
   30 CONTINUE
      RNORM = SCALE*DSQRT(RNORM)
      END
