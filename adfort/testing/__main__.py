"""``python -m adfort.testing``: fuzzing campaigns and single cases.

Every case's adjoint ``r_rev`` is checked against central differences and
the calling convention, and its tangent ``r_fwd`` (unless ``--no-tangent``
or the case uses ``--jacobian``) against the adjoint in the dot-product
test and the tangent convention.

Examples::

    python -m adfort.testing --level all --n 5000 --seed 1 --jobs 2 --out fuzz
    python -m adfort.testing --case 17 --level 3 --keep /tmp/case17 --shrink
    python -m adfort.testing --level 2,3 --n 200 --flag point_loop=1
"""

import argparse
import sys


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m adfort.testing",
                                description=__doc__.split("\n")[0])
    p.add_argument("--level", default="all",
                   help="1, 2, 3, 4, a comma list or 'all' (default)")
    p.add_argument("--n", type=int, default=100, help="number of cases")
    p.add_argument("--seed", type=int, default=1, help="first seed")
    p.add_argument("--jobs", type=int, default=2, help="worker processes")
    p.add_argument("--keep", metavar="DIR",
                   help="keep every case's files under DIR")
    p.add_argument("--out", metavar="REPORT",
                   help="write REPORT.md (summary) and REPORT.jsonl")
    p.add_argument("--shrink", action="store_true",
                   help="shrink failing cases to small reproducers")
    p.add_argument("--tangent", action=argparse.BooleanOptionalAction,
                   default=True,
                   help="also check the tangent r_fwd (default: on)")
    p.add_argument("--case", type=int, metavar="SEED",
                   help="check (and print) the one case SEED at --level")
    p.add_argument("--print", action="store_true",
                   help="with --case: print the source only")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print each failing case as it ends")
    p.add_argument("--flag", action="append", default=[], metavar="NAME=VALUE",
                   help="set a generator feature flag (a probability or 0/1), "
                        "e.g. point_loop=1")
    args = p.parse_args(argv)
    args.flags = {}
    for item in args.flag:
        name, _, value = item.partition("=")
        args.flags[name] = float(value)
    return args


def single(args):
    from adfort.testing.checker import check, command_of
    from adfort.testing.generator import generate
    level = int(args.level)
    case = generate(args.case, level, args.flags or None)
    print(case.source())
    print("#", case.command())
    if args.print:
        return 0
    res = check(case, workdir=args.keep, tangent=args.tangent)
    print(f"# {res.cls}: {res.message}")
    print(f"# tangent: {res.tangent} {res.tangent_message}".rstrip())
    if res.detail:
        print(res.detail)
    if args.shrink and res.cls != "pass":
        from adfort.testing.shrink import shrink_case
        small, sres = shrink_case(case, res, verbose=True,
                                  tangent=args.tangent)
        print("# shrunk:\n" + small.source())
        print("#", command_of(small, sres))
        print(f"# {sres.cls}: {sres.message}\n{sres.detail}")
    return 0 if res.cls == "pass" else 1


def main(argv=None):
    args = parse(argv if argv is not None else sys.argv[1:])
    if args.case is not None:
        return single(args)
    from adfort.testing.campaign import main as campaign
    return campaign(args)


if __name__ == "__main__":
    sys.exit(main())
