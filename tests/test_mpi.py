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
- Patterns adfort cannot reverse are errors at file:line.

Nothing is skipped: without mpif90/mpirun the tests fail, naming ``make mpi``.
"""

import os
import re
import shutil
import subprocess
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


def _differentiate(source, routine, dep, indep, schedule, out, cwd):
    result = _adfort("diff", source, "--routine", routine, "--dep", dep, "--indep", indep,
                     "--schedule", schedule, "-o", out, cwd=cwd)
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


@pytest.mark.parametrize("mode", ["forward", "hvp"])
def test_tangent_modes_reject_active_communication(mode, tmp_path):
    """Tangents of MPI communication are not generated yet: sending x
    without x_d would give the receiver a silently wrong tangent, so
    --mode forward and --mode hvp stop at the first active communication."""
    example = Path(__file__).resolve().parent.parent / "examples" / "mpi_diffusion"
    result = _adfort("diff", str(example / "diffusion.f90"), "--routine", "misfit",
                     "--dep", "cost", "--indep", "c0,params", "--mode", mode, "-o", "out.f90",
                     cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "diffusion.f90" in result.stderr and "'MPI_Irecv'" in result.stderr
    assert "does not differentiate MPI communication yet" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out.f90").exists()
