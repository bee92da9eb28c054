"""The Fortran program ``adfort check`` compiles and runs.

It draws a base point (reals uniform in their ``--range``, integers from
``--size``), a direction ẋ for every perturbed input (scaled like the
input, so steps are relative) and a seed ȳ for every dependent, then
prints tagged lines that :mod:`adfort.check.report` judges:

``@dot_adj v a``
    ⟨x̄, ẋ⟩ from ``r_rev`` with zero independent adjoints, and Σ|x̄ᵢẋᵢ|;
``@dot_tan v a``
    ⟨ȳ, ẏ⟩ with ẏ from ``r_fwd`` (tangent available), and Σ|ȳᵢẏᵢ|;
``@fd h v noise``
    ⟨ȳ, (f(x + hẋ) − f(x − hẋ)) / 2h⟩ and its rounding noise;
``@taylor i h v noise [vec vnoise]``
    step i of the series (TAYLOR_STEPS per first step TAYLOR_H0):
    ⟨ȳ, f(x + hẋ) − f(x)⟩ and its rounding noise (with the tangent also
    ‖f(x + hẋ) − f(x) − hẏ‖₂ and its noise);
``@incr key err``
    max |x̄ − preset − x̄₀| / max(|preset|, |x̄₀|) of an independent whose
    adjoint came in preset (it must be incremented);
``@primal motion key err``
    largest relative difference between what a variable holds after the
    motion (``r_rev``, ``r_fwd``) and after ``r``;
``@unchanged key err``
    largest difference of an ``intent(in)`` argument before and after
    ``r_rev``;
``@outzero key v``
    largest |adjoint| of an ``intent(out)`` dependent after ``r_rev``;
``@ran_r``
    the original routine ran at the base point (a stop before is the
    routine's, at inputs the command line chose);
``@bad key``
    the original routine gave NaN or Inf in ``key`` at the base point.

Every call of ``r`` and of its motions starts from the base point: all
arguments and all the public module variables and COMMON members of the
sources (whatever the routine may change) are reset first.
"""

from adfort.testing.model import wrap_free

#: First steps of the Taylor series: the later ones are used when the
#: remainders from the first do not converge (a jump of INT, NINT, MOD…
#: within the step); a wrong gradient fails at every start.
TAYLOR_H0 = [1.0e-2, 1.0e-4, 1.0e-6]
TAYLOR_STEPS = 6
FD_STEPS = [1.0e-3, 1.0e-4, 1.0e-5, 1.0e-6, 1.0e-7]
NOISE_ULPS = 16
#: The module holding the tangent ``<name>_d`` of an active module variable
#: or COMMON member when the tangent's text does not show it (see
#: :func:`adfort.check.build.declaring_module`).
TANGENT_GLOBALS = "{module}_fwd"


def flit(value):
    """A double precision literal."""
    return f"{value:.17e}".replace("e", "d")


class Driver:
    """Builds the program text for a :class:`adfort.check.problem.Problem`.

    :param problem: the routine and its variables.
    :param rev_module: the module holding ``r_rev`` (None: external).
    :param tangent: the module holding ``r_fwd`` (None: external), or
        False when there is no tangent to check.
    :param seed: the seed of the random numbers.
    :param tangent_globals: {key: module} of the tangents of active globals.
    """

    def __init__(self, problem, rev_module, tangent=False, seed=20261126,
                 tangent_globals=None):
        self.p = problem
        #: {key of an active global: module holding its tangent}
        self.tangent_globals = tangent_globals or {}
        self.rev_module = rev_module
        self.tangent = tangent
        self.seed = seed
        self.decls, self.body = [], []

    # -- helpers -------------------------------------------------------
    def line(self, text):
        self.body.append(text)

    @staticmethod
    def red(var, expr):
        return f"sum({expr})" if var.is_array else f"({expr})"

    @staticmethod
    def maxabs(var, expr):
        return f"maxval(abs({expr}))" if var.is_array else f"abs({expr})"

    @staticmethod
    def dp(expr):
        return f"real({expr}, adf_dp)"

    def declare(self, var, suffixes, type_text=None):
        if not suffixes:
            return
        type_text = type_text or var.type_text
        if var.is_array:
            shape = ", ".join(":" for _ in range(var.rank))
            self.decls.append(f"{type_text}, allocatable :: " + ", ".join(
                f"{var.tag}{s}({shape})" for s in suffixes))
        else:
            self.decls.append(f"{type_text} :: " + ", ".join(
                f"{var.tag}{s}" for s in suffixes))

    def allocate_like(self, var, suffix, source):
        """Allocate ``var.tag+suffix`` with the bounds of `source` (real(dp)
        copies of arrays of any real kind)."""
        if var.is_array:
            bounds = ", ".join(f"lbound({source}, {d}):ubound({source}, {d})"
                               for d in range(1, var.rank + 1))
            self.line(f"allocate({var.tag}{suffix}({bounds}))")

    def fill(self, var, target, expr_of_u):
        """target = expr(u), u uniform in [0, 1) per element."""
        if var.is_array:
            self.line(f"call adf_random(size({target}))")
            self.line(f"{target} = " + expr_of_u(f"reshape(adf_buf, shape({target}))"))
        else:
            self.line(f"call adf_random(1)")
            self.line(f"{target} = " + expr_of_u("adf_buf(1)"))

    # -- the program ---------------------------------------------------
    def text(self):
        p = self.p
        r = p.routine
        procs = [f"{r}_rev"]
        tangent = self.tangent is not False
        uses = ["use iso_fortran_env, only: adf_i8 => int64"]
        if p.module:
            uses.append(f"use {p.module}, only: {r}")
        if self.rev_module:
            uses.append(f"use {self.rev_module}, only: {r}_rev")
        if tangent and self.tangent:
            uses.append(f"use {self.tangent}, only: {r}_fwd")
        uses += p.use_lines
        for var in p.globals:
            uses.append(f"use {var.module}, only: {var.tag} => {var.local}")
            if var.active:
                uses.append(f"use {var.module}_ad, only: {var.tag}_adj => {var.local}_adj")
            if var.active and tangent:
                holder = self.tangent_globals.get(var.key) or \
                    TANGENT_GLOBALS.format(module=var.module)
                uses.append(f"use {holder}, only: "
                            f"{var.tag}_d => {var.local}_d")
        externals = []
        if not p.module:
            externals.append(f"{r}" if not p.function else None)
        if not self.rev_module:
            externals.append(f"{r}_rev")
        if tangent and not self.tangent:
            externals.append(f"{r}_fwd")
        externals = [e for e in externals if e]
        self._declarations(tangent)
        self._main(tangent)
        head = ["program adfort_check"] + ["  " + u for u in uses] + [
            "  implicit none",
            "  integer, parameter :: adf_dp = kind(1.0d0)"]
        head += ["  " + d for d in p.decl_lines]
        if externals:
            head.append("  external :: " + ", ".join(externals))
        if p.module is None and p.function:
            result = p.args[-1]
            head.append(f"  {result.type_text}, external :: {r}")
        head += ["  integer(adf_i8) :: adf_rng", "  real(adf_dp), allocatable :: adf_buf(:)",
                 "  real(adf_dp) :: adf_h, adf_s, adf_sp, adf_sm, adf_s0, adf_noise, "
                 "adf_v, adf_a, adf_vn, adf_err",
                 "  integer :: adf_i",
                 f"  real(adf_dp), parameter :: adf_h0({len(TAYLOR_H0)}) = "
                 f"[{', '.join(flit(h) for h in TAYLOR_H0)}]"]
        head += ["  " + d for d in self.decls]
        out = head + ["  " + b for b in self.body] + ["contains"] + [
            "  " + c for c in self._procedures(tangent)] + ["end program adfort_check"]
        return "\n".join(w for line in out for w in wrap_free(line, 120)) + "\n"

    def _declarations(self, tangent):
        p = self.p
        for var in p.variables:
            own = [] if var.is_global else [""]
            suffixes = own + ["_b", "_r"]
            if var.active:
                suffixes += [] if var.is_global else ["_adj"]
                if tangent and not var.is_global:
                    suffixes.append("_d")
            self.declare(var, suffixes)
            if var.active:
                self.declare(var, ["_dir", "_seed", "_g", "_pre", "_yd"], "real(adf_dp)")

    def _set_base(self):
        """Base point: integers and logicals from --size, the globals'
        values at start, random reals."""
        p = self.p
        self.line(f"adf_rng = {self.seed}_adf_i8")
        for var in p.args:
            if not var.is_array and not var.is_real and var.value is not None:
                self.line(f"{var.tag} = {var.value}")
        for var in p.globals:
            if var.allocate:
                bounds = ", ".join(f"1:{e}" for e in var.allocate)
                self.line(f"if (.not. allocated({var.tag})) allocate({var.tag}({bounds}))")
        for var in p.args:
            if var.is_array:
                bounds = ", ".join(f"{lo}:{hi}" for lo, hi in var.dims)
                self.line(f"allocate({var.tag}({bounds}))")
            if not var.is_real and var.value is None:
                self.line(f"{var.tag} = 0" if var.intrinsic == "INTEGER"
                          else f"{var.tag} = .false.")
            if var.is_real:
                self._random(var, var.tag)
            if var.active and var.is_array:
                self.allocate_like(var, "_adj", var.tag)
                if self.tangent is not False:
                    self.allocate_like(var, "_d", var.tag)
        for var in p.globals:
            if var.range is not None and self._present(var):
                self._random(var, var.tag)
        for var in p.variables:
            self._copy(var, f"{var.tag}_b", var.tag)

    def _random(self, var, target):
        lo, hi = var.range
        self.fill(var, target, lambda u: f"{flit(lo)} + {flit(hi - lo)} * {u}")

    def _present(self, var):
        return not var.allocatable or var.allocate

    def _copy(self, var, dst, src):
        """dst = src, for an allocatable global only when src is allocated."""
        if var.allocatable and var.is_global:
            self.line(f"if (allocated({src})) {dst} = {src}")
        else:
            self.line(f"{dst} = {src}")

    def _main(self, tangent):
        p = self.p
        self._set_base()
        perturbed = p.perturbed
        deps = p.dependents
        self.line("! reference: the original routine at the base point")
        self.line("call adf_reset()")
        self.line("call adf_call_r()")
        self.line("write(*, '(a)') '@ran_r'")
        self.line("flush(6)")
        for var in p.variables:
            self._copy(var, f"{var.tag}_r", var.tag)
        for var in p.variables:
            if var.is_real and (not var.is_global or var.active):
                self.line(f"if (.not. all([abs({var.tag}_r) <= huge({var.tag}_r)])) "
                          f"write(*, '(a)') '@bad {var.key}'")
        for var in deps:
            self.allocate_like(var, "_seed", var.tag)
            self.fill(var, f"{var.tag}_seed", lambda u: f"0.5_adf_dp + {u}")
        for var in perturbed:
            self.allocate_like(var, "_dir", var.tag)
            lo, hi = var.range or (0.5, 1.5)
            floor = max(0.1 * (hi - lo), 1e-3 * max(abs(lo), abs(hi)), 1e-30)
            self.fill(var, f"{var.tag}_dir", lambda u: f"(2 * {u} - 1) * max(abs("
                      f"{self.dp(var.tag + '_b')}), {flit(floor)})")
        self.line("! the adjoint: independent adjoints start at zero")
        self._seed_adjoints(preset=False)
        self.line(f"call adf_call_rev()")
        self._contract_after("rev")
        for var in p.variables:
            if var.active:
                self.allocate_like(var, "_g", var.tag)
                self.line(f"{var.tag}_g = {var.tag}_adj")
        for var in [v for v in deps if not v.is_global and v.intent == "out"
                    and "indep" not in v.roles]:
            self.line(f"write(*, '(a, es27.17e3)') '@outzero {var.key} ', "
                      f"{self.maxabs(var, self.dp(var.tag + '_adj'))}")
        self.line("adf_v = " + (" + ".join(self.red(v, f"{v.tag}_g * {v.tag}_dir")
                                           for v in perturbed) or "0"))
        self.line("adf_a = " + (" + ".join(self.red(v, f"abs({v.tag}_g * {v.tag}_dir)")
                                           for v in perturbed) or "0"))
        self.line("write(*, '(a, 2es27.17e3)') '@dot_adj ', adf_v, adf_a")
        if p.presettable:
            self.line("! again with the independent adjoints preset: incremented?")
            for var in p.presettable:
                self.allocate_like(var, "_pre", var.tag)
                self.fill(var, f"{var.tag}_pre", lambda u: f"(1 + {u}) * merge("
                          f"{var.tag}_g, 1.0_adf_dp, {var.tag}_g /= 0)")
            self._seed_adjoints(preset=True)
            self.line("call adf_call_rev()")
            for var in p.presettable:
                diff = f"{self.dp(var.tag + '_adj')} - {var.tag}_pre - {var.tag}_g"
                scale = (f"max({self.maxabs(var, var.tag + '_pre')}, "
                         f"{self.maxabs(var, var.tag + '_g')}, tiny(1.0_adf_dp))")
                self.line(f"write(*, '(a, es27.17e3)') '@incr {var.key} ', "
                          f"{self.maxabs(var, diff)} / {scale}")
        if tangent:
            self._tangent(perturbed, deps)
        self.line("! central differences of the original routine")
        eps = "max(" + ", ".join(f"epsilon({v.tag})" for v in deps) + ", epsilon(1.0_adf_dp))"
        for h in FD_STEPS:
            self.line(f"adf_h = {flit(h)}")
            self._evaluate(perturbed, deps, "+", "adf_sp")
            self._evaluate(perturbed, deps, "-", "adf_sm")
            self.line(f"adf_noise = {NOISE_ULPS} * {eps} * adf_noise / (2 * adf_h)")
            self.line("write(*, '(a, 3es27.17e3)') '@fd ', adf_h, (adf_sp - adf_sm) / "
                      "(2 * adf_h), adf_noise")
        self.line("! Taylor test: remainders for halved steps")
        self.line("adf_s0 = " + " + ".join(
            self.red(v, f"{v.tag}_seed * {self.dp(v.tag + '_r')}") for v in deps))
        self.line(f"do adf_i = 0, {len(TAYLOR_H0) * TAYLOR_STEPS - 1}")
        self.line(f"  adf_h = adf_h0(adf_i / {TAYLOR_STEPS} + 1) / "
                  f"2.0_adf_dp**mod(adf_i, {TAYLOR_STEPS})")
        self._evaluate(perturbed, deps, "+", "adf_s", indent="  ")
        self.line(f"  adf_noise = {NOISE_ULPS} * {eps} * (adf_noise + " + " + ".join(
            self.red(v, f"abs({v.tag}_seed * {self.dp(v.tag + '_r')})") for v in deps) + ")")
        if tangent:
            self.line("  adf_vn = sqrt(" + " + ".join(self.red(
                v, f"({self.dp(v.tag)} - {self.dp(v.tag + '_r')} - adf_h * {v.tag}_yd)**2")
                for v in deps) + ")")
            self.line("  adf_err = " + f"{NOISE_ULPS} * {eps} * sqrt(" + " + ".join(
                self.red(v, f"{self.dp(v.tag + '_r')}**2") for v in deps) + ")")
            self.line("  write(*, '(a, i3, 5es27.17e3)') '@taylor ', adf_i, adf_h, "
                      "adf_s - adf_s0, adf_noise, adf_vn, adf_err")
        else:
            self.line("  write(*, '(a, i3, 3es27.17e3)') '@taylor ', adf_i, adf_h, "
                      "adf_s - adf_s0, adf_noise")
        self.line("end do")
        self.line("write(*, '(a)') '@end'")

    def _evaluate(self, perturbed, deps, sign, target, indent=""):
        """target = <seed, f(x ± h ẋ)>, adf_noise = <|seed|, |f|>."""
        self.line(indent + "call adf_reset()")
        for var in perturbed:
            self.line(indent + f"{var.tag} = {var.tag}_b {sign} adf_h * {var.tag}_dir")
        self.line(indent + "call adf_call_r()")
        self.line(indent + f"{target} = " + " + ".join(
            self.red(v, f"{v.tag}_seed * {self.dp(v.tag)}") for v in deps))
        self.line(indent + ("adf_noise = " if sign == "+" else "adf_noise = max(adf_noise, ")
                  + " + ".join(self.red(v, f"abs({v.tag}_seed * {self.dp(v.tag)})")
                               for v in deps) + ("" if sign == "+" else ")"))

    def _seed_adjoints(self, preset):
        self.line("call adf_reset()")
        for var in self.p.variables:
            if not var.active:
                continue
            if "dep" in var.roles:
                self.line(f"{var.tag}_adj = {var.tag}_seed")
            elif preset:
                self.line(f"{var.tag}_adj = {var.tag}_pre")
            else:
                self.line(f"{var.tag}_adj = 0")

    def _contract_after(self, motion):
        """Print what the motion left in every variable against ``r``'s."""
        for var in self.p.variables:
            cur, ref = var.tag, f"{var.tag}_r"
            if var.is_global and var.allocatable:
                self.line(f"if (allocated({cur}) .neqv. allocated({ref})) then")
                self.line(f"  write(*, '(a)') '@primal {motion} {var.key} 1.0'")
                self.line(f"else if (allocated({cur})) then")
                indent = "  "
            else:
                indent = ""
            if var.is_real:
                err = (f"{self.maxabs(var, self.dp(cur) + ' - ' + self.dp(ref))} / "
                       f"max({self.maxabs(var, self.dp(ref))}, tiny(1.0_adf_dp))")
            elif var.intrinsic == "BOOLEAN":
                err = f"merge(1.0_adf_dp, 0.0_adf_dp, any([{cur}] .neqv. [{ref}]))"
            elif var.intrinsic == "CHARACTER":
                err = f"merge(1.0_adf_dp, 0.0_adf_dp, {cur} /= {ref})"
            else:
                err = f"merge(1.0_adf_dp, 0.0_adf_dp, any([{cur}] /= [{ref}]))"
            self.line(indent + f"write(*, '(a, es27.17e3)') '@primal {motion} {var.key} ', {err}")
            if indent:
                self.line("end if")
            if motion == "rev" and not var.is_global and var.intent == "in":
                base = f"{var.tag}_b"
                if var.intrinsic == "BOOLEAN":
                    diff = f"merge(1.0_adf_dp, 0.0_adf_dp, any([{cur}] .neqv. [{base}]))"
                elif var.intrinsic == "CHARACTER":
                    diff = f"merge(1.0_adf_dp, 0.0_adf_dp, {cur} /= {base})"
                elif var.is_real:
                    diff = self.maxabs(var, f"{self.dp(cur)} - {self.dp(base)}")
                else:
                    diff = f"merge(1.0_adf_dp, 0.0_adf_dp, any([{cur}] /= [{base}]))"
                self.line(f"write(*, '(a, es27.17e3)') '@unchanged {var.key} ', {diff}")

    def _tangent(self, perturbed, deps):
        """ẏ = J ẋ from r_fwd (tangent mode)."""
        self.line("! the tangent: ydot = J xdot")
        self.line("call adf_reset()")
        for var in self.p.variables:
            if var.active:
                self.line(f"{var.tag}_d = 0")
        for var in perturbed:
            self.line(f"{var.tag}_d = {var.tag}_dir")
        self.line("call adf_call_fwd()")
        self._contract_after("fwd")
        for var in deps:
            self.allocate_like(var, "_yd", var.tag)
            self.line(f"{var.tag}_yd = {var.tag}_d")
        self.line("adf_v = " + " + ".join(self.red(v, f"{v.tag}_seed * {v.tag}_yd")
                                          for v in deps))
        self.line("adf_a = " + " + ".join(self.red(v, f"abs({v.tag}_seed * {v.tag}_yd)")
                                          for v in deps))
        self.line("write(*, '(a, 2es27.17e3)') '@dot_tan ', adf_v, adf_a")

    def _procedures(self, tangent):
        p = self.p
        out = ["subroutine adf_reset()", "  ! every variable back to the base point"]
        for var in p.variables:
            if var.is_global and var.allocatable:
                out.append(f"  if (allocated({var.tag}_b)) {var.tag} = {var.tag}_b")
            else:
                out.append(f"  {var.tag} = {var.tag}_b")
        out.append("end subroutine adf_reset")
        actuals = [v.tag for v in p.args]
        out.append("subroutine adf_call_r()")
        if p.function:
            out.append(f"  {actuals[-1]} = {p.routine}({', '.join(actuals[:-1])})")
        else:
            out.append(f"  call {p.routine}({', '.join(actuals)})")
        out.append("end subroutine adf_call_r")
        for motion, suffix in (("rev", "_adj"), ("fwd", "_d")):
            if motion == "fwd" and not tangent:
                continue
            with_ad = []
            for var in p.args:
                with_ad.append(var.tag)
                if var.active:
                    with_ad.append(var.tag + suffix)
            out += [f"subroutine adf_call_{motion}()",
                    f"  call {p.routine}_{motion}({', '.join(with_ad)})",
                    f"end subroutine adf_call_{motion}"]
        out += ["subroutine adf_random(n)",
                "  ! Park-Miller: portable and the same on every run",
                "  integer, intent(in) :: n",
                "  integer :: q",
                "  if (allocated(adf_buf)) deallocate(adf_buf)",
                "  allocate(adf_buf(n))",
                "  do q = 1, n",
                "    adf_rng = mod(16807_adf_i8 * adf_rng, 2147483647_adf_i8)",
                "    adf_buf(q) = real(adf_rng, adf_dp) / 2147483647.0_adf_dp",
                "  end do",
                "end subroutine adf_random"]
        return out
