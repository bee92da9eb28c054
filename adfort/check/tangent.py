"""The tangent (``r_fwd``) that ``adfort check`` runs next to the adjoint.

TANGENT WIRING POINT.  :func:`generate` asks the API for tangent mode.
While this adfort has no forward mode, it returns None with a note, and
the checks fall back on central differences for J·ẋ (the dot-product test)
and leave out the vector form of the Taylor test.  When forward mode is
merged, make :func:`generate` return its Fortran text (everything else
— the driver calling ``r_fwd(x, x_d, …)``, the module holding it, the
tests — is in place and exercised by ``--tangent FILE``).
"""

import inspect

NO_TANGENT = ("no tangent mode in this adfort: J·ẋ comes from central differences "
              "of the original routine (dot-product test to finite-difference "
              "accuracy), and the Taylor test has no vector form")


def generate(request, routine):
    """(Fortran text of ``<routine>_fwd``, None) or (None, why not).

    :param request: the :class:`adfort.check.build.CheckRequest`.
    :param routine: the routine's name.
    """
    from adfort import api
    forward = getattr(api, "differentiate_forward", None)
    if forward is None:
        if "mode" not in inspect.signature(api.differentiate_file).parameters:
            return None, NO_TANGENT
        forward = _by_mode(api.differentiate_file)
    text, _, _ = forward(request.path, request.dependents, request.independents,
                         request.schedule, routine, request.options,
                         cache=request.cache, **request.reading)
    return text, None


def _by_mode(differentiate_file):
    def forward(*args, **kwargs):
        return differentiate_file(*args, mode="forward", **kwargs)
    return forward
