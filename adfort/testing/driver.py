"""The Fortran driver program checking one generated case.

The driver knows the case's signature from the model, so it declares
actual arrays of the exact bounds, draws base points inside each
variable's invariant, and prints tagged lines the checker parses:

``@primal_ok p``
    the original routine ran at base point p and at all perturbed points
    (a crash before this line is the generator's fault);
``@fd p k ih rhs noise``
    central difference of <seeds, dependents> along the direction of input
    k with step number ih, and its rounding noise;
``@lhs p k value``
    <adjoint of input k from r_rev, direction k>;
``@primal_err p value``
    largest relative deviation of r_rev's primal results from r's;
``@outzero p k value``
    largest |adjoint| of an intent(out) dependent after r_rev (must be 0);
``@incr p k value``
    relative deviation of (adjoint - preset) from the zero-preset adjoint;
``@jac_err value`` / ``@jac_primal value``
    Jacobian rows against reverse sweeps / primal results of r_jacobian.

With ``tangent=True`` the driver also calls ``r_fwd`` (unless run with
the argument ``notangent``) at each point after the reverse sweeps, with
the direction of the FD and adjoint checks (every perturbed input at
once) and the same seeds as weights:

``@phase_tangent p``
    r_fwd is about to run (a crash after this line is the tangent's);
``@fwd_primal p value``
    largest relative deviation of r_fwd's primal results from r's;
``@tdot p itry value magnitude``
    <seeds, dependents' tangents> and the sum of its terms' magnitudes,
    itry 1 with intent(out) dependents' tangents zero on entry, itry 2
    with them nonzero and the module variables' tangents left over from
    the first call (the results must not differ: r_fwd writes the former
    and zeroes the latter itself).  The checker compares itry 1 with the
    sum of the point's ``@lhs`` (the dot-product test).
"""

COMMON = "/common/"
STEPS = [1e-3, 1e-4, 1e-5, 1e-6, 1e-7]
NPOINTS = 2


def flit(x):
    return f"{x:.17e}".replace("e", "d")


class Item:
    """An argument or module variable as the driver sees it."""

    def __init__(self, tag, var, env, module=None, position=None):
        self.tag = tag                  # driver name stem: a3, v1
        self.var = var
        self.module = module
        self.position = position        # argument index or None
        self.bounds = var.bounds(env) if var.is_array else None
        self.size = var.size(env) if var.is_array else 1
        self.role = set()

    @property
    def is_arg(self):
        return self.position is not None

    @property
    def used(self):
        """Accessed through USE (a module variable)."""
        return self.module is not None and self.module != COMMON

    @property
    def name(self):
        return self.var.name if self.module is None else \
            f"{self.module}::{self.var.name}"

    @property
    def real(self):
        return self.var.kind == "real"

    def shape(self):
        if self.bounds is None:
            return ""
        return "(" + ", ".join(f"{lo}:{hi}" for lo, hi in self.bounds) + ")"

    def red(self, expr):
        return f"sum({expr})" if self.bounds else f"({expr})"

    def maxabs(self, expr):
        return f"maxval(abs({expr}))" if self.bounds else f"abs({expr})"


def items_of(case):
    top = case.top_routine()
    items = []
    for k, name in enumerate(top.args, start=1):
        items.append(Item(f"a{k}", top.vars[name], case.env, None, k))
    for k, (mod, var) in enumerate(case.module_vars(), start=1):
        items.append(Item(f"v{k}", var, case.env, mod))
    for k, var in enumerate(case.common.values(), start=1):
        items.append(Item(f"c{k}", var, case.env, COMMON))
    by_name = {it.name.lower(): it for it in items}
    for d in case.dep:
        by_name[d.lower()].role.add("dep")
    for d in case.indep:
        by_name[d.lower()].role.add("indep")
    return items


def write_driver(case, steps=STEPS, tangent=False):
    """Fortran source of the check program of `case` (central differences
    with the step sizes `steps`; with `tangent`, also checking ``r_fwd``
    against ``r_rev``)."""
    items = items_of(case)
    top = case.top_routine()
    mod = case.top_module()
    r = case.top
    procs = [f"{r}_rev"] + ([f"{r}_jacobian"] if case.jacobian else [])
    active = [it for it in items if it.role]
    # Rows and columns of r_jacobian follow the --dep/--indep order.
    by_name = {it.name.lower(): it for it in items}
    deps = [by_name[d.lower()] for d in case.dep]
    indeps = [by_name[i.lower()] for i in case.indep]

    def outonly(it):
        return "dep" in it.role and "indep" not in it.role and \
            it.is_arg and it.var.intent == "out"

    # inputs perturbed: independents, and dependents whose input value the
    # routine may read (their adjoint out is the adjoint of that value)
    perturbed = [it for it in items if it.role and not outonly(it)]
    presettable = [it for it in indeps if "dep" not in it.role]

    L = []
    ln = L.append
    ln("program fuzz_driver")
    if mod:
        ln(f"  use {mod}, only: {r}")
        ln(f"  use {mod}_ad, only: {', '.join(procs)}")
        if tangent:
            ln(f"  use {mod}_fwd, only: {r}_fwd")
    mods = {}
    for it in items:
        if it.used:
            mods.setdefault(it.module, []).append(it)
    for m, its in mods.items():
        ln(f"  use {m}, only: " + ", ".join(f"{it.tag} => {it.var.name}"
                                            for it in its))
        act = [it for it in its if it.role]
        if act:
            ln(f"  use {m}_ad, only: " + ", ".join(
                f"{it.tag}_adj => {it.var.name}_adj" for it in act))
            if tangent:
                ln(f"  use {m}_fwd, only: " + ", ".join(
                    f"{it.tag}_t => {it.var.name}_d" for it in act))
    ln("  implicit none")
    ln("  integer, parameter :: dp = kind(1.0d0)")
    ln("  integer, parameter :: i8 = selected_int_kind(18)")
    if not mod:
        ln(f"  external :: {', '.join([r] + procs)}")
        if tangent:
            ln(f"  external :: {r}_fwd")
    ln("  integer(i8) :: rng_state")
    ln(f"  real(dp) :: steps({len(steps)}), h, rhs, noise, err, lhs")
    ln("  real(dp) :: yp_sum, ym_sum, ymax")
    ln("  integer :: ip, ih, irow, icol, nfail, itry")
    ln("  real(dp) :: tdot, tmag")
    ln("  character(len=16) :: arg1")
    for it in items:
        sh = it.shape()
        if not it.real:
            # integer arguments (sizes) are fixed; integer module state is
            # reset to its base
            if it.is_arg:
                ln(f"  integer :: {it.tag}{sh}, {it.tag}_b{sh}")
            elif it.used:
                ln(f"  integer :: {it.tag}_b{sh}, {it.tag}_o{sh}")
            else:
                ln(f"  integer :: {it.tag}{sh}, {it.tag}_b{sh}, {it.tag}_o{sh}")
            continue
        names = [f"{it.tag}_b", f"{it.tag}_o"]
        if not it.used:
            names.insert(0, it.tag)
        if it.role:
            names += [f"{it.tag}_d", f"{it.tag}_s", f"{it.tag}_g1",
                      f"{it.tag}_p", f"{it.tag}_yp", f"{it.tag}_ym"]
            if it.is_arg:
                names.append(f"{it.tag}_adj")
                if tangent:
                    names.append(f"{it.tag}_t")
        ln(f"  real(dp) :: " + ", ".join(n + sh for n in names))
    com = [it.tag for it in items if it.module == COMMON]
    if com:
        ln(f"  common /{case.common_name}/ {', '.join(com)}")
    nd = sum(it.size for it in deps)
    ni = sum(it.size for it in indeps)
    if case.jacobian:
        ln(f"  real(dp) :: jac({nd}, {ni}), row({ni}), flat({max(nd, ni)})")
    B = []
    b = B.append
    b(f"steps = [{', '.join(flit(h) for h in steps)}]")
    b("call get_command_argument(1, arg1)")
    b(f"rng_state = {case.seed % 2000000000 + 17}_i8")
    for it in items:
        if not it.real:
            val = it.var.value if it.is_arg else 0
            b(f"{it.tag}_b = {val if val is not None else 0}")
            if it.is_arg:
                b(f"{it.tag} = {it.tag}_b")
    b(f"do ip = 1, {NPOINTS}")
    b("print '(a, i2)', '@phase_primal ', ip")
    b("flush(6)")
    for it in items:
        if it.real:
            lo, hi = it.var.interval
            w = hi - lo
            fill(B, it, f"{it.tag}_b",
                 lambda u: f"{flit(lo + 0.05 * w)} + {flit(0.9 * w)} * {u}")
    b("call reset()")
    b("call call_r()")
    b("call save_out()")
    b("ymax = 0")
    for it in items:
        if it.real:
            b(f"ymax = max(ymax, {it.maxabs(it.tag + '_o')})")
    b("if (.not. (ymax < 1.0d8)) then")
    b("  print '(a, i2, es12.4)', '@primal_bad ', ip, ymax")
    b("  stop")
    b("end if")
    # seeds and directions
    for it in active:
        fill(B, it, f"{it.tag}_s", lambda u: f"0.5_dp + {u}")
        lo, hi = it.var.interval
        fill(B, it, f"{it.tag}_d", lambda u: f"(2 * {u} - 1) * "
             f"{flit(max(abs(lo), abs(hi), 0.1))}")
    # finite differences along each perturbed input separately
    for k, it in enumerate(perturbed, start=1):
        b(f"do ih = 1, {len(steps)}")
        b("  h = steps(ih)")
        for sgn, store in (("+", "yp"), ("-", "ym")):
            b("  call reset()")
            b(f"  {cur(it)} = {it.tag}_b {sgn} h * {it.tag}_d")
            b("  call call_r()")
            for d in deps:
                b(f"  {d.tag}_{store} = {cur(d)}")
        b("  yp_sum = 0; ym_sum = 0; noise = 0")
        for d in deps:
            b(f"  yp_sum = yp_sum + {d.red(f'{d.tag}_s * {d.tag}_yp')}")
            b(f"  ym_sum = ym_sum + {d.red(f'{d.tag}_s * {d.tag}_ym')}")
            b(f"  noise = noise + {d.red(f'abs({d.tag}_s) * max(abs({d.tag}_yp), abs({d.tag}_ym))')}")
        b("  rhs = (yp_sum - ym_sum) / (2 * h)")
        b("  noise = 16 * epsilon(1.0_dp) * noise / (2 * h)")
        b(f"  print '(a, 3i4, 2es26.17)', '@fd ', ip, {k}, ih, rhs, noise")
        b("end do")
    b("print '(a, i2)', '@primal_ok ', ip")
    b("flush(6)")
    # reverse sweep, independent adjoints zero
    b("call reset()")
    seed_adjoints(B, active)
    b(f"call call_rev()")
    b("call primal_err('@primal_err ')")
    for it in active:
        b(f"{it.tag}_g1 = {adj(it)}")
    for k, it in enumerate(perturbed, start=1):
        b(f"print '(a, 2i4, es26.17)', '@lhs ', ip, {k}, "
          f"{it.red(f'{it.tag}_g1 * {it.tag}_d')}")
    for it in active:
        if outonly(it):
            b(f"print '(a, i4, a, es12.4)', '@outzero ', ip, ' {it.name} ', "
              f"{it.maxabs(adj(it))}")
    # second sweep: preset independent adjoints must be incremented
    if presettable:
        b("call reset()")
        seed_adjoints(B, active)
        for it in presettable:
            fill(B, it, f"{it.tag}_p", lambda u: f"(1 + {u}) * merge("
                 f"{it.tag}_g1, 1.0_dp, {it.tag}_g1 /= 0)")
            b(f"{adj(it)} = {it.tag}_p")
        b("call call_rev()")
        for it in presettable:
            b(f"err = {it.maxabs(f'{adj(it)} - {it.tag}_p - {it.tag}_g1')}"
              f" / max({it.maxabs(f'{it.tag}_p')}, tiny(1.0_dp))")
            b(f"print '(a, i4, a, es12.4)', '@incr ', ip, ' {it.name} ', err")
    if tangent:
        tangent_check(B, active, deps, outonly)
    if case.jacobian:
        jacobian_check(B, case, deps, indeps)
    b("end do")

    # contained procedures
    C = []
    c = C.append
    c("subroutine reset()")
    for it in items:
        if it.real or not it.is_arg:
            c(f"  {cur(it)} = {it.tag}_b")
    c("end subroutine reset")
    c("subroutine save_out()")
    for it in items:
        if it.real or not it.is_arg:
            c(f"  {it.tag}_o = {cur(it)}")
    c("end subroutine save_out")
    c("subroutine primal_err(tag)")
    c("  character(len=*), intent(in) :: tag")
    c("  real(dp) :: e")
    c("  e = 0")
    for it in items:
        if it.real:
            c(f"  e = max(e, {it.maxabs(f'{cur(it)} - {it.tag}_o')} / "
              f"max({it.maxabs(f'{it.tag}_o')}, 1.0d-300))")
        elif not it.is_arg:
            c(f"  if (any([{cur(it)}] /= [{it.tag}_o])) e = max(e, 1.0_dp)")
    c("  print '(a, i4, es12.4)', tag, ip, e")
    c("end subroutine primal_err")
    args = [cur(items[i]) for i in range(len(top.args))]
    c("subroutine call_r()")
    c(f"  call {r}({', '.join(args)})")
    c("end subroutine call_r")
    rargs = []
    for it in items[:len(top.args)]:
        rargs.append(cur(it))
        if it.role:
            rargs.append(f"{it.tag}_adj")
    c("subroutine call_rev()")
    c(f"  call {r}_rev({', '.join(rargs)})")
    c("end subroutine call_rev")
    if tangent:
        fargs = []
        for it in items[:len(top.args)]:
            fargs.append(cur(it))
            if it.role:
                fargs.append(f"{it.tag}_t")
        c("subroutine call_fwd()")
        c(f"  call {r}_fwd({', '.join(fargs)})")
        c("end subroutine call_fwd")
    c("subroutine fill_u(buf)")
    c("  real(dp), intent(out) :: buf(:)")
    c("  integer :: q")
    c("  do q = 1, size(buf)")
    c("    rng_state = mod(16807_i8 * rng_state, 2147483647_i8)")
    c("    buf(q) = real(rng_state, dp) / 2147483647.0_dp")
    c("  end do")
    c("end subroutine fill_u")
    c("function urand() result(u)")
    c("  real(dp) :: u, buf(1)")
    c("  call fill_u(buf)")
    c("  u = buf(1)")
    c("end function urand")

    out = L + ["  real(dp), allocatable :: ubuf(:)"] + \
        ["  " + x for x in B] + ["contains"] + ["  " + x for x in C] + \
        ["end program fuzz_driver"]
    from adfort.testing.model import wrap_free
    return "\n".join(w for line in out for w in wrap_free(line, 120)) + "\n"


def cur(it):
    """The driver variable holding the routine's current value."""
    return it.tag


def adj(it):
    return f"{it.tag}_adj"


def fill(B, it, target, expr_of_u):
    """target = expr(u), u uniform in [0, 1) per element."""
    if it.bounds:
        B.append(f"if (allocated(ubuf)) deallocate(ubuf)")
        B.append(f"allocate(ubuf({it.size}))")
        B.append("call fill_u(ubuf)")
        B.append(f"{target} = " + expr_of_u(
            f"reshape(ubuf, shape({target}))"))
    else:
        B.append(f"{target} = " + expr_of_u("urand()"))


def seed_adjoints(B, active):
    for it in active:
        if "dep" in it.role:
            B.append(f"{adj(it)} = {it.tag}_s")
        else:
            B.append(f"{adj(it)} = 0")


def flatten_into(B, it, dst, off):
    if it.bounds:
        B.append(f"{dst}({off + 1}:{off + it.size}) = reshape({adj(it)}, "
                 f"[{it.size}])")
    else:
        B.append(f"{dst}({off + 1}) = {adj(it)}")


def tangent_check(B, active, deps, outonly):
    """r_fwd along the direction of every perturbed input at once, twice
    (see the module docstring: ``@tdot``)."""
    b = B.append
    b("if (arg1 /= 'notangent') then")
    b("  print '(a, i2)', '@phase_tangent ', ip")
    b("  flush(6)")
    b("  do itry = 1, 2")
    b("    call reset()")
    for it in active:
        if outonly(it):
            # garbage on entry the second time: r_fwd must overwrite it
            b(f"    {it.tag}_t = merge(0.0_dp, 1.0d3 * {it.tag}_s, itry == 1)")
        else:
            b(f"    {it.tag}_t = {it.tag}_d")
    b("    call call_fwd()")
    b("    if (itry == 1) call primal_err('@fwd_primal ')")
    b("    tdot = 0; tmag = 0")
    for d in deps:
        b(f"    tdot = tdot + {d.red(f'{d.tag}_s * {d.tag}_t')}")
        b(f"    tmag = tmag + {d.red(f'abs({d.tag}_s * {d.tag}_t)')}")
    b("    print '(a, 2i4, 2es26.17)', '@tdot ', ip, itry, tdot, tmag")
    b("  end do")
    b("end if")


def jacobian_check(B, case, deps, indeps):
    """r_jacobian's rows against reverse sweeps seeded with unit vectors."""
    b = B.append
    r = case.top
    b("call reset()")
    b("jac = 0")
    args = []
    top = case.top_routine()
    for k in range(len(top.args)):
        args.append(f"a{k + 1}")
    b(f"call {r}_jacobian({', '.join(args)}, jac)")
    b("call primal_err('@jac_primal ')")
    off = 0
    for d in deps:
        b(f"do irow = {off + 1}, {off + d.size}")
        b("  call reset()")
        for it in set(deps) | set(indeps):
            b(f"  {adj(it)} = 0")
        if d.bounds:
            b(f"  flat = 0")
            b(f"  flat(irow - {off}) = 1")
            b(f"  {adj(d)} = reshape(flat(1:{d.size}), shape({adj(d)}))")
        else:
            b(f"  {adj(d)} = 1")
        b("  call call_rev()")
        o2 = 0
        for it in indeps:
            flatten_into(B, it, "flat", o2)
            o2 += it.size
        b(f"  row = flat(1:{o2})")
        b("  err = maxval(abs(jac(irow, :) - row)) / max(maxval(abs(row)), "
          "maxval(abs(jac(irow, :))), 1.0d-300)")
        b("  print '(a, i4, i6, es12.4)', '@jac_err ', ip, irow, err")
        b("end do")
        off += d.size
