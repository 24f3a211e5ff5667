"""``build``: compile and cache the similarity jar ahead of first use; ``__main__`` is the verb, over the JVM
layer's :mod:`qlog_pyserini.jvm.jar`."""
