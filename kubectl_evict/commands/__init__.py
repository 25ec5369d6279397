"""One module per command; each exposes `command`, a click.Command. `cli.py` discovers them."""
