"""Issue -> files localization: units, paths, issue-text evidence, label-free length normalisation."""
