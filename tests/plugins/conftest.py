"""The folders here are plugin packages that tests/test_plugins.py installs with pip; nothing
under them is collected by this suite (promptc-acme/tests is the plugin author's own suite)."""

collect_ignore_glob = ["promptc-*"]
