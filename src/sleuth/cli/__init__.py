"""The `sleuth` command line: each command parses, calls the library, renders."""
