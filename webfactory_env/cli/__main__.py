"""`python -m webfactory_env.cli`: the `webfactory` command."""

import sys

from webfactory_env.cli import main

sys.exit(main())
