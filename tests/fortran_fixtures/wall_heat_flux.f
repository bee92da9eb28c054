C adfort: routine=wallfx dep=q,tsurf indep=tin,tout,thick,cond
C adfort: init tin=290:300 tout=250:280 thick=0.1:0.4 cond=0.5:2
C adfort: init hin=8 hout=25
C
C     Steady heat flux through a plane wall with convective films on
C     both sides and linearised radiation on the inner side (thermal
C     resistances in series), and the inner surface temperature.
C     FORTRAN 77 style: fixed form, external, no INTENT.
C
      SUBROUTINE WALLFX(TIN, TOUT, THICK, COND, HIN, HOUT, Q, TSURF)
      IMPLICIT NONE
      DOUBLE PRECISION TIN, TOUT, THICK, COND
      REAL*8 HIN, HOUT
      DOUBLE PRECISION Q, TSURF
      DOUBLE PRECISION RTOT, SIGMA, EMIS, HRAD
      PARAMETER (SIGMA = 5.670374D-8, EMIS = 0.9D0)
C     linearised radiative exchange coefficient
      HRAD = 4.0D0*EMIS*SIGMA*TIN**3
      RTOT = 1.0D0/(HIN + HRAD) + THICK/COND +
     &       1.0D0/HOUT
      Q = (TIN - TOUT)/RTOT
      TSURF = TIN - Q/(HIN + HRAD)
      RETURN
      END
