"""Command-line side only: the argument parser and error handling every verb shares (:mod:`.parser`), and
option groups several verbs take (:mod:`.search_flags`, :mod:`.auto_flags`). Library code never imports this package."""
