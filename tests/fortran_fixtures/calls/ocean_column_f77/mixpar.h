C     mixpar.h: column size, mixing parameters and the grid, shared by
C     the routines of the column model through COMMON.
      PARAMETER (NZ = 10)
      COMMON /MIXPAR/ AKV0, AKB, RICOEF
      COMMON /GRID/ DZ(NZ), ZM(NZ)
      INCLUDE 'phys.h'
