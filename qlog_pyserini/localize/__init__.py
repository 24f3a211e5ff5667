"""Issue -> files localization: what an issue report names, matched to a repository's files and units."""
