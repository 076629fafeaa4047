"""``python -m dpverify`` is ``dpverify``."""

import sys

from dpverify._launch import main

sys.exit(main())
