C     One-dimensional smoothing of a field decomposed over MPI ranks,
C     FORTRAN 77 style: INCLUDE 'mpif.h', ghost points exchanged with
C     MPI_SENDRECV (periodic ring), global energy by MPI_ALLREDUCE.
      SUBROUTINE SMOOTH(N, NITER, F, E, COMM)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER N, NITER, COMM
      DOUBLE PRECISION F(N), E
      DOUBLE PRECISION G(0:N+1), ELOC
      INTEGER I, IT, RANK, NPROC, LEFT, RIGHT, IERR
      INTEGER STAT(MPI_STATUS_SIZE)
      CALL MPI_COMM_RANK(COMM, RANK, IERR)
      CALL MPI_COMM_SIZE(COMM, NPROC, IERR)
      RIGHT = MOD(RANK + 1, NPROC)
      LEFT = MOD(RANK - 1 + NPROC, NPROC)
      DO 10 I = 1, N
        G(I) = F(I)
   10 CONTINUE
      DO 30 IT = 1, NITER
        CALL MPI_SENDRECV(G(N), 1, MPI_DOUBLE_PRECISION, RIGHT, 1,
     &                    G(0), 1, MPI_DOUBLE_PRECISION, LEFT, 1,
     &                    COMM, STAT, IERR)
        CALL MPI_SENDRECV(G(1), 1, MPI_DOUBLE_PRECISION, LEFT, 2,
     &                    G(N+1), 1, MPI_DOUBLE_PRECISION, RIGHT, 2,
     &                    COMM, STAT, IERR)
        DO 20 I = 1, N
          F(I) = 0.25D0 * G(I-1) + 0.5D0 * G(I) + 0.25D0 * G(I+1)
     &         + 0.1D0 * SIN(G(I))
   20   CONTINUE
        DO 25 I = 1, N
          G(I) = F(I)
   25   CONTINUE
   30 CONTINUE
      ELOC = 0.0D0
      DO 40 I = 1, N
        ELOC = ELOC + G(I)**2
   40 CONTINUE
      CALL MPI_ALLREDUCE(ELOC, E, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                   COMM, IERR)
      END
