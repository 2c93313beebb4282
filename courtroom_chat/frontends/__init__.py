"""Front ends: thin renderers of engine events (CLI, chat, notebook)."""
