"""One encoder (family) per file; each file registers its names with ``@register_encoder``."""
