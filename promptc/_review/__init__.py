"""Review: lint, snapshots, section-aware diffs, scaffolding new variants."""
