"""``python -m dpverify`` is ``dpverify``."""

import sys

from dpverify.verify.cli import main

sys.exit(main())
