"""The ``memplan`` command that ``pip install memplan`` puts on the PATH: the same
command line as the Rust binary, run by the native module."""

import signal
import sys

from . import _memplan


def main() -> None:
    # a closed stdout (`memplan ... | head`) ends the command as it ends Unix tools
    # and the Rust binary, by SIGPIPE, not with a panic on the next print
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(_memplan.run(sys.argv[1:]))


if __name__ == "__main__":
    main()
