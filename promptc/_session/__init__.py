"""The session simulator: a scripted session replayed under each provider's caching rules."""
