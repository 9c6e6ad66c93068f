import os
import sys

# The package lives beside the tests, uninstalled. Worker processes started by spawn or forkserver
# get this sys.path from the parent, so they import it (and _helpers) the same way.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
