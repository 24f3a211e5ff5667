"""What every verb relies on: outputs we own and atomic writes (:mod:`.outputs`), child processes
(:mod:`.processes`), signals (:mod:`.signals`), progress (:mod:`.progress`), provenance and ``PROJECT_ROOT``."""
