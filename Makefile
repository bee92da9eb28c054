# adfort — set-up, demo and tests.  Every install step lives here so that a
# fresh machine passes `make demo` and `make test` with nothing done by hand.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEMO   := build/demo

.PHONY: setup gfortran mpi demo mpi-demo test test-harness bench bench-checkpointing fuzz clean

setup: $(VENV)/.installed gfortran mpi

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

gfortran:
	@command -v gfortran >/dev/null 2>&1 || { \
	  echo "installing gfortran (Debian package)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq gfortran >/dev/null; }

# Open MPI: the adjoints of MPI communication are compiled with mpif90 and
# run under mpirun (tests/test_mpi.py).
mpi: gfortran
	@{ command -v mpif90 && command -v mpirun; } >/dev/null 2>&1 || { \
	  echo "installing Open MPI (Debian packages openmpi-bin, libopenmpi-dev)"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) apt-get install -y -qq openmpi-bin libopenmpi-dev >/dev/null; }

# Differentiate the bundled ocean equation-of-state example, compile the
# adjoint with a driver and print the gradient next to finite differences.
demo: setup
	@mkdir -p $(DEMO)
	$(BIN)/adfort diff examples/seawater.f90 --dep rho --indep temp,salt -o $(DEMO)/seawater_ad.f90
	cd $(DEMO) && gfortran -O2 -o demo ../../examples/seawater.f90 seawater_ad.f90 ../../examples/demo_driver.f90
	$(DEMO)/demo

# Differentiate the domain-decomposed tracer model of examples/mpi_diffusion,
# build it with mpif90 and run the gradient check under mpirun (NP ranks).
MPIDEMO := build/mpi_demo
NP      ?= 4
mpi-demo: setup
	@mkdir -p $(MPIDEMO)
	$(BIN)/adfort diff examples/mpi_diffusion/diffusion.f90 --routine misfit --dep cost \
	  --indep c0,params -o $(MPIDEMO)/diffusion_ad.f90
	cd $(MPIDEMO) && mpif90 -O2 -o misfit ../../examples/mpi_diffusion/diffusion.f90 \
	  diffusion_ad.f90 ../../examples/mpi_diffusion/driver.f90
	cd $(MPIDEMO) && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	  mpirun -np $(NP) --oversubscribe ./misfit

# The tests run adfort in a fresh interpreter hundreds of times: compile
# its modules once (a PYTHONDONTWRITEBYTECODE environment would otherwise
# have every run compile them again, 0.25 s each).  They run on every core
# (pytest-xdist), a test file to a worker: a file's tests share what they
# generate and compile (harness caches, module-scoped fixtures).
test: setup
	$(BIN)/python -m compileall -q adfort
	$(BIN)/python -m pytest -q -n auto --dist loadfile -m "not harness_selftest"

# The test harness itself on every fixture (drivers fed finite-difference
# adjoints and Jacobians): run after adding a fixture or changing the harness.
test-harness: setup
	$(BIN)/python -m pytest -q -n auto --dist loadfile -m harness_selftest

# Adjoint cost and peak tape of the benchmarks/ kernels, side by side with
# Tapenade when it is there (scripts/benchmark.py --fixture-mode: test fixtures).
TAPENADE ?= $(wildcard ../shared/peers/tapenade-3.16)
bench: setup
	$(BIN)/python scripts/benchmark.py $(if $(TAPENADE),--tapenade $(TAPENADE)) $(BENCHFLAGS)

# Peak memory and cost ratio of checkpointed time loops against the number of
# steps (2-D shallow water; plain, binomial, every(k)); writes docs/checkpointing.png.
bench-checkpointing: setup
	$(BIN)/python scripts/checkpoint_benchmark.py $(CKPTFLAGS)

# Random-program fuzzing campaign (adfort/testing): make fuzz N=5000 SEED=1 LEVEL=all
N     ?= 1000
SEED  ?= 1
LEVEL ?= all
JOBS  ?= 2
# Campaigns also generate the statements CI's fixed-seed cases leave out.
FUZZFLAGS ?= --flag self_lookup=1
fuzz: setup
	mkdir -p build/fuzz
	nice $(BIN)/python -m adfort.testing --n $(N) --seed $(SEED) --level $(LEVEL) \
	  --jobs $(JOBS) --out build/fuzz/report-$(LEVEL)-$(SEED) $(FUZZFLAGS)

clean:
	rm -rf build $(VENV) *.egg-info
