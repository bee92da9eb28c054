C     Dense LU factorisation and solve in the style of LINPACK's DGEFA and
C     DGESL (no pivoting: the test matrices are diagonally dominant): the
C     matrix A(LDA,*) and right-hand side B(*) are assumed-size and
C     overwritten in place, and the column operations go through BLAS-
C     style VSCAL/VAXPY given the element that starts the vector they
C     change (A(K+1,K), B(K+1)), with strides and an unrolled loop.
C     r_rev keeps what the routine overwrites although no size is declared:
C     the callees measure how far they assign their dummies.
C adfort: routine=lusolv dep=b indep=a,b
C adfort: init n=6 lda=7 a=-0.3:0.3 b=0.5:1.5
C adfort: shape a=lda,n b=n
      SUBROUTINE LUSOLV(A, LDA, N, B, INFO)
      INTEGER LDA, N, INFO, K, J
      DOUBLE PRECISION A(LDA,*), B(*), T
      INFO = 0
      DO 10 K = 1, N
         A(K,K) = A(K,K) + 4.0D0
   10 CONTINUE
      DO 30 K = 1, N - 1
         IF (A(K,K) .EQ. 0.0D0) THEN
            INFO = K
            RETURN
         END IF
         T = -1.0D0/A(K,K)
         CALL VSCAL(N-K, T, A(K+1,K), 1)
         DO 20 J = K + 1, N
            T = A(K,J)
            CALL VAXPY(N-K, T, A(K+1,K), 1, A(K+1,J), 1)
   20    CONTINUE
   30 CONTINUE
      DO 40 K = 1, N - 1
         T = B(K)
         CALL VAXPY(N-K, T, A(K+1,K), 1, B(K+1), 1)
   40 CONTINUE
      DO 50 K = N, 1, -1
         B(K) = B(K)/A(K,K)
         T = -B(K)
         CALL VAXPY(K-1, T, A(1,K), 1, B(1), 1)
   50 CONTINUE
      RETURN
      END

      SUBROUTINE VSCAL(N, DA, DX, INCX)
      INTEGER N, INCX, I, NINCX
      DOUBLE PRECISION DA, DX(*)
      IF (N .LE. 0) RETURN
      NINCX = N*INCX
      DO 10 I = 1, NINCX, INCX
         DX(I) = DA*DX(I)
   10 CONTINUE
      RETURN
      END

      SUBROUTINE VAXPY(N, DA, DX, INCX, DY, INCY)
      INTEGER N, INCX, INCY, I, IX, IY, M
      DOUBLE PRECISION DA, DX(*), DY(*)
      IF (N .LE. 0) RETURN
      IF (DA .EQ. 0.0D0) RETURN
      IF (INCX .EQ. 1 .AND. INCY .EQ. 1) GO TO 20
      IX = 1
      IY = 1
      IF (INCX .LT. 0) IX = (-N+1)*INCX + 1
      IF (INCY .LT. 0) IY = (-N+1)*INCY + 1
      DO 10 I = 1, N
         DY(IY) = DY(IY) + DA*DX(IX)
         IX = IX + INCX
         IY = IY + INCY
   10 CONTINUE
      RETURN
C     unit strides: unrolled by 4, the remainder first
   20 M = MOD(N, 4)
      IF (M .EQ. 0) GO TO 40
      DO 30 I = 1, M
         DY(I) = DY(I) + DA*DX(I)
   30 CONTINUE
      IF (N .LT. 4) RETURN
   40 DO 50 I = M + 1, N, 4
         DY(I) = DY(I) + DA*DX(I)
         DY(I+1) = DY(I+1) + DA*DX(I+1)
         DY(I+2) = DY(I+2) + DA*DX(I+2)
         DY(I+3) = DY(I+3) + DA*DX(I+3)
   50 CONTINUE
      RETURN
      END
