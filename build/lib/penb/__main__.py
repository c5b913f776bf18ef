import sys

from penb.cli import main

sys.exit(main())
