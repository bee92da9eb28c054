C     Weighted background misfit of a 1-D analysis, F77 style: the
C     weights come in an assumed-size array and both the weights and the
C     state go through the same small BLAS-like routines.
      DOUBLE PRECISION FUNCTION WDOT(N, A, B)
      INTEGER N, I
      DOUBLE PRECISION A(N), B(N)
      WDOT = 0.0D0
      DO 10 I = 1, N
        WDOT = WDOT + A(I)*B(I)
   10 CONTINUE
      RETURN
      END
C
      SUBROUTINE SMOOTH(N, A, B)
      INTEGER N, I
      DOUBLE PRECISION A(N), B(N)
      B(1) = A(1)
      B(N) = A(N)
      DO 20 I = 2, N - 1
        B(I) = 0.25D0*A(I-1) + 0.5D0*A(I) + 0.25D0*A(I+1)
   20 CONTINUE
      RETURN
      END
C
      SUBROUTINE MISFIT(N, X, XB, WT, COST)
      INTEGER N, I, NH
      DOUBLE PRECISION X(N), XB(N), WT(*), COST
      DOUBLE PRECISION D(100), DS(100), WS(100), WDOT
      EXTERNAL WDOT
      DO 30 I = 1, N
        D(I) = X(I) - XB(I)
   30 CONTINUE
      CALL SMOOTH(N, D, DS)
C     the weights are smoothed by the same routine: passive here
      CALL SMOOTH(N, WT, WS)
      NH = N/2
      COST = WDOT(N, DS, DS) + 0.5D0*WDOT(N, WS, D)
     &     + WDOT(NH, WT(NH+1), D(NH+1))*WDOT(NH, WT, WT)
      RETURN
      END
C
      SUBROUTINE WMISFT(N, X, XB, WT, COST)
      INTEGER N
      DOUBLE PRECISION X(N), XB(N), WT(N), COST
      CALL MISFIT(N, X, XB, WT, COST)
      RETURN
      END
