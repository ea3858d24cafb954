"""The model: the typed records a request is made of (provider, context, variant, tools, …)."""
