"""The tangent (``r_fwd``) that ``adfort check`` runs next to the adjoint.

The tangent gives J·ẋ exactly, so the dot-product test compares two
derivatives to round-off, and the Taylor test gets its vector form.  When
adfort cannot write the tangent of a routine whose adjoint it writes, the
checks fall back on central differences of the original routine for J·ẋ,
and a note says why.
"""

from adfort.errors import AdfortError

NO_TANGENT = ("no tangent: {why}; J·ẋ comes from central differences of the original "
              "routine (dot-product test to finite-difference accuracy), and the Taylor "
              "test has no vector form")


def generate(request, routine):
    """(Fortran text of ``<routine>_fwd``, None) or (None, why not).

    :param request: the :class:`adfort.check.build.CheckRequest`.
    :param routine: the routine's name.
    """
    from adfort.api import differentiate_file
    # Checkpointing is a matter of the reverse sweep: the tangent runs the
    # loop as it is.
    reading = {key: value for key, value in request.reading.items() if key != "checkpoints"}
    try:
        text, _, _ = differentiate_file(request.path, request.dependents,
                                        request.independents, request.schedule, routine,
                                        request.options, cache=request.cache,
                                        mode="forward", **reading)
    except AdfortError as err:
        return None, NO_TANGENT.format(why=str(err).splitlines()[0])
    return text, None
