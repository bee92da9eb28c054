"""Saves around calls take only the sections the callee may change
(adfort/sections.py): a halo or wall routine setting the edges of a 2-D
field costs its edges on the tape, not the whole field.

The kernels are FD-checked under split, joint and joint with calls kept
(no inlining); the text checks say which saves became sections and which
stay whole (a subscript the caller changes, a callee writing through an
index it computes)."""

import re

import pytest

import harness

CASES = {
    # Halo exchange of a field with lower bounds 0 (nested routines, each
    # setting one pair of edges), a diffusion step writing the interior
    # through a section, a routine relaxing one row of an assumed-shape
    # array (at a literal row: a section; at a row the caller computes each
    # step: the whole array) and a routine writing at a subscript it
    # computes (the whole array).
    "halo_relax.f90": """\
        ! adfort: routine=run dep=cost indep=q0,t0,kappa
        ! adfort: init nx=7 ny=6 nt=3 kappa=0.05:0.1 q0=0.5:1 t0=0.5:1
        module halo_relax
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine halo_x(nx, ny, q)
            integer, intent(in) :: nx, ny
            real(wp), intent(inout) :: q(0:nx+1, 0:ny+1)
            integer :: j
            do j = 1, ny
              q(0, j) = q(nx, j)
              q(nx+1, j) = q(1, j)
            end do
          end subroutine halo_x

          subroutine halo_y(nx, ny, q)
            integer, intent(in) :: nx, ny
            real(wp), intent(inout) :: q(0:nx+1, 0:ny+1)
            integer :: i
            do i = nx + 1, 0, -1
              q(i, 0) = q(i, 1)
              q(i, ny+1) = q(i, ny)
            end do
          end subroutine halo_y

          subroutine halo(nx, ny, q)
            integer, intent(in) :: nx, ny
            real(wp), intent(inout) :: q(0:nx+1, 0:ny+1)
            call halo_x(nx, ny, q)
            call halo_y(nx, ny, q)
          end subroutine halo

          subroutine diffuse(nx, ny, kappa, q)
            integer, intent(in) :: nx, ny
            real(wp), intent(in) :: kappa
            real(wp), intent(inout) :: q(0:nx+1, 0:ny+1)
            real(wp) :: qn(nx, ny)
            integer :: i, j
            do j = 1, ny
              do i = 1, nx
                qn(i, j) = q(i, j) + kappa*q(i, j)*(q(i+1, j) + q(i-1, j) &
                           + q(i, j+1) + q(i, j-1) - 4.0_wp*q(i, j))
              end do
            end do
            q(1:nx, 1:ny) = qn
          end subroutine diffuse

          subroutine relax(k, r, t)
            integer, intent(in) :: k
            real(wp), intent(in) :: r
            real(wp), intent(inout) :: t(:, :)
            integer :: j
            do j = 1, size(t, 2)
              t(k, j) = t(k, j) - r*t(k, j)**2
            end do
          end subroutine relax

          subroutine mix(nx, ny, t, q)
            integer, intent(in) :: nx, ny
            real(wp), intent(inout) :: t(nx, ny)
            real(wp), intent(in) :: q(0:nx+1, 0:ny+1)
            integer :: i, j, m
            do j = 1, ny
              do i = 1, nx
                m = mod(i + j, nx) + 1
                t(m, j) = 0.5_wp*(t(m, j) + q(i, j)*t(i, j))
              end do
            end do
          end subroutine mix

          subroutine run(nx, ny, nt, kappa, q0, t0, cost)
            integer, intent(in) :: nx, ny, nt
            real(wp), intent(in) :: kappa, q0(nx, ny), t0(nx, ny)
            real(wp), intent(out) :: cost
            real(wp) :: q(0:nx+1, 0:ny+1), t(nx, ny)
            integer :: it, kk
            q = 0.0_wp
            q(1:nx, 1:ny) = q0
            t = t0
            do it = 1, nt
              call halo(nx, ny, q)
              call diffuse(nx, ny, kappa, q)
              call relax(1, kappa, t)
              kk = mod(it, nx) + 1
              call relax(kk, kappa, t)
              call mix(nx, ny, t, q)
            end do
            cost = sum(q(1:nx, 1:ny)**2*t)
          end subroutine run
        end module halo_relax
    """,
    # A target dummy written through a pointer into it too: the pointer's
    # element is not a write of the dummy adfort can see, so the save
    # stays whole (a section of b(1) alone lost p(1) = b(3)).
    "target_dummy.f90": """\
        ! adfort: routine=outer dep=cost indep=x
        ! adfort: init n=6 x=0.5:1
        module target_dummy
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine edge(n, b)
            integer, intent(in) :: n
            real(wp), target, intent(inout) :: b(n)
            real(wp), pointer :: p(:)
            p => b(3:n)
            b(1) = b(1)**2
            p(1) = p(1)*b(2)
          end subroutine edge

          subroutine outer(n, x, cost)
            integer, intent(in) :: n
            real(wp), intent(in) :: x(n)
            real(wp), intent(out) :: cost
            real(wp) :: a(n)
            integer :: k
            a = x
            cost = 0.0_wp
            do k = 1, 3
              call edge(n, a)
              cost = cost + a(3)*a(1)*a(2)
            end do
          end subroutine outer
        end module target_dummy
    """,
    # Joint: step's sections are put back once before step_rev in the
    # first loop (nothing else there reads q); in the second loop a
    # statement reads q after the call, so the values from before the
    # call are put back after step_rev too.
    "joint_restores.f90": """\
        ! adfort: routine=run dep=cost indep=q0,w
        ! adfort: init n=7 nt=3 q0=0.5:1 w=0.1:0.2
        module joint_restores
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine step(n, w, q)
            integer, intent(in) :: n
            real(wp), intent(in) :: w
            real(wp), intent(inout) :: q(0:n+1)
            integer :: i
            do i = 1, n
              q(i) = q(i) + w*q(i)*(q(i+1) - q(i-1))
            end do
          end subroutine step

          subroutine ends(n, q)
            integer, intent(in) :: n
            real(wp), intent(inout) :: q(0:n+1)
            q(0) = q(n)
            q(n+1) = q(1)
          end subroutine ends

          subroutine run(n, nt, q0, w, cost)
            integer, intent(in) :: n, nt
            real(wp), intent(in) :: q0(0:n+1), w
            real(wp), intent(out) :: cost
            real(wp) :: q(0:n+1), p(0:n+1)
            integer :: it
            q = q0
            p = q0
            cost = 0.0_wp
            do it = 1, nt
              call step(n, w, q)
              call ends(n, q)
            end do
            do it = 1, nt
              call step(n, w, p)
              cost = cost + p(2)*p(3)
              call ends(n, p)
            end do
            cost = cost + sum(q**2) + sum(p**2)
          end subroutine run
        end module joint_restores
    """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_calls_kept(tmp_path, name):
    import textwrap
    path = tmp_path / name
    path.write_text(textwrap.dedent(CASES[name]))
    res = harness.check_fixture(path, "joint", tmp_path / "joint-calls",
                                extra_cli=["--no-inline"])
    assert res.rel_err < 1e-6, res.describe()
    assert res.primal_err < 1e-10, res.describe()


def _saves(text, routine):
    """The references pushed by `routine` of the generated `text`."""
    body = harness.routine_source(text, routine)
    return re.findall(r"value_tape_put\(([^;]*?), size\(", body) + \
        re.findall(r"value_tape\([^)]*\) = (\w+(?:\([^=]*\))?)\s*$", body, re.M)


def _differentiate(tmp_path, schedule):
    return harness.differentiate_text(tmp_path, "halo_relax.f90", CASES["halo_relax.f90"],
                                      extra_cli=["--schedule", schedule]).lower()


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_halo_edges_are_saved_not_the_field(tmp_path, schedule):
    text = _differentiate(tmp_path, schedule)
    rec = "run_rec" if schedule == "split" else "run_rev"
    saves = [s.replace(" ", "") for s in _saves(text, rec)]
    # Inside the time loop: the four edges of q (nested routines, lower
    # bounds 0, a loop running down), not q whole; q whole once, after
    # the loop (the final value, handed over).
    for edge in ("q(:0,1:ny)", "q(nx+1:,1:ny)", "q(:,:0)", "q(:,ny+1:)"):
        assert edge in saves, saves
    assert saves.count("q") <= 1, saves


def test_rows_are_saved_where_the_caller_fixes_them(tmp_path):
    """Joint puts back what a callee changes before running it again:
    relax(1, …) changes row 1 of t; relax(kk, …), kk changing every step,
    and mix, at a subscript it computes, may change any element."""
    saves = [s.replace(" ", "") for s in _saves(_differentiate(tmp_path, "joint"), "run_rev")]
    assert "t(:1,:)" in saves, saves
    assert "q(1:nx,1:ny)" in saves, saves   # diffuse's section assignment
    assert saves.count("t") >= 2, saves


def test_sections_reach_the_whole_array_when_shapes_differ(tmp_path):
    """A dummy declared with another shape than the actual (the caller's
    leading dimension is larger): element (i, j) is not the same element,
    so the save stays whole (and the gradient right)."""
    source = """\
        ! adfort: routine=outer dep=cost indep=a
        ! adfort: init n=4 a=0.5:1
        subroutine edge(n, b)
          integer n
          double precision b(n, n)
          integer j
          do j = 1, n
            b(1, j) = b(1, j)**2
          end do
        end
        subroutine outer(n, a, cost)
          integer n
          double precision a(n+1, n), cost
          integer k
          cost = 0.0d0
          do k = 1, 2
            call edge(n, a)
            cost = cost + a(2, 1)*a(1, 2)
          end do
        end
    """
    for schedule in ("split", "joint"):
        (tmp_path / schedule).mkdir()
        harness.check_source(tmp_path / schedule, "shapes.f90", source, schedule)
    text = harness.differentiate_text(tmp_path, "shapes.f90", source,
                                      extra_cli=["--schedule", "joint"]).lower()
    assert re.search(r"value_tape_put\(a, size\(a\)\)", text), text


def test_joint_puts_back_once_what_nothing_reads_after_the_call(tmp_path):
    text = harness.differentiate_text(tmp_path, "joint_restores.f90",
                                      CASES["joint_restores.f90"],
                                      extra_cli=["--schedule", "joint"]).lower()
    ret = harness.routine_source(text, "run_ret_given_body")
    # (Reversed: the second loop, on p, comes first.)
    p_loop, q_loop = [block[:block.index("enddo")] for block in ret.split("do it = nt")[1:]]
    # The cost reads p after the step, but step_rev puts back the p it was
    # given (it tapes what it overwrites): read once, before it, too
    # (tests/test_rev_restores.py).
    assert p_loop.count("p(1:n) = value_tape") == 1, p_loop
    assert p_loop.index("p(1:n) = value_tape") < p_loop.index("call step_rev"), p_loop
    assert q_loop.count("q(1:n) = value_tape") == 1, q_loop
    assert q_loop.index("q(1:n) = value_tape") < q_loop.index("call step_rev"), q_loop


def test_adjacent_sections_are_one_save(tmp_path):
    """A back substitution writes x(n), then x(1:n-1): together all of x,
    saved whole in one piece around the call.  Saved whole, it also gives
    the adjoints before the call their values back, so a later call that
    overwrites the column (a heating increment) saves nothing more."""
    fixture = harness.FIXTURE_DIR / "implicit_column_tendencies.f90"
    text = harness.differentiate_text(tmp_path, fixture.name, fixture.read_text(),
                                      ["--schedule", "joint"])
    rev = harness.routine_source(text, "column_run_rev").lower()
    step = rev[rev.index("do it = 1, nt"):rev.index("call shift_down(")]
    assert re.findall(r"value_tape\([^=]*\) = (.+)", step) == ["t", "q(2:)", "q(:nlev - 1)"], \
        step


def test_merged_sections():
    from psyclone.psyir.nodes import Literal, Reference
    from psyclone.psyir.symbols import DataSymbol
    from adfort.exprs import INTEGER_TYPE
    from adfort.reach import _plus
    from adfort.sections import _merged
    n = DataSymbol("n", INTEGER_TYPE)

    def one():
        return Literal("1", INTEGER_TYPE)
    # (n:n) and (1:n-1) in the first dimension, the same second dimension.
    rows = (one(), Reference(n))
    found = _merged([[(Reference(n), Reference(n)), rows],
                     [(one(), _plus(Reference(n), -1)), (one(), Reference(n))]])
    assert len(found) == 1
    assert [b.debug_string() for b in found[0][0]] == ["1", "n"]
    # Gaps and differences in two dimensions stay apart.
    assert len(_merged([[(one(), one())], [(Reference(n), Reference(n))]])) == 2
    assert len(_merged([[(one(), one()), (one(), one())],
                        [(Literal("2", INTEGER_TYPE), Literal("2", INTEGER_TYPE)),
                         (Literal("2", INTEGER_TYPE), Literal("2", INTEGER_TYPE))]])) == 2
