C adfort: routine=blend dep=v indep=w,u
C adfort: init n=9 m=4 basis=-1:1 w=0.2:1.5 u=-2:2
C
C     A state increment built from a fixed basis (as in a reduced-order
C     or EOF-based analysis): V = U + sum over K of W(K)*BASIS(:,K), then
C     a relaxation term W(1)*U.  Each term is added by a BLAS-like AXPY
C     given the column BASIS(1,K) as the start of its vector X (sequence
C     association).  The basis carries no derivative, but AXPY's X does
C     at the last call (U): the basis columns need a zero adjoint of the
C     callee's shape (AXPY declares its intents, so the basis stays
C     passive).
C
      SUBROUTINE AXPY(N, A, X, Y)
      INTEGER, INTENT(IN) :: N
      DOUBLE PRECISION, INTENT(IN) :: A, X(N)
      DOUBLE PRECISION, INTENT(INOUT) :: Y(N)
      INTEGER I
      DO 10 I = 1, N
         Y(I) = Y(I) + A*X(I)
   10 CONTINUE
      END

      SUBROUTINE BLEND(N, M, BASIS, W, U, V)
      INTEGER N, M, I, K
      DOUBLE PRECISION BASIS(N, M), W(M), U(N), V(N)
      DO 20 I = 1, N
         V(I) = U(I)
   20 CONTINUE
      DO 30 K = 1, M
         CALL AXPY(N, W(K)*W(K), BASIS(1, K), V)
   30 CONTINUE
      CALL AXPY(N, W(1), U, V)
      END
