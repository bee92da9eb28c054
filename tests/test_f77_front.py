"""FORTRAN 77 spellings the front end reads as gfortran does.

- Blanks are insignificant in fixed form: ``IMPLICITDOUBLEPRECISION(A-H,O-Z)``
  and ``IMPLICITREAL*8(A-H,O-Z)`` were ignored (names typed only by
  DIMENSION became default REAL: wrong results, garbage for a dummy), a
  statement function under them was not inlined, and ``DOUBLEPRECISIONX``,
  ``INTEGERK``, ``SAVEV``, ``DO10I=1,N``, ``SUBROUTINESCL(X,Y)``… were
  syntax errors or unknown routines (:mod:`adfort.fixed_blanks`).
- A GO TO to a labelled END statement (``99 END``) is a jump to the end of
  the routine (it was "jump to label 99, which no executable statement of
  this routine has").
- Debugging lines (``D`` in column 1) are comments, as gfortran's
  ``-fd-lines-as-comments`` (in a unit with a GO TO they were code).
- A DO loop with a REAL variable (deleted from Fortran 95) is a clear error
  at its line (it was a bare "Fortran syntax error").
"""

import subprocess
import sys
import textwrap

import pytest

import harness
from adfort.reading import load

ACCEPTED = {
    "implicit double precision without blanks": """\
C adfort: routine=SCL dep=Y indep=X
C adfort: init X=0.5:1.5 Y=0
      SUBROUTINE SCL(X, Y)
      IMPLICITDOUBLEPRECISION(A-H,O-Z)
      DIMENSION W(2)
      W(1) = 0.1D0
      W(2) = 1.D0/3.D0
      Y = X*W(1) + X*X*W(2)
      END
""",
    "implicit real*8 without blanks, dimensioned dummy": """\
C adfort: routine=SSQ dep=Y indep=X
C adfort: init N=4 X=0.5:1.5 Y=0
      SUBROUTINE SSQ(N, X, Y)
      IMPLICITREAL*8(A-H,O-Z)
      DIMENSION X(N)
      Y = 0.D0
      DO 10 I = 1, N
        Y = Y + X(I)**2/3.D0
   10 CONTINUE
      END
""",
    "statement function under implicit real*8 without blanks": """\
C adfort: routine=SF dep=Y indep=X
C adfort: init X=0.5:1.5 Y=0
      SUBROUTINE SF(X, Y)
      IMPLICITREAL*8(A-H,O-Z)
      Q(A) = A/3.D0 + 0.1D0*A*A
      Y = Q(X)
      END
""",
    "declarations without blanks": """\
C adfort: routine=SCL dep=Y indep=X
C adfort: init X=0.5:1.5 Y=0
      SUBROUTINESCL(X,Y)
      IMPLICITNONE
      DOUBLEPRECISIONX,Y
      REAL*8W(2),V(2)
      INTEGERK
      COMMON/BLK/W
      SAVEV
      DATAV/0.1D0,0.3D0/
      PARAMETER(K=2)
      W(1)=V(1)
      W(K)=1.D0/3.D0
      Y=X*W(1)+X*X*W(2)+V(2)*X
      END
""",
    "dimension, do, go to without blanks": """\
C adfort: routine=SCL dep=Y indep=X
C adfort: init X=0.5:1.5 Y=0
      SUBROUTINE SCL(X,Y)
      IMPLICITDOUBLEPRECISION(A-H,O-Z)
      DIMENSIONW(3)
      DO10I=1,3
      W(I)=X*I
   10 CONTINUE
      Y=0.D0
      DO20,I=1,3
      Y=Y+W(I)**2
   20 CONTINUE
      K=0
   30 K=K+1
      Y=Y*X/3.D0+SIN(Y)
      IF(K.LT.3)GOTO30
      IF(Y.GT.100.D0)GOTO40
      Y=Y*X
      GOTO(40,50)K-2
   40 Y=Y+1.D0
   50 CONTINUE
      END
""",
    "assignments that look like statements keep their names": """\
C adfort: routine=SCL dep=Y indep=X
C adfort: init X=0.5:1.5 Y=0
      SUBROUTINE SCL(X,Y)
      IMPLICITDOUBLEPRECISION(A-H,O-Z)
      DO10I=1.5D0*X
      DATAX=DO10I*X
      REALX=DATAX+1.D0
      GOTOX=REALX*X
      Y=GOTOX+DO10I
      END
""",
    "routines without blanks": """\
C adfort: routine=SCL dep=Y indep=X
C adfort: init X=0.5:1.5 Y=0
      SUBROUTINE SCL(X,Y)
      IMPLICITDOUBLEPRECISION(A-H,O-Z)
      EXTERNALG
      Y=G(X)*X+F(X)
      CALLH(X,Y)
      END
      DOUBLEPRECISIONFUNCTIONG(X)
      IMPLICITDOUBLEPRECISION(A-H,O-Z)
      G=X*X+1.D0
      END
      REAL*8FUNCTIONF(X)
      IMPLICITDOUBLEPRECISION(A-H,O-Z)
      F=SIN(X)*X
      END
      SUBROUTINEH(X,Y)
      IMPLICITDOUBLEPRECISION(A-H,O-Z)
      Y=Y+SIN(X)
      END
""",
    "go to a labelled END": """\
C adfort: routine=F dep=Y indep=X
C adfort: init X=0.5:1.5 Y=0
      SUBROUTINE F(X, Y)
      DOUBLE PRECISION X, Y
      Y = X*X
      IF (X .GT. 1.D0) GO TO 99
      Y = Y*X
   99 END
""",
    "go to a labelled END of a function": """\
C adfort: routine=S dep=Y indep=X
C adfort: init X=0.5:1.5 Y=0
      SUBROUTINE S(X, Y)
      DOUBLE PRECISION X, Y, G
      Y = G(X) + X
      END
      DOUBLE PRECISION FUNCTION G(X)
      DOUBLE PRECISION X
      G = X*X
      IF (X .GT. 1.D0) GOTO 999
      G = G*SIN(X)
      IF (G .GT. 0.5D0) GOTO 999
      G = G + X
  999 END
""",
    # A debugging line (D in column 1) is a comment, as gfortran's
    # -fd-lines-as-comments: it was code in a unit with a GO TO (the front
    # end's restructuring read it so) and a comment elsewhere.
    "debugging lines in a unit with a go to": """\
C adfort: routine=SQ dep=Y indep=X
C adfort: init X=0.5:1.5 Y=0
C adfort: fflags=-fd-lines-as-comments
      SUBROUTINE SQ(X, Y)
      DOUBLE PRECISION X, Y
      Y = X*X
D     Y = 0.0D0
d     WRITE (*,*) 'Y = ', Y
      IF (Y .GT. 1.2D0) GO TO 20
      Y = 2.0D0*Y
   20 CONTINUE
      END
""",
    # An array named DATA (Numerical Recipes' four1, realft) assigned in a
    # unit with a GO TO loop: DATA(1) = ... was taken for a DATA
    # statement and moved before the loop (primal and gradient wrong).
    "array named data in a go to loop": """\
C adfort: routine=SCAL dep=S indep=DATA
C adfort: init N=6 DATA=0.5:1.5 S=0
      SUBROUTINE SCAL(N, DATA, S)
      INTEGER N, K
      DOUBLE PRECISION DATA(N), S
      S = 0.D0
      K = 1
    5 S = S + DATA(K)*DATA(K+1)
      DATA(K+1)=DATA(K+1)*DATA(K)
      K = K + 1
      IF (K .LT. N) GO TO 5
      DATA(1) = DATA(1) + S
      RETURN
      END
""",
    # A backward GO TO the label of a DO statement starts the loop again
    # (it was refused as a jump into the loop); GO TO 010 is GO TO 10.
    "go to a labelled do statement": """\
C adfort: routine=S dep=R indep=W
C adfort: init N=5 W=0.5:1.5 R=0
      SUBROUTINE S(N, W, R)
      DOUBLE PRECISION W(N), R
      INTEGER K, I
      K = 0
      R = 0.D0
   20 DO 30 I = 1, N
         IF (W(I) .GT. 1.4D0) GO TO 030
         R = R + W(I)*R + W(I)**2
   30 CONTINUE
      K = K + 1
      IF (K .LT. 3) GOTO 020
      END
""",
    # DEC tab format (gfortran reads it): a tab in the first six columns,
    # after an optional label, starts the statement in column 7; a digit
    # 1-9 right after it marks a continuation.  A DO loop ending on an
    # assignment was an internal error, a labelled DO a refusal, a label
    # before a tab a syntax error at END.
    "tab format": "C adfort: routine=S dep=R indep=W\n"
                  "C adfort: init N=5 W=0.5:1.5 R=0\n"
                  "      SUBROUTINE S(N, W, R)\n"
                  "      IMPLICIT REAL*8 (A-H,O-Z)\n"
                  "      DIMENSION W(N)\n"
                  "\tSUM = 0.D0\n"
                  "\tDO 10 I = 1, N\n"
                  "   10 SUM = SUM + W(I)**2\n"
                  "\tR = 0.D0\n"
                  "\tDO 20 I = 1, N\n"
                  "\tR = R + SUM*W(I) +\n"
                  "\t1   W(I)**3\n"
                  "20\tCONTINUE\n"
                  "      END\n",
}

FREE = {
    "go to a labelled end subroutine": """\
        ! adfort: routine=f dep=y indep=x
        ! adfort: init x=0.5:1.5 y=0
        subroutine f(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          y = x*x
          if (x > 1d0) go to 99
          y = y*x
        99 end subroutine f
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_fixed_form_accepted(case, schedule, tmp_path):
    harness.check_source(tmp_path, "k.f", ACCEPTED[case], schedule)


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(FREE))
def test_free_form_accepted(case, schedule, tmp_path):
    harness.check_source(tmp_path, "k.f90", FREE[case], schedule)


def test_keywords_spaced_lines_kept(tmp_path):
    source = textwrap.dedent("""\
          DOUBLEPRECISIONFUNCTIONG(X)
          IMPLICITREAL*8(A-H,O-Z)
          IF(X.GT.1.D0)GOTO10
          DO10I=1.5
          CHARACTER*8NAME
    C     IMPLICITREAL*8(A-H,O-Z) in a comment
          CALLLONGNAME(AAAAAAAAAA, BBBBBBBBBB, CCCCCCCCCC, DDDDDDDDDD, EEEE)
    """)
    (tmp_path / "k.f").write_text(source)
    out = load(str(tmp_path / "k.f")).source.splitlines()
    assert out[0] == "      DOUBLE PRECISION FUNCTION G(X)"
    assert out[1] == "      IMPLICIT REAL*8 (A-H,O-Z)"
    assert out[2] == "      IF(X.GT.1.D0)GO TO 10"
    assert out[3] == "      DO10I=1.5"          # an assignment to DO10I
    assert out[4] == "      CHARACTER*8 NAME"
    assert out[5] == source.splitlines()[5]
    assert out[6].startswith("      CALL LONGNAME(") and len(out[6]) <= 72
    assert len(out) == len(source.splitlines())


def test_blanks_inside_names_and_numbers_taken_out(tmp_path):
    """Blanks are insignificant in fixed form: AL PHA is ALPHA and
    3.14159 26535D0 one number, to gfortran; fparser read two tokens (a
    syntax error).  Strings, FORMAT, Hollerith and keywords keep theirs."""
    source = textwrap.dedent("""\
    C     lines 2-6 change, the others do not
          PARAMETER (PI = 3.14159 26535 89793D0)
          Y = AL PHA*BE
         &  TA + 'A B'
          IF (AL PHA .GT. 0.0D0) Y = Y + G AM
          CALL SUB (AL PHA, 'X Y')
          DOUBLE PRECISION A B
          DO 10 I = 1, N
      100 FORMAT (1X, I 5)
          DATA S /2HA B/
          X = Y .AND. Z
    """)
    (tmp_path / "k.f").write_text(source)
    out = load(str(tmp_path / "k.f")).source.splitlines()
    assert out[1] == "      PARAMETER (PI = 3.141592653589793D0)"
    assert out[2] == "      Y = ALPHA*BE"
    assert out[3] == "     &TA + 'A B'"
    assert out[4] == "      IF (ALPHA .GT. 0.0D0) Y = Y + GAM"
    assert out[5] == "      CALL SUB (ALPHA, 'X Y')"
    assert out[6:] == source.splitlines()[6:] and out[0] == source.splitlines()[0]


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_blanks_inside_names_differentiated(schedule, tmp_path):
    harness.check_source(tmp_path, "k.f", textwrap.dedent("""\
    C adfort: routine=F dep=Y indep=ALPHA,BETA
    C adfort: init ALPHA=0.5:1.5 BETA=0.5:1.5 Y=0
          SUBROUTINE F(ALPHA, BETA, Y)
          DOUBLE PRECISION ALPHA, BETA, Y, C
          PARAMETER (C = 1.00000 00001D0)
          Y = ALPHA*BE
         &TA + AL PHA**2*C
          IF (BE TA .GT. 0.0D0) Y = Y*BE TA
          END
    """), schedule)


def _rejected(tmp_path, name, text, routine, message, line):
    source = tmp_path / name
    source.write_text(textwrap.dedent(text))
    out = tmp_path / "k_ad.f90"
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           routine, "--dep", "Y", "--indep", "X", "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert f"{name}:{line}" in done.stderr and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()


@pytest.mark.parametrize("bounds", ["0.D0, 1.D0, 0.25D0", "0, 4"])
def test_real_do_variable_is_a_clear_error(bounds, tmp_path):
    _rejected(tmp_path, "k.f", f"""\
      SUBROUTINE QUAD(X, Y)
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      Y = 0.D0
      DO 10 Z = {bounds}
        Y = Y + 0.25D0*EXP(-X*Z)
   10 CONTINUE
      END
""", "QUAD", "a DO loop with a REAL variable (Z), a feature deleted from Fortran 95", 4)


def test_declared_real_do_variable_is_a_clear_error(tmp_path):
    _rejected(tmp_path, "k.f90", """\
        subroutine quad(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          real(8) :: t
          y = 0
          do t = 0, 4
            y = y + exp(-x*t)
          end do
        end subroutine quad
        """, "quad", "a DO loop with a REAL variable (t)", 6)
