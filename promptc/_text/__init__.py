"""The text engine: mustache templates, the post-processor, layouts, token counting."""
