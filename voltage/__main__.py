import sys

from voltage.cli import main

sys.exit(main())
