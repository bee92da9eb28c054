C     phys.h: physical constants (included by mixpar.h)
      PARAMETER (GRAV = 9.81D0, RHO0 = 1025.0D0)
