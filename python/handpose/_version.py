# The one version of handpose's Python package, its binary (`handpose --version`) and its image label:
# scripts/build-wheel.py refuses to build a wheel when the binary reports another.
__version__ = "0.1.0"
