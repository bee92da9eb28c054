C     Vertical mixing of temperature and salinity in an ocean column,
C     written the FORTRAN 77 way: no declarations of the reals (IMPLICIT
C     DOUBLE PRECISION), sizes, parameters and the grid in an INCLUDE file
C     with COMMON blocks, constants in DATA statements, DIMENSION
C     statements and an implicitly typed external function.  The
C     Richardson-number dependent diffusivity is recomputed every step
C     and the column is stepped with an explicit flux-form scheme.
      SUBROUTINE SETGRD(H)
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      INCLUDE 'mixpar.h'
      Z = 0.0D0
      DO 10 K = 1, NZ
         DZ(K) = H/NZ*(0.5D0 + DBLE(K)/NZ)
         ZM(K) = Z + 0.5D0*DZ(K)
         Z = Z + DZ(K)
   10 CONTINUE
      END

      FUNCTION SHEAR2(TAU, Z)
C     Squared shear of a wind-driven log layer below the surface.
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      INCLUDE 'mixpar.h'
      DATA VK, Z0 /0.4D0, 1.0D0/
      USTAR = SQRT(TAU/RHO0)
      SHEAR2 = (USTAR/(VK*(Z + Z0)))**2 + 1.0D-4
      END

      SUBROUTINE MIXCOL(NSTEP, DT, T, S, TAUX, COST)
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      INCLUDE 'mixpar.h'
      DIMENSION T(NZ), S(NZ)
      DIMENSION RHO(NZ), AKV(NZ), FT(NZ), FS(NZ)
      DATA ALPHA, BETA /2.0D-4, 7.6D-4/
      DATA TREF, SREF /10.0D0, 35.0D0/
      CALL SETGRD(100.0D0)
      DO 100 ISTEP = 1, NSTEP
C        linear equation of state
         DO 10 K = 1, NZ
            RHO(K) = RHO0*(1.0D0 - ALPHA*(T(K) - TREF)
     &                           + BETA*(S(K) - SREF))
   10    CONTINUE
C        diffusivity at the interface below each cell: Ri-dependent
         DO 20 K = 1, NZ - 1
            DZI = 0.5D0*(DZ(K) + DZ(K+1))
            BVF = GRAV/RHO0*(RHO(K+1) - RHO(K))/DZI
            RI = BVF/SHEAR2(TAUX, ZM(K) + 0.5D0*DZ(K))
            AKV(K) = AKV0/(1.0D0 + RICOEF*RI*RI) + AKB
            FT(K) = AKV(K)*(T(K+1) - T(K))/DZI
            FS(K) = AKV(K)*(S(K+1) - S(K))/DZI
   20    CONTINUE
         FT(NZ) = 0.0D0
         FS(NZ) = 0.0D0
         T(1) = T(1) + DT*FT(1)/DZ(1)
         S(1) = S(1) + DT*FS(1)/DZ(1)
         DO 30 K = 2, NZ
            T(K) = T(K) + DT*(FT(K) - FT(K-1))/DZ(K)
            S(K) = S(K) + DT*(FS(K) - FS(K-1))/DZ(K)
   30    CONTINUE
  100 CONTINUE
C     temperature and salinity variance left after mixing
      COST = 0.0D0
      DO 40 K = 1, NZ
         COST = COST + ((T(K) - TREF)**2 + 4.0D0*(S(K) - SREF)**2)*DZ(K)
   40 CONTINUE
      END

      SUBROUTINE SETMIX(A0, AB, RC)
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      INCLUDE 'mixpar.h'
      AKV0 = A0
      AKB = AB
      RICOEF = RC
      END
