"""Emitting: cache blocks, native tool definitions and provider request payloads."""
