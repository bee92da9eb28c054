C adfort: routine=kinjac dep=fvec,fjac indep=c,rk
C adfort: init nspec=5 nreac=6 ldfjac=5 c=0.1:1.0 rk=0.5:2.0
C
C     Net production rates and their analytic Jacobian for a small
C     mass-action mechanism, as in a stiff chemistry solver:
C
C        A + B -> C,  C -> A + B,  B + B -> D,  D + A -> E,  E -> C + B,
C        A -> D
C
C     The mechanism is integer tables in DATA statements (reactants
C     IR1/IR2, products IP1/IP2, 0 for none); every loop over reactions
C     picks species indices into integer temporaries and scatters the
C     rate and its partials through them.  Differentiating FJAC gives
C     the second derivatives (and derivatives in the rate constants).
C
      SUBROUTINE KINJAC(NSPEC, NREAC, C, RK, FVEC, FJAC, LDFJAC)
      IMPLICIT NONE
      INTEGER NSPEC, NREAC, LDFJAC
      DOUBLE PRECISION C(NSPEC), RK(NREAC), FVEC(NSPEC)
      DOUBLE PRECISION FJAC(LDFJAC,NSPEC)
      INTEGER IR1(6), IR2(6), IP1(6), IP2(6), KS(4)
      INTEGER J, K, L, K1, K2
      DOUBLE PRECISION DR1, DR2, RATE, SG(4)
      DATA IR1 /1, 3, 2, 4, 5, 1/
      DATA IR2 /2, 0, 2, 1, 0, 0/
      DATA IP1 /3, 1, 4, 5, 3, 4/
      DATA IP2 /0, 2, 0, 0, 2, 0/
      DATA SG /-1.0D0, -1.0D0, 1.0D0, 1.0D0/
C
      DO 20 J = 1, NSPEC
         FVEC(J) = 0.0D0
         DO 10 K = 1, NSPEC
            FJAC(K,J) = 0.0D0
   10    CONTINUE
   20 CONTINUE
C
      DO 40 J = 1, NREAC
         K1 = IR1(J)
         K2 = IR2(J)
         IF (K2 .EQ. 0) THEN
            RATE = RK(J)*C(K1)
            DR1 = RK(J)
            DR2 = 0.0D0
         ELSE
            RATE = RK(J)*C(K1)*C(K2)
            DR1 = RK(J)*C(K2)
            DR2 = RK(J)*C(K1)
         END IF
         KS(1) = K1
         KS(2) = K2
         KS(3) = IP1(J)
         KS(4) = IP2(J)
         DO 30 L = 1, 4
            K = KS(L)
            IF (K .NE. 0) THEN
               FVEC(K) = FVEC(K) + SG(L)*RATE
               FJAC(K,K1) = FJAC(K,K1) + SG(L)*DR1
               IF (K2 .NE. 0) FJAC(K,K2) = FJAC(K,K2) + SG(L)*DR2
            END IF
   30    CONTINUE
   40 CONTINUE
      END
