"""Writers turn numbered sources into a cited markdown answer (extractive or by an LLM)."""
