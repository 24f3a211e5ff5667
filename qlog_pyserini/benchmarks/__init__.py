"""Benchmarks to search: adapters for published datasets (:mod:`.datasets`), real source code
from Debian packages (:mod:`.debian`), and CodeSearchNet-style benchmarks built from any source tree
(:mod:`.codecorpus`)."""
