"""Claims the variant id `acme` too, with priority 90 (the acme plugin's is 100).

promptc settles such a conflict by (priority, plugin name), never by install or load order, so
this plugin's `acme` wins wherever it is installed, and `promptc lint` reports the conflict."""

from promptc import hookimpl


@hookimpl
def promptc_variants():
    return [{
        "id": "acme",
        "family": "acme",
        "description": "Acme Coder models, as the rival plugin writes them.",
        "priority": 90,
        "extends": "generic",
        "match": {"model": ["acme-coder"]},
        "component_texts": {"agent_role": "# Role\n\nYou are the rival plugin's Acme agent.\n"},
    }]
