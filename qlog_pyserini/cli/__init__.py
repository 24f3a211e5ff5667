"""Command-line side only: the argument parser and error handling every verb shares (:mod:`.parser`), and
the options several verbs declare alike (:mod:`.options`). A verb's own flags live beside its ``__main__``
(``search/flags.py``, ``predict/flags.py``, ``stats/flags.py``). Library code never imports this package."""
