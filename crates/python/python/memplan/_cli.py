"""The ``memplan`` command that ``pip install memplan`` puts on the PATH: the same
command line as the Rust binary, run by the native module."""

import sys

from . import _memplan


def main() -> None:
    sys.exit(_memplan.run(sys.argv[1:]))


if __name__ == "__main__":
    main()
