C adfort: routine=lufac dep=a indep=a
C adfort: init lda=5 n=4 a=0.5:1.5
C
C     LU factorisation without pivoting in the LINPACK style: the column
C     below the pivot is scaled by a BLAS-like DSCAL and the trailing
C     columns updated by DAXPY, both given an array ELEMENT (A(K+1,K)) as
C     the start of their assumed-size vectors DX(*), DY(*) (sequence
C     association).  The diagonal is made dominant first, so no pivot is
C     small.  The callees overwrite assumed-size arrays: their reversing
C     motions run them again rather than copy what they cannot size.
C
      SUBROUTINE LUFAC(A, LDA, N)
      INTEGER LDA, N, K, J, KP1, NMK
      DOUBLE PRECISION A(LDA,N), T
      DO 5 K = 1, N
         A(K,K) = A(K,K) + DBLE(N)
    5 CONTINUE
      DO 30 K = 1, N - 1
         KP1 = K + 1
         NMK = N - K
         T = -1.0D0/A(K,K)
         CALL DSCALX(NMK, T, A(KP1,K), 1)
         DO 20 J = KP1, N
            T = A(K,J)
            CALL DAXPYX(NMK, T, A(KP1,K), 1, A(KP1,J), 1)
   20    CONTINUE
   30 CONTINUE
      RETURN
      END
C
      SUBROUTINE DSCALX(N, DA, DX, INCX)
      INTEGER N, INCX, I, NINCX
      DOUBLE PRECISION DA, DX(*)
      IF (N .LE. 0 .OR. INCX .LE. 0) RETURN
      NINCX = N*INCX
      DO 10 I = 1, NINCX, INCX
         DX(I) = DA*DX(I)
   10 CONTINUE
      RETURN
      END
C
      SUBROUTINE DAXPYX(N, DA, DX, INCX, DY, INCY)
      INTEGER N, INCX, INCY, I, IX, IY
      DOUBLE PRECISION DA, DX(*), DY(*)
      IF (N .LE. 0) RETURN
      IF (DA .EQ. 0.0D0) RETURN
      IX = 1
      IY = 1
      DO 10 I = 1, N
         DY(IY) = DY(IY) + DA*DX(IX)
         IX = IX + INCX
         IY = IY + INCY
   10 CONTINUE
      RETURN
      END
