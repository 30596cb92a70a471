"""One module per ``sanbench`` subcommand."""
