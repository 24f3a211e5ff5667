"""``fetch``: real source code from Debian source packages (:mod:`.debian`); ``__main__`` is the verb."""
