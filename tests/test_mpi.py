"""Adjoints of MPI communication, run on a real MPI (Open MPI, installed by
``make mpi``): the generated code is compiled with mpif90 and run under
``mpirun -np 1, 2, 4 --oversubscribe``.

- tests/fortran_fixtures/mpi/heat_mpi_{sendrecv,isend,neighbours}.f90:
  a 2-D diffusion-advection model decomposed in y, halo exchange by
  MPI_Sendrecv, by MPI_Irecv/MPI_Isend/MPI_Waitall, or by MPI_Irecv and
  MPI_Isend posted in loops over the neighbours, parameters broadcast
  from rank 0, global cost by MPI_Allreduce.  Its gradient matches central
  differences of the whole parallel run (dot product summed over ranks)
  and the serial model's adjoint on the same global grid (heat_serial.f90)
  to round-off, under split and joint reversal.
- smooth_f77.f: FORTRAN 77 with INCLUDE 'mpif.h' and MPI_SENDRECV on a ring.
- collectives.f90: MPI_Scatter, MPI_Allreduce (MAX, SUM in place),
  MPI_Reduce (MIN, SUM), MPI_Allgather, MPI_Gather, MPI_Bcast and a ring of
  MPI_Send/MPI_Recv.
- Tangent mode (--mode forward) of the heat models, the collectives and
  the F77 fixture: J·ẋ against central differences of the whole parallel
  run and against the adjoint (dot-product test summed over ranks); a
  receive from MPI_ANY_SOURCE; Hessian-vector products (--mode hvp, the
  tangent of the adjoint's communication) against differences of
  gradients.
- Patterns adfort cannot differentiate are errors at file:line, in each
  mode.

Nothing is skipped: without mpif90/mpirun the tests fail, naming ``make mpi``.
"""

import os
import re
import shutil
import subprocess
import textwrap
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fortran_fixtures" / "mpi"
ROOT = Path(__file__).resolve().parents[1]
FD_TOLERANCE = 1e-6
SERIAL_TOLERANCE = 1e-12

# Open MPI refuses to run as root unless told to; tests may run as root in
# containers.  Oversubscription: 4 ranks on a 2-core machine.
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")


@pytest.fixture(scope="module")
def mpi():
    """mpif90 and mpirun, or a failure saying how to get them."""
    found = {tool: shutil.which(tool) for tool in ("mpif90", "mpirun")}
    missing = [tool for tool, path in found.items() if path is None]
    if missing:
        pytest.fail(f"{' and '.join(missing)} not found on PATH: the MPI tests compile and "
                    "run the adjoints of MPI communication and cannot be skipped; install "
                    "Open MPI with `make mpi` (apt-get install openmpi-bin libopenmpi-dev)")
    return found


def _adfort(*args, cwd):
    return subprocess.run([sys.executable, "-m", "adfort", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=dict(os.environ))


def _differentiate(source, routine, dep, indep, schedule, out, cwd, mode="reverse"):
    result = _adfort("diff", source, "--routine", routine, "--dep", dep, "--indep", indep,
                     "--schedule", schedule, "--mode", mode, "-o", out, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return out


def _compile(compiler, sources, exe, cwd):
    result = subprocess.run([compiler, "-O0", "-g", "-fcheck=all", "-o", exe,
                             *map(str, sources)], cwd=cwd, capture_output=True, text=True,
                            env=MPI_ENV)
    assert result.returncode == 0, result.stderr
    return exe


def _mpirun(mpi, exe, ranks, cwd):
    result = subprocess.run([mpi["mpirun"], "-np", str(ranks), "--oversubscribe",
                             str(Path(cwd) / exe)], cwd=cwd, capture_output=True, text=True,
                            env=MPI_ENV, timeout=120)
    assert result.returncode == 0, f"-np {ranks}: {result.stdout}\n{result.stderr}"
    return _parse(result.stdout)


def _parse(text):
    """{label: [numbers]} of the driver's output lines (GRAD: all of them)."""
    found = {}
    for line in text.splitlines():
        parts = line.split()
        if parts and re.fullmatch(r"[A-Z]+", parts[0]):
            found.setdefault(parts[0], []).extend(float(v) for v in parts[1:])
    return found


def _relative(a, b):
    scale = max(max(abs(v) for v in b), 1e-300)
    return max(abs(x - y) for x, y in zip(a, b)) / scale


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    """The serial model's gradient on the global grid."""
    work = tmp_path_factory.mktemp("serial")
    _differentiate(FIXTURES / "heat_serial.f90", "model", "cost", "u0,params", "split",
                   "serial_ad.f90", work)
    _compile("gfortran", [FIXTURES / "heat_serial.f90", "serial_ad.f90",
                          FIXTURES / "driver_serial.f90"], "serial", work)
    result = subprocess.run([str(work / "serial")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return _parse(result.stdout)


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("exchange", ["sendrecv", "isend", "neighbours"])
def test_decomposed_heat_model(mpi, serial, exchange, schedule, tmp_path):
    source = FIXTURES / f"heat_mpi_{exchange}.f90"
    _differentiate(source, "model", "cost", "u0,params", schedule, "heat_ad.f90", tmp_path)
    generated = (tmp_path / "heat_ad.f90").read_text()
    assert re.search(r"^\s*use mpi\s*$", generated, re.MULTILINE | re.IGNORECASE)
    _compile(mpi["mpif90"], [source, "heat_ad.f90", FIXTURES / "driver_heat.f90"], "heat",
             tmp_path)
    for ranks in (1, 2, 4):
        found = _mpirun(mpi, "heat", ranks, tmp_path)
        fd, ad, error = found["DOT"]
        assert error < FD_TOLERANCE, (ranks, fd, ad)
        assert abs(ad) > 1e-3
        # Parameters are rank 0's: the other ranks' adjoints of them are zero.
        assert found["STRAY"] == [0.0]
        assert len(found["GRAD"]) == len(serial["GRAD"]) == 48
        assert _relative(found["GRAD"], serial["GRAD"]) < SERIAL_TOLERANCE, ranks
        assert _relative(found["PARAMS"], serial["PARAMS"]) < SERIAL_TOLERANCE, ranks
        assert _relative(found["COST"], serial["COST"]) < SERIAL_TOLERANCE, ranks


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_collectives(mpi, schedule, tmp_path):
    source = FIXTURES / "collectives.f90"
    _differentiate(source, "ensemble_cost", "cost", "x,w", schedule, "coll_ad.f90", tmp_path)
    _compile(mpi["mpif90"], [source, "coll_ad.f90", FIXTURES / "driver_collectives.f90"],
             "coll", tmp_path)
    for ranks in (1, 2, 4):
        found = _mpirun(mpi, "coll", ranks, tmp_path)
        fd, ad, error = found["DOT"]
        assert error < FD_TOLERANCE, (ranks, fd, ad)
        assert abs(ad) > 1e-3
        assert found["STRAY"] == [0.0]   # x is significant on the root alone


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_fortran77_mpif_h(mpi, schedule, tmp_path):
    """An F77 routine with INCLUDE 'mpif.h' (read as `use mpi`, which the
    generated external routines use)."""
    source = FIXTURES / "smooth_f77.f"
    _differentiate(source, "smooth", "e", "f", schedule, "smooth_ad.f90", tmp_path)
    assert "use mpi" in (tmp_path / "smooth_ad.f90").read_text()
    _compile(mpi["mpif90"], [source, "smooth_ad.f90", FIXTURES / "driver_smooth.f90"],
             "smooth", tmp_path)
    for ranks in (1, 2, 4):
        fd, ad, error = _mpirun(mpi, "smooth", ranks, tmp_path)["DOT"]
        assert error < FD_TOLERANCE, (ranks, fd, ad)


REJECTED = {
    "any_source": ("""
module gather_any
  use mpi
  implicit none
contains
  subroutine collect(x, total, comm)
    real(8), intent(in) :: x
    real(8), intent(out) :: total
    integer, intent(in) :: comm
    real(8) :: got
    integer :: rank, nproc, k, ierr
    integer :: status(MPI_STATUS_SIZE)
    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, nproc, ierr)
    total = x
    if (rank == 0) then
      do k = 1, nproc - 1
        call MPI_Recv(got, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 7, comm, status, ierr)
        total = total + got**2
      end do
    else
      call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 0, 7, comm, ierr)
    end if
  end subroutine collect
end module gather_any
""", "collect", "total", "x", 17, "MPI_ANY_SOURCE"),
    "one_sided": ("""
module onesided
  use mpi
  implicit none
contains
  subroutine push(x, y, n, comm)
    integer, intent(in) :: n, comm
    real(8), intent(in) :: x(n)
    real(8), intent(inout) :: y(n)
    integer :: win, ierr
    integer(kind=MPI_ADDRESS_KIND) :: size, disp
    size = 8 * n
    disp = 0
    call MPI_Win_create(y, size, 8, MPI_INFO_NULL, comm, win, ierr)
    call MPI_Win_fence(0, win, ierr)
    call MPI_Put(x, n, MPI_DOUBLE_PRECISION, 0, disp, n, MPI_DOUBLE_PRECISION, win, ierr)
    call MPI_Win_fence(0, win, ierr)
    call MPI_Win_free(win, ierr)
  end subroutine push
end module onesided
""", "push", "y", "x", 13, "one-sided"),
    "unknown_routine": ("""
module transpose_mod
  use mpi
  implicit none
contains
  subroutine transpose(a, b, n, comm)
    integer, intent(in) :: n, comm
    real(8), intent(in) :: a(n)
    real(8), intent(out) :: b(n)
    integer :: ierr, nproc
    call MPI_Comm_size(comm, nproc, ierr)
    call MPI_Alltoall(a, n / nproc, MPI_DOUBLE_PRECISION, b, n / nproc, &
                      MPI_DOUBLE_PRECISION, comm, ierr)
  end subroutine transpose
end module transpose_mod
""", "transpose", "b", "a", 11, "'MPI_Alltoall' is given the real 'a'"),
    "any_tag": ("""
module tagged
  use mpi
  implicit none
contains
  subroutine shift(x, y, comm)
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    integer, intent(in) :: comm
    integer :: rank, nproc, ierr
    integer :: status(MPI_STATUS_SIZE)
    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, nproc, ierr)
    call MPI_Sendrecv(x, 1, MPI_DOUBLE_PRECISION, mod(rank + 1, nproc), 3, &
                      y, 1, MPI_DOUBLE_PRECISION, mod(rank + nproc - 1, nproc), MPI_ANY_TAG, &
                      comm, status, ierr)
  end subroutine shift
end module tagged
""", "shift", "y", "x", 13, "MPI_ANY_TAG"),
    "request_waited_in_loop": ("""
module halo_loop
  use mpi
  implicit none
contains
  subroutine exchange(u, n, nb, neighbours, comm)
    integer, intent(in) :: n, nb, comm
    integer, intent(in) :: neighbours(nb)
    real(8), intent(inout) :: u(n, 0:nb)
    integer :: k, ierr
    integer :: requests(2 * nb)
    do k = 1, nb
      call MPI_Irecv(u(1, k), n, MPI_DOUBLE_PRECISION, neighbours(k), 1, comm, &
                     requests(k), ierr)
      call MPI_Isend(u(1, 0), n, MPI_DOUBLE_PRECISION, neighbours(k), 1, comm, &
                     requests(nb + k), ierr)
    end do
    do k = 1, 2 * nb
      call MPI_Wait(requests(k), MPI_STATUS_IGNORE, ierr)
    end do
  end subroutine exchange
end module halo_loop
""", "exchange", "u", "u", 12, "waited for as 'requests(k)'"),
    "mpif_h_in_module": ("""
module ffmod
  implicit none
  include 'mpif.h'
contains
  subroutine total(x, s, comm)
    real(8), intent(in) :: x
    real(8), intent(out) :: s
    integer, intent(in) :: comm
    integer :: ierr
    call MPI_Allreduce(sin(x) * x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
  end subroutine total
end module ffmod
""", "total", "s", "x", 3, "INCLUDE 'mpif.h' in the specification of a module"),
    "mpi_f08": ("""
module f08mod
  use mpi_f08
  implicit none
contains
  subroutine total(x, s, comm)
    real(8), intent(in) :: x
    real(8), intent(out) :: s
    type(MPI_Comm), intent(in) :: comm
    call MPI_Allreduce(x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm)
  end subroutine total
end module f08mod
""", "total", "s", "x", 2, "mpi_f08"),
    # The adjoint ran the reversed reduction on the freed communicator.
    "comm_free": ("""
module dupmod
  use mpi
  implicit none
contains
  subroutine gsum(x, cost, comm)
    integer, intent(in) :: comm
    real(8), intent(in) :: x
    real(8), intent(out) :: cost
    integer :: dup, ierr
    call MPI_Comm_dup(comm, dup, ierr)
    call MPI_Allreduce(x**2, cost, 1, MPI_DOUBLE_PRECISION, MPI_SUM, dup, ierr)
    call MPI_Comm_free(dup, ierr)
  end subroutine gsum
end module dupmod
""", "gsum", "cost", "x", 12, "'MPI_Comm_free' frees a handle"),
}


@pytest.mark.parametrize("case", sorted(REJECTED))
def test_unreversible_communication_rejected(case, tmp_path):
    text, routine, dep, indep, line, phrase = REJECTED[case]
    source = tmp_path / f"{case}.f90"
    source.write_text(text.lstrip("\n"))
    result = _adfort("diff", source.name, "--routine", routine, "--dep", dep, "--indep", indep,
                     "-o", "out.f90", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert f"{case}.f90:{line}:" in result.stderr, result.stderr
    assert phrase in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out.f90").exists()


def test_example(mpi, tmp_path):
    """examples/mpi_diffusion, as README's MPI section and `make mpi-demo`
    run it."""
    example = ROOT / "examples" / "mpi_diffusion"
    _differentiate(example / "diffusion.f90", "misfit", "cost", "c0,params", "split",
                   "diffusion_ad.f90", tmp_path)
    _compile(mpi["mpif90"], [example / "diffusion.f90", "diffusion_ad.f90",
                             example / "driver.f90"], "misfit", tmp_path)
    result = subprocess.run([mpi["mpirun"], "-np", "2", "--oversubscribe",
                             str(tmp_path / "misfit")], cwd=tmp_path, capture_output=True,
                            text=True, env=MPI_ENV, timeout=120)
    assert result.returncode == 0, result.stderr
    difference = float(re.search(r"relative difference\s+(\S+)", result.stdout).group(1))
    assert difference < FD_TOLERANCE, result.stdout


DATATYPE_MODEL = """
module weighted_sum
  use mpi
  implicit none
contains
  subroutine total(x, s, n, dtype, comm)
    integer, intent(in) :: n, dtype, comm
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: s
    real(8) :: y(n), partial
    integer :: count, nbytes, ierr
    y = x**2 + sin(x)
    call MPI_Type_size(dtype, nbytes, ierr)
    count = n / (nbytes / 8)
    call MPI_Bcast(y, count, dtype, 0, comm, ierr)
    partial = sum(y * x)
    call MPI_Allreduce(partial, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
  end subroutine total
end module weighted_sum
"""

DATATYPE_DRIVER = """
program driver
  use mpi
  use weighted_sum, only: total
  use weighted_sum_ad, only: total_rev
  implicit none
  integer, parameter :: n = 4
  integer :: ierr, rank, dtype, i
  real(8) :: x(n), dx(n), x_adj(n), xp(n), s, sp, sm, s_adj, local, ad, fd
  character(len=8) :: which
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, which)
  dtype = MPI_DOUBLE_PRECISION
  if (which == 'pairs') then
    call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, dtype, ierr)
    call MPI_Type_commit(dtype, ierr)
  end if
  do i = 1, n
    x(i) = 0.3d0 * i + 0.1d0 * rank
    dx(i) = cos(1.0d0 * i + rank)
  end do
  xp = x + 1d-6 * dx
  call total(xp, sp, n, dtype, MPI_COMM_WORLD)
  xp = x - 1d-6 * dx
  call total(xp, sm, n, dtype, MPI_COMM_WORLD)
  fd = (sp - sm) / 2d-6
  x_adj = 0
  s_adj = merge(1d0, 0d0, rank == 0)
  call total_rev(x, x_adj, s, s_adj, n, dtype, MPI_COMM_WORLD)
  local = sum(x_adj * dx)
  call MPI_Allreduce(local, ad, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a, 3es26.17)') 'DOT ', fd, ad, abs(fd - ad) / abs(fd)
  call MPI_Finalize(ierr)
end program driver
"""


def test_datatype_checked_at_run_time(mpi, tmp_path):
    """A datatype adfort cannot read (an argument) is checked where the
    adjoint runs: one real value per element, else ERROR STOP naming the
    call."""
    (tmp_path / "model.f90").write_text(DATATYPE_MODEL.lstrip("\n"))
    (tmp_path / "driver.f90").write_text(DATATYPE_DRIVER.lstrip("\n"))
    _differentiate("model.f90", "total", "s", "x", "split", "model_ad.f90", tmp_path)
    _compile(mpi["mpif90"], ["model.f90", "model_ad.f90", "driver.f90"], "sum", tmp_path)
    fd, ad, error = _mpirun(mpi, "sum", 2, tmp_path)["DOT"]
    assert error < FD_TOLERANCE, (fd, ad)
    result = subprocess.run([mpi["mpirun"], "-np", "2", "--oversubscribe",
                             str(tmp_path / "sum"), "pairs"], cwd=tmp_path,
                            capture_output=True, text=True, env=MPI_ENV, timeout=120)
    assert result.returncode != 0
    assert "model.f90:14: the MPI datatype dtype is not one real value per element" \
        in result.stdout + result.stderr


TANGENT_TOLERANCE = 1e-6
DOT_TOLERANCE = 1e-12


def _check_tangent(found, ranks):
    """TANGENT: FD, J·ẋ, largest relative difference over ranks; DOT:
    ⟨ȳ, J ẋ⟩, ⟨Jᵀ ȳ, ẋ⟩, their relative difference."""
    fd, tangent, error = found["TANGENT"]
    assert error < TANGENT_TOLERANCE, (ranks, fd, tangent)
    assert abs(tangent) > 1e-3
    forward, backward, mismatch = found["DOT"]
    assert mismatch < DOT_TOLERANCE, (ranks, forward, backward)


@pytest.mark.parametrize("exchange,ranks", [("sendrecv", (1, 4)), ("isend", (2, 4)),
                                            ("neighbours", (2,))])
def test_tangent_heat_model(mpi, exchange, ranks, tmp_path):
    """Halo exchanges by MPI_Sendrecv, by MPI_Irecv/MPI_Isend/MPI_Waitall
    (tangent requests), posted in loops; MPI_Bcast, MPI_Allreduce (SUM),
    integer and logical communication left as it is."""
    source = FIXTURES / f"heat_mpi_{exchange}.f90"
    _differentiate(source, "model", "cost", "u0,params", "split", "heat_fwd.f90", tmp_path,
                   mode="forward")
    _differentiate(source, "model", "cost", "u0,params", "split", "heat_ad.f90", tmp_path)
    generated = (tmp_path / "heat_fwd.f90").read_text()
    if exchange != "sendrecv":
        assert "requests_d = MPI_REQUEST_NULL" in generated
        assert "MPI_Waitall(4, requests_d, MPI_STATUSES_IGNORE" in generated
    _compile(mpi["mpif90"], [source, "heat_fwd.f90", "heat_ad.f90",
                             FIXTURES / "driver_heat_tangent.f90"], "heat", tmp_path)
    for count in ranks:
        _check_tangent(_mpirun(mpi, "heat", count, tmp_path), count)


def test_tangent_collectives(mpi, tmp_path):
    """MPI_Scatter, MPI_Allreduce (MAX, SUM in place), MPI_Reduce (MIN,
    SUM), MPI_Allgather, MPI_Gather, MPI_Bcast, MPI_Send/MPI_Recv,
    MPI_Sendrecv_replace, MPI_Isend/MPI_Irecv with MPI_Wait."""
    source = FIXTURES / "collectives.f90"
    _differentiate(source, "ensemble_cost", "cost", "x,w", "split", "coll_fwd.f90", tmp_path,
                   mode="forward")
    _differentiate(source, "ensemble_cost", "cost", "x,w", "split", "coll_ad.f90", tmp_path)
    generated = (tmp_path / "coll_fwd.f90").read_text()
    assert "! tangent of the MPI_MAX" in generated and "MPI_MINLOC" in generated
    _compile(mpi["mpif90"], [source, "coll_fwd.f90", "coll_ad.f90",
                             FIXTURES / "driver_collectives_tangent.f90"], "coll", tmp_path)
    for ranks in (1, 2, 4):
        _check_tangent(_mpirun(mpi, "coll", ranks, tmp_path), ranks)


SMOOTH_TANGENT_DRIVER = """
program driver_smooth_tangent
  use mpi
  implicit none
  integer, parameter :: n = 5, niter = 4
  integer :: ierr, rank, i
  double precision :: f(n), df(n), f_adj(n), w(n), dw(n), e, e_d, ep, em, e_adj, h
  double precision :: fd, local, forward, backward
  external smooth, smooth_fwd, smooth_rev

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  do i = 1, n
    f(i) = 0.4d0 + 0.3d0 * sin(1.3d0 * (rank * n + i))
    df(i) = cos(0.7d0 * (rank * n + i))
  end do
  h = 1.0d-6
  w = f + h * df
  call smooth(n, niter, w, ep, MPI_COMM_WORLD)
  w = f - h * df
  call smooth(n, niter, w, em, MPI_COMM_WORLD)
  fd = (ep - em) / (2 * h)
  w = f
  dw = df
  call smooth_fwd(n, niter, w, dw, e, e_d, MPI_COMM_WORLD)
  e_adj = 1.0d0 + rank
  local = e_adj * e_d
  call MPI_Allreduce(local, forward, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  f_adj = 0.0d0
  w = f
  call smooth_rev(n, niter, w, f_adj, e, e_adj, MPI_COMM_WORLD)
  local = sum(f_adj * df)
  call MPI_Allreduce(local, backward, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a, 3es26.17)') 'TANGENT ', fd, e_d, abs(fd - e_d) / abs(fd)
    write (*, '(a, 3es26.17)') 'DOT ', forward, backward, abs(forward - backward) / abs(backward)
  end if
  call MPI_Finalize(ierr)
end program driver_smooth_tangent
"""


def test_tangent_fortran77_mpif_h(mpi, tmp_path):
    """INCLUDE 'mpif.h' and MPI_SENDRECV in tangent mode, as in reverse mode."""
    source = FIXTURES / "smooth_f77.f"
    _differentiate(source, "smooth", "e", "f", "split", "smooth_fwd.f90", tmp_path,
                   mode="forward")
    _differentiate(source, "smooth", "e", "f", "split", "smooth_ad.f90", tmp_path)
    (tmp_path / "driver.f90").write_text(SMOOTH_TANGENT_DRIVER.lstrip("\n"))
    _compile(mpi["mpif90"], [source, "smooth_fwd.f90", "smooth_ad.f90", "driver.f90"],
             "smooth", tmp_path)
    _check_tangent(_mpirun(mpi, "smooth", 2, tmp_path), 2)


ANY_SOURCE_MODEL = """
module gather_any
  use mpi
  implicit none
contains
  subroutine collect(x, total, comm)
    real(8), intent(in) :: x
    real(8), intent(out) :: total
    integer, intent(in) :: comm
    real(8) :: got
    integer :: rank, nproc, k, ierr
    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, nproc, ierr)
    total = x
    if (rank == 0) then
      do k = 1, nproc - 1
        ! Whichever rank comes first: the tangent follows its status.
        call MPI_Recv(got, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &
                      MPI_STATUS_IGNORE, ierr)
        total = total + got**2
      end do
    else
      call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 0, rank, comm, ierr)
    end if
  end subroutine collect
end module gather_any
"""

ANY_SOURCE_DRIVER = """
program driver
  use mpi
  use gather_any, only: collect
  use gather_any_fwd, only: collect_fwd
  implicit none
  integer :: ierr, rank, nproc, r, trial
  real(8) :: x, x_d, total, total_d, tp, tm, exact, error
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  ! Each rank's direction differs: a tangent received from another rank
  ! than its value would show.
  x = 1.0d0 + 0.5d0 * rank
  x_d = 1.0d0 + rank
  exact = 1.0d0
  do r = 1, nproc - 1
    exact = exact + 2 * (1.0d0 + 0.5d0 * r) * (1.0d0 + r)
  end do
  ! The barriers keep a sender from running ahead to the next call, whose
  ! message rank 0 could take as this one's.
  error = 0
  do trial = 1, 5
    call collect_fwd(x, x_d, total, total_d, MPI_COMM_WORLD)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    error = max(error, abs(total_d - exact) / exact)
  end do
  call collect(x + 1d-6 * x_d, tp, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call collect(x - 1d-6 * x_d, tm, MPI_COMM_WORLD)
  if (rank == 0) write (*, '(a, 3es26.17)') 'COLLECT ', exact, error, &
    abs((tp - tm) / 2d-6 - exact) / exact
  call MPI_Finalize(ierr)
end program driver
"""


def test_tangent_any_source(mpi, tmp_path):
    """MPI_Recv from MPI_ANY_SOURCE with MPI_ANY_TAG (no adjoint: reverse
    mode rejects it): the tangent is received from the rank and with the
    tag of the value, read in a status put in place of MPI_STATUS_IGNORE."""
    (tmp_path / "model.f90").write_text(ANY_SOURCE_MODEL.lstrip("\n"))
    (tmp_path / "driver.f90").write_text(ANY_SOURCE_DRIVER.lstrip("\n"))
    _differentiate("model.f90", "collect", "total", "x", "split", "model_fwd.f90", tmp_path,
                   mode="forward")
    generated = (tmp_path / "model_fwd.f90").read_text()
    assert "ad_status(MPI_SOURCE), ad_status(MPI_TAG)" in generated
    _compile(mpi["mpif90"], ["model.f90", "model_fwd.f90", "driver.f90"], "any", tmp_path)
    exact, error, fd_error = _mpirun(mpi, "any", 4, tmp_path)["COLLECT"]
    assert error < 1e-15, (exact, error)
    assert fd_error < TANGENT_TOLERANCE


@pytest.mark.parametrize("case,ranks", [("heat_isend", 2), ("collectives", 4)])
def test_hvp_under_mpirun(mpi, case, ranks, tmp_path):
    """r_hvp, the tangent of r_rev and so of the adjoint's communication
    (reversed MPI_Isend/MPI_Irecv with their own requests, MPI_Reduce_local,
    MPI_Reduce_scatter_block, the MPI_MAXLOC/MPI_MINLOC reductions finding
    the owners of extrema), against central differences of gradients."""
    if case == "heat_isend":
        source, routine, indep = FIXTURES / "heat_mpi_isend.f90", "model", "u0,params"
        driver = FIXTURES / "driver_heat_hvp.f90"
    else:
        source, routine, indep = FIXTURES / "collectives.f90", "ensemble_cost", "x,w"
        driver = FIXTURES / "driver_collectives_hvp.f90"
    _differentiate(source, routine, "cost", indep, "split", "model_ad.f90", tmp_path)
    _differentiate(source, routine, "cost", indep, "split", "model_hvp.f90", tmp_path,
                   mode="hvp")
    _compile(mpi["mpif90"], [source, "model_ad.f90", "model_hvp.f90", driver], "hvp",
             tmp_path)
    found = _mpirun(mpi, "hvp", ranks, tmp_path)
    scale, error = found["HVP"]
    assert scale > 1e-3 and error < TANGENT_TOLERANCE, (scale, error)
    scale, error = found["GRADIENT"]
    assert scale > 1e-3 and error < 1e-13, (scale, error)


TANGENT_REJECTED = {
    "irecv_any_source": ("""
module post_any
  use mpi
  implicit none
contains
  subroutine take(x, y, comm)
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    integer, intent(in) :: comm
    integer :: rank, nproc, request, ierr
    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, nproc, ierr)
    call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 4, comm, request, ierr)
    call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, mod(rank + 1, nproc), 4, comm, ierr)
    call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
  end subroutine take
end module post_any
""", "take", "y", "x", 12, "adfort follows wildcards in blocking receives"),
    "request_tested": ("""
module polled
  use mpi
  implicit none
contains
  subroutine take(x, y, comm)
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    integer, intent(in) :: comm
    integer :: rank, nproc, request, ierr
    logical :: done
    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, nproc, ierr)
    call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, mod(rank + nproc - 1, nproc), 4, comm, &
                   request, ierr)
    call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, mod(rank + 1, nproc), 4, comm, ierr)
    done = .false.
    do while (.not. done)
      call MPI_Test(request, done, MPI_STATUS_IGNORE, ierr)
    end do
  end subroutine take
end module polled
""", "take", "y", "x", 18, "'MPI_Test' is given the request 'request'"),
    "request_argument": ("""
module started
  use mpi
  implicit none
contains
  subroutine start(x, y, n, request, comm)
    integer, intent(in) :: n, comm
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y(n)
    integer, intent(out) :: request
    integer :: ierr
    y = x**2
    call MPI_Isend(y, n, MPI_DOUBLE_PRECISION, 0, 1, comm, request, ierr)
  end subroutine start
end module started
""", "start", "y", "x", 12, "not a local variable of the routine"),
    "maxloc_reduce": ("""
module located
  use mpi
  implicit none
contains
  subroutine peak(x, y, comm)
    real(8), intent(in) :: x(2)
    real(8), intent(out) :: y(2)
    integer, intent(in) :: comm
    integer :: ierr
    call MPI_Reduce(x, y, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, 0, comm, ierr)
  end subroutine peak
end module located
""", "peak", "y", "x", 10, "reduces real data with 'MPI_MAXLOC'"),
}


@pytest.mark.parametrize("case", sorted(TANGENT_REJECTED) + ["mpi_f08", "one_sided",
                                                            "unknown_routine"])
def test_tangent_rejections(case, tmp_path):
    """What tangent mode cannot differentiate is an error at file:line, as
    in reverse mode (mpi_f08, one-sided and unknown routines: REJECTED)."""
    if case in TANGENT_REJECTED:
        text, routine, dep, indep, line, phrase = TANGENT_REJECTED[case]
    else:
        text, routine, dep, indep, line, phrase = REJECTED[case]
    source = tmp_path / f"{case}.f90"
    source.write_text(text.lstrip("\n"))
    result = _adfort("diff", source.name, "--routine", routine, "--dep", dep, "--indep", indep,
                     "--mode", "forward", "-o", "out.f90", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert f"{case}.f90:{line}:" in result.stderr, result.stderr
    assert phrase in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out.f90").exists()


def test_hvp_rejects_what_the_adjoint_cannot_do(tmp_path):
    """--mode hvp differentiates the adjoint: a receive from MPI_ANY_SOURCE,
    which tangent mode follows, stops reverse mode and so the HVP."""
    text = REJECTED["any_source"][0]
    (tmp_path / "model.f90").write_text(text.lstrip("\n"))
    result = _adfort("diff", "model.f90", "--routine", "collect", "--dep", "total", "--indep",
                     "x", "--mode", "hvp", "-o", "out.f90", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "model.f90:17:" in result.stderr and "MPI_ANY_SOURCE" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out.f90").exists()


def test_datatype_constructors_are_known_and_their_constants_kept(tmp_path):
    """MPI_Type_contiguous was an unknown routine that might change its
    arguments: the adjoint saved and restored MPI_DOUBLE_PRECISION, a
    constant (the generated code did not compile)."""
    source = tmp_path / "typemod.f90"
    source.write_text(textwrap.dedent("""\
        module typemod
          use mpi
          implicit none
        contains
          subroutine scale(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            integer :: rowtype, ierr, nbytes
            call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, rowtype, ierr)
            call MPI_Type_commit(rowtype, ierr)
            call MPI_Type_size(rowtype, nbytes, ierr)
            y = x*nbytes
          end subroutine scale
        end module typemod
        """))
    result = _adfort("diff", source.name, "--routine", "scale", "--dep", "y", "--indep", "x",
                     "-o", "out.f90", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "out.f90").read_text()
    assert "mpi_double_precision_out" not in text.lower()
    assert not re.search(r"^\s*mpi_double_precision\s*=", text, re.I | re.M)


def test_checkpointed_loop_with_an_intent_in_communicator(tmp_path):
    """An MPI routine's communicator argument is an input: the step of a
    checkpointed loop given the routine's intent(in) comm was taken for one
    that may change it (rejected as breaking intent(in))."""
    source = tmp_path / "ckmod.f90"
    source.write_text(textwrap.dedent("""\
        module ckmod
          use mpi
          implicit none
        contains
          subroutine run(n, nt, x, cost, comm)
            integer, intent(in) :: n, nt, comm
            real(8), intent(inout) :: x(n)
            real(8), intent(out) :: cost
            real(8) :: local, total
            integer :: it, ierr
            cost = 0d0
            !$adfort checkpoint binomial(snapshots=2)
            do it = 1, nt
              x = x - 0.1d0*x**2
              local = sum(x**2)
              call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
              cost = cost + total
            end do
          end subroutine run
        end module ckmod
        """))
    for schedule in ("split", "joint"):
        result = _adfort("diff", source.name, "--routine", "run", "--dep", "cost", "--indep",
                         "x", "--schedule", schedule, "-o", f"{schedule}.f90", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert "adfort_binomial_schedule" in (tmp_path / f"{schedule}.f90").read_text()
